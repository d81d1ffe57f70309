/**
 * `airlock install`, `uninstall` and `doctor`: set up, remove and check a host installation (root).
 * main.ts loads this file to declare the commands; doctor imports the client when it runs.
 */
import { Command } from 'commander';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { DEFAULT_CONFIG_DIR, DEFAULT_LOG_DIR, DEFAULT_SOCKET, DEFAULT_STATE_DIR, stateFiles } from '../protocol/defaults.js';
import { AirlockError } from '../protocol/errors.js';
import { AIRLOCK_GROUPS, APPROVER_GROUP, ROLE_GROUPS } from '../protocol/risk.js';
import { c, printJson, reportError } from './ui.js';

const UNIT_PATH = '/etc/systemd/system/airlock.service';
const TMPFILES_PATH = '/etc/tmpfiles.d/airlock.conf';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function unitFile(): string {
  return `[Unit]
Description=Airlock: typed, approved, audited actions for AI agents (LACS 0.1)
Documentation=file://${ROOT}/README.md
After=network.target

[Service]
Type=simple
ExecStart=${process.execPath} ${join(ROOT, 'bin', 'airlock.js')} daemon
Restart=on-failure
RestartSec=2
UMask=0022
# The daemon must change the host (it is the point), so it keeps root and the
# capabilities that actions need; everything else is fenced off.
NoNewPrivileges=yes
PrivateTmp=yes
ProtectClock=no
ProtectKernelLogs=yes
ProtectControlGroups=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RestrictRealtime=yes
RestrictNamespaces=yes
MemoryDenyWriteExecute=no
SystemCallArchitectures=native
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
RuntimeDirectory=airlock
RuntimeDirectoryMode=0755
StateDirectory=airlock
StateDirectoryMode=0700
LogsDirectory=airlock
LogsDirectoryMode=0755

[Install]
WantedBy=multi-user.target
`;
}

const TMPFILES = `# Airlock runtime and state directories
d /run/airlock 0755 root root -
d ${DEFAULT_STATE_DIR} 0700 root root -
d ${DEFAULT_LOG_DIR} 0750 root root -
`;

function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) throw new AirlockError('authorization', 'needs_root', `${what} needs root`, `run \`sudo airlock ${what}\``);
}

const systemdRunning = () => existsSync('/run/systemd/system');
const run = (file: string, args: string[]) => execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const groupExists = (g: string) => readFileSync('/etc/group', 'utf8').split('\n').some((l) => l.startsWith(g + ':'));

