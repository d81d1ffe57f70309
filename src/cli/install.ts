/**
 * `airlock install` (root): the groups, the directories with their one mode each, the
 * example policy (never over an existing one), the systemd unit and tmpfiles entry, the
 * shell completions and the man page; with --store, this host's role in a fleet database
 * (provision-store.ts); then it starts the service. Run from the Debian package, it leaves
 * the files dpkg owns (PACKAGED) and does the rest: --store, --sudo-no-cache, the start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { makeFolderSafely, writeFileSafely } from '../protocol/safe-write.js';
import type { Command } from 'commander';
import { DEFAULT_POLICY_PATH, octal } from '../protocol/defaults.js';
import { AIRLOCK_GROUPS, APPROVER_GROUP, ROLE_GROUPS } from '../protocol/risk.js';
import { COMPLETION_PATHS, completionScript, rootOf, SHELLS } from './completion.js';
import { EXAMPLE_POLICY } from './example-policy.js';
import { AirlockError } from '../protocol/errors.js';
import { CHECKOUT, DIRECTORIES, groupExists, PACKAGED, requireRoot, run, systemdRunning, TMPFILES_PATH, tmpfilesConf, UNIT_PATH, unitFile } from './installation.js';
import { checkDaemonCode, describeUntrusted, untrustedFix } from './daemon-code.js';
import { MAN_PATH, manPage } from './man.js';
import { accountNamed, cacheRisk, DROP_IN_PATH, personBehindRoot, readSudoers, sudoCache } from './sudo-cache.js';
import { writeNoCacheDropIn } from './sudo-drop-in.js';
import { c, printJson } from './ui.js';
import { provisionStore, type StoreInstallOptions } from './provision-store.js';
import { CONSOLE_UNIT_PATH, consoleUnitFile, ensureConsoleAccount } from './console-unit.js';

/** Writes a generated file (0644), making its directory (0755) first, through safe-write.ts. */
function put(path: string, text: string): void {
  writeFileSafely(path, text, { mode: 0o644, folders: { mode: 0o755 } });
}