export function adminCommands(): Command[] {
  const install = new Command('install')
    .description('set up this host (root): groups, directories, a hardened systemd unit, tmpfiles')
    .option('--no-start', 'do not enable and start the service')
    .option('--json', 'print what was done as JSON')
    .addHelpText('after', `\nCreates the groups ${AIRLOCK_GROUPS.join(', ')}; ${DEFAULT_STATE_DIR} (0700), ${DEFAULT_LOG_DIR} (0750), ${DEFAULT_CONFIG_DIR};\n${UNIT_PATH} and ${TMPFILES_PATH}. Keys are created by the daemon at its first start.\nThen: add people with \`usermod -aG ${ROLE_GROUPS.dev} NAME\` (agents) and \`usermod -aG ${APPROVER_GROUP},${ROLE_GROUPS.admin} NAME\` (approvers).`)
    .action((o) => {
      try {
        requireRoot('install');
        const done: string[] = [];
        // The unit has PrivateTmp=yes: a checkout under /tmp or /var/tmp is invisible to the daemon it starts.
        if (/^\/(var\/)?tmp\//.test(ROOT + '/')) done.push(`WARNING: Airlock is in ${ROOT}; the service's private /tmp hides it from the daemon, which will not start: clone it to /opt/airlock and install from there`);
        for (const g of AIRLOCK_GROUPS) {
          if (!groupExists(g)) {
            run('/usr/sbin/groupadd', ['--system', '--', g]);
            done.push(`created group ${g}`);
          }
        }
        for (const [d, mode] of [[DEFAULT_STATE_DIR, 0o700], [DEFAULT_LOG_DIR, 0o755], [DEFAULT_CONFIG_DIR, 0o755], ['/run/airlock', 0o755]] as const) {
          mkdirSync(d, { recursive: true, mode });
          chmodSync(d, mode);
          done.push(`directory ${d} (${mode.toString(8)})`);
        }
        writeFileSync(UNIT_PATH, unitFile(), { mode: 0o644 });
        writeFileSync(TMPFILES_PATH, TMPFILES, { mode: 0o644 });
        done.push(`wrote ${UNIT_PATH}`, `wrote ${TMPFILES_PATH}`);
        if (o.start && systemdRunning()) {
          run('/usr/bin/systemctl', ['daemon-reload']);
          run('/usr/bin/systemctl', ['enable', '--now', 'airlock.service']);
          done.push('enabled and started airlock.service');
        } else if (o.start) done.push('systemd is not running here: start the daemon with `airlock daemon`');
        if (o.json) printJson({ ok: true, done });
        else process.stdout.write(done.map((d) => `${c.green('✓')} ${d}\n`).join('') + `\n${c.cyan('next')}  sudo usermod -aG ${ROLE_GROUPS.dev} AGENT_USER; sudo usermod -aG ${APPROVER_GROUP},${ROLE_GROUPS.admin} YOU\n`);
      } catch (e) {
        process.exitCode = reportError(e, o.json);
      }
    });

  const uninstall = new Command('uninstall')
    .description('remove the service, unit and tmpfiles (root); --purge also removes state, keys, log and groups')
    .option('--purge', 'also delete the database, keys, checkpoints and groups (the audit trail is lost)')
    .option('--json', 'print JSON')
    .action((o) => {
      try {
        requireRoot('uninstall');
        const done: string[] = [];
        if (systemdRunning() && existsSync(UNIT_PATH)) {
          try {
            run('/usr/bin/systemctl', ['disable', '--now', 'airlock.service']);
            done.push('stopped and disabled airlock.service');
          } catch {}
        }
        for (const f of [UNIT_PATH, TMPFILES_PATH]) if (existsSync(f)) (rmSync(f), done.push(`removed ${f}`));
        if (o.purge) {
          const cp = stateFiles(DEFAULT_STATE_DIR, DEFAULT_LOG_DIR).checkpoints;
          if (existsSync(cp)) {
            try {
              run('/usr/bin/chattr', ['-a', '--', cp]);
            } catch {}
          }
          for (const d of [DEFAULT_STATE_DIR, DEFAULT_LOG_DIR, '/run/airlock']) if (existsSync(d)) (rmSync(d, { recursive: true, force: true }), done.push(`removed ${d}`));
          for (const g of AIRLOCK_GROUPS) if (groupExists(g)) (run('/usr/sbin/groupdel', ['--', g]), done.push(`removed group ${g}`));
        } else done.push(`kept ${DEFAULT_STATE_DIR} and ${DEFAULT_LOG_DIR} (the audit trail); --purge removes them`);
        if (o.json) printJson({ ok: true, done });
        else process.stdout.write(done.map((d) => `${c.green('✓')} ${d}\n`).join(''));
      } catch (e) {
        process.exitCode = reportError(e, o.json);
      }
    });

  const doctor = new Command('doctor')
    .description('check this installation and say what to fix')
    .option('--state-dir <dir>', 'state directory', DEFAULT_STATE_DIR)
    .option('--log-dir <dir>', 'checkpoint directory', DEFAULT_LOG_DIR)
    .option('--json', 'print JSON')
    .action(async (o, cmd: Command) => {
      const checks: { name: string; ok: boolean; detail: string }[] = [];
      const add = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
      const major = Number(process.versions.node.split('.')[0]);
      add('node', major >= 20, `Node ${process.versions.node}${major >= 20 ? '' : ' (needs 20 or newer)'}`);
      add('native addon', existsSync(join(ROOT, 'native', 'build', 'Release', 'airlock_native.node')), 'peer-credential addon (run `npm install` to build it)');
      const { AirlockClient, socketPath } = await import('../client/client.js');
      const sock = socketPath(cmd.optsWithGlobals().socket);
      try {
        const cl = await AirlockClient.connect(sock, { timeoutMs: 5000 });
        const p = cl.welcome.principal;
        add('daemon', true, `reachable at ${sock}; you are ${p.user} (uid ${p.uid}), role ${p.role}${p.approver ? ', approver' : ''}${p.uid === 0 ? (p.person ? `; approvals count as ${p.person}` : '; nobody stands behind this root process, so it approves nothing') : ''}`);
        cl.close();
      } catch (e) {
        add('daemon', false, `${(e as Error).message}${sock === DEFAULT_SOCKET ? '' : ` (socket ${sock})`}`);
      }
      const files = stateFiles(o.stateDir, o.logDir);
      if (process.getuid?.() === 0) {
        for (const k of [files.auditKey, files.approvalKey, files.totpKey, files.maskKey]) {
          if (!existsSync(k)) add(`key ${k}`, false, 'missing: the daemon creates it at its first start');
          else {
            const mode = statSync(k).mode & 0o777;
            add(`key ${k}`, (mode & 0o077) === 0, `mode ${mode.toString(8)}${mode & 0o077 ? ` — run chmod 600 ${k}` : ''}`);
          }
        }
        if (existsSync(files.checkpoints)) {
          let attrs = '';
          try {
            attrs = run('/usr/bin/lsattr', ['--', files.checkpoints]).split(' ')[0] ?? '';
          } catch {}
          add('checkpoint sink', attrs.includes('a'), attrs.includes('a') ? `${files.checkpoints} is append-only` : `${files.checkpoints} is not append-only (chattr +a unsupported here?): a root attacker could cut it unnoticed`);
        } else add('checkpoint sink', false, `${files.checkpoints} does not exist yet`);
      } else add('keys', true, 'run as root to check key permissions');
      for (const g of AIRLOCK_GROUPS) add(`group ${g}`, groupExists(g), groupExists(g) ? 'present' : 'missing: run `sudo airlock install`');
      const failed = checks.filter((x) => !x.ok).length;
      if (o.json) printJson({ ok: failed === 0, checks });
      else process.stdout.write(checks.map((x) => `${x.ok ? c.green('✓') : c.red('✗')} ${x.name}: ${x.detail}\n`).join('') + (failed ? `\n${failed} problem(s)\n` : '\nall good\n'));
      process.exitCode = failed ? 1 : 0;
    });
  return [install, uninstall, doctor];
}