export async function install(o: { start: boolean; json?: boolean; printSql?: boolean; sudoNoCache?: string } & Partial<StoreInstallOptions>, cmd: Command): Promise<void> {
  const store = o.store !== undefined ? { store: o.store, ...(o.storeRole ? { storeRole: o.storeRole } : {}), ...(o.auditorRole ? { auditorRole: o.auditorRole } : {}) } : null;
  if (o.printSql) {
    if (!store) throw new AirlockError('validation', 'bad_params', '--print-sql prints the fleet database script: give --store postgres://OWNER@HOST/DB');
    process.stdout.write(provisionStore(store, { printSql: true }).join(''));
    return;
  }
  requireRoot('install');
  const { problems } = checkDaemonCode(CHECKOUT);
  if (problems.length) {
    throw new AirlockError('authorization', 'untrusted_code', `the daemon would run as root code that others can change: ${describeUntrusted(problems, 5)}`, `${untrustedFix(problems)}; or install from a root-owned checkout with a root-owned Node, as the README does: sudo git clone ... /opt/airlock && cd /opt/airlock && sudo npm install, with Node from your distribution or NodeSource (not nvm in a home directory)`);
  }
  const done: string[] = [];
  // The unit has PrivateTmp=yes: a checkout under /tmp or /var/tmp is invisible to the daemon it starts.
  if (/^\/(var\/)?tmp\//.test(CHECKOUT + '/')) done.push(`WARNING: Airlock is in ${CHECKOUT}; the service's private /tmp hides it from the daemon, which will not start: clone it to /opt/airlock and install from there`);
  for (const g of AIRLOCK_GROUPS) {
    if (!groupExists(g)) {
      run('/usr/sbin/groupadd', ['--system', '--', g]);
      done.push(`created group ${g}`);
    }
  }
  for (const d of DIRECTORIES) {
    makeFolderSafely(d.path, d.mode); // the mode set on the folder's descriptor, an existing folder's too
    done.push(`directory ${d.path} (${octal(d.mode)}): ${d.holds}`);
  }
  if (existsSync(DEFAULT_POLICY_PATH)) done.push(`kept the policy ${DEFAULT_POLICY_PATH} as it is`);
  else {
    writeFileSafely(DEFAULT_POLICY_PATH, EXAMPLE_POLICY, { mode: 0o644, exclusive: true }); // never over a file that appeared meanwhile
    done.push(`wrote ${DEFAULT_POLICY_PATH}: the built-in defaults, with commented examples`);
  }
  // The package's files are dpkg's (its own paths under /usr/lib and /usr/share): written here they would shadow or change them.
  if (PACKAGED) done.push(`the airlock package installed the units, the tmpfiles and sysusers entries, the completions and the man page (\`dpkg -L airlock\` lists them)`);
  else {
    put(UNIT_PATH, unitFile());
    put(TMPFILES_PATH, tmpfilesConf());
    done.push(`wrote ${UNIT_PATH}`, `wrote ${TMPFILES_PATH}`);
    // The web console: its account and unit, not enabled (a host opts in: docs/console.md).
    const account = ensureConsoleAccount();
    if (account) done.push(account);
    put(CONSOLE_UNIT_PATH, consoleUnitFile());
    done.push(`wrote ${CONSOLE_UNIT_PATH} (not enabled: \`systemctl enable --now airlock-console\` serves the web console on 127.0.0.1:7443)`);
    const program = rootOf(cmd);
    for (const shell of SHELLS) put(COMPLETION_PATHS[shell], completionScript(shell, program));
    done.push(`wrote the ${SHELLS.join(', ')} completions (${Object.values(COMPLETION_PATHS).join(', ')})`);
    put(MAN_PATH, manPage(program));
    done.push(`wrote the man page ${MAN_PATH} (man airlock)`);
  }
  if (store) done.push(...provisionStore(store, { printSql: false }));
  if (o.sudoNoCache) done.push(writeNoCacheDropIn(o.sudoNoCache));
  else {
    const offer = sudoCacheOffer();
    if (offer) done.push(offer);
  }
  if (o.start && systemdRunning()) {
    run('/usr/bin/systemctl', ['daemon-reload']);
    run('/usr/bin/systemctl', ['enable', '--now', 'airlock.service']);
    done.push('enabled and started airlock.service');
  } else if (o.start) done.push('systemd is not running here: start the daemon with `airlock daemon`');
  if (o.json) printJson({ ok: true, done });
  else {
    process.stdout.write(
      done.map((d) => `${c.green('✓')} ${d}\n`).join('') +
        `\n${c.cyan('next')}  sudo usermod -aG ${ROLE_GROUPS.dev} AGENT_USER; sudo usermod -aG ${APPROVER_GROUP},${ROLE_GROUPS.admin} YOU\n` +
        `${c.cyan('then')}  log in again and, at this terminal, \`sudo airlock totp enroll\`: the host's first approver enrols only this way (later ones enrol as themselves and you approve them)\n`,
    );
  }
}

/**
 * The one-account layout's weak point, said where the person installing can act on it: when
 * sudo caches their password, an agent running as them borrows it and is root. Install only
 * offers the fix (--sudo-no-cache), never writes sudo's configuration unasked.
 */
function sudoCacheOffer(): string | null {
  const person = personBehindRoot();
  if (!person) return null;
  let risk: string | null;
  try {
    risk = cacheRisk(person, sudoCache(readSudoers(), accountNamed(person, readFileSync('/etc/passwd', 'utf8'), readFileSync('/etc/group', 'utf8'))!));
  } catch {
    return null; // no sudo here, or a configuration doctor reports on
  }
  return risk && `NOTE: ${risk} (the one-account layout). \`sudo airlock install --no-start --sudo-no-cache ${person}\` writes ${DROP_IN_PATH} (Defaults:${person} timestamp_timeout=0: sudo then asks every time); an agent with an account of its own that may not sudo needs none of this`;
}
