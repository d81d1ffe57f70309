/**
 * `airlock relay install` (root, on the agent's workstation): the relay's system account and
 * group, the airlock-fleet group of the accounts that may use it, its configuration folder
 * (root's, readable by the relay's group alone), an Ed25519 key made by the system's
 * ssh-keygen (the private half root's, readable by the relay's group alone), an empty host
 * list, and a hardened unit. It never replaces a key or a host list that is there already.
 * `airlock relay key` prints the public key.
 */
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parseGroup, parsePasswd } from '../protocol/account-files.js';
import { AirlockError } from '../protocol/errors.js';
import { RELAY_ACCOUNT, RELAY_USERS_GROUP } from '../protocol/relay.js';
import { formatHosts } from '../protocol/relay-hosts.js';
import { makeFolderSafely, removeFileSafely, writeFileSafely } from '../protocol/safe-write.js';
import { CHECKOUT_LAYOUT, groupExists, PACKAGE_LAYOUT, PACKAGED, requireRoot, run, systemdRunning, type Layout } from './installation.js';
import { relayFiles } from './relay-files.js';
import { UNPRIVILEGED_SERVICE } from './console-unit.js';
import { c, printJson } from './ui.js';

export const RELAY_UNIT_PATH = '/etc/systemd/system/airlock-relay.service';

/** The relay's unit, for this installation's layout (a checkout, or the package's paths). */
export function relayUnitFile(configDir: string, l: Layout = PACKAGED ? PACKAGE_LAYOUT : CHECKOUT_LAYOUT): string {
  return `[Unit]
Description=Airlock relay: reaches hosts by name for local agents; the only holder of the SSH key
Documentation=file://${l.docs}/docs/cli.md
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=${RELAY_ACCOUNT}
# The socket's folder is group ${RELAY_USERS_GROUP}'s to enter; the key is group ${RELAY_ACCOUNT}'s to read.
Group=${RELAY_USERS_GROUP}
SupplementaryGroups=${RELAY_ACCOUNT}
ExecStart=${l.node} ${join(l.dir, 'bin', 'airlock.js')} relay serve --config-dir ${configDir}
Restart=on-failure
RestartSec=2
RuntimeDirectory=airlock-relay
RuntimeDirectoryMode=0750
UMask=0077
# It runs ssh and passes bytes: nothing else.
${UNPRIVILEGED_SERVICE}RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
ReadOnlyPaths=${configDir}

[Install]
WantedBy=multi-user.target
`;
}

export async function relayInstall(o: { start: boolean; configDir: string; json?: boolean }): Promise<void> {
  requireRoot('relay install');
  const done: string[] = [];
  const files = relayFiles(o.configDir);
  for (const g of [RELAY_ACCOUNT, RELAY_USERS_GROUP]) {
    if (!groupExists(g)) {
      run('/usr/sbin/groupadd', ['--system', '--', g]);
      done.push(`created group ${g}`);
    }
  }
  if (!parsePasswd(readFileSync('/etc/passwd', 'utf8')).some((e) => e.name === RELAY_ACCOUNT)) {
    run('/usr/sbin/useradd', ['--system', '--gid', RELAY_ACCOUNT, '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--', RELAY_ACCOUNT]);
    done.push(`created the system account ${RELAY_ACCOUNT} (no shell, no home)`);
  }
  const relayGid = parseGroup(readFileSync('/etc/group', 'utf8')).find((g) => g.name === RELAY_ACCOUNT)!.gid;
  makeFolderSafely(o.configDir, 0o750, { uid: 0, gid: relayGid });
  done.push(`folder ${o.configDir} (0750, root:${RELAY_ACCOUNT}): the key, the host list and the trusted host keys`);
  // The folder is root's alone to write. ssh-keygen makes a pair beside the key's name; both halves are
  // then put in place through safe-write.ts with their owner and mode set on the descriptor (the private
  // half readable by the relay's group alone), and a key already there is kept, its owner and mode set again.
  let made = false;
  if (!existsSync(files.key)) {
    const fresh = `${files.key}.new-${process.pid}`;
    run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `airlock-relay@${hostname()}`, '-f', fresh]);
    try {
      writeFileSafely(files.key, readFileSync(fresh), { mode: 0o640, owner: { uid: 0, gid: relayGid }, exclusive: true });
      writeFileSafely(files.publicKey, readFileSync(`${fresh}.pub`), { mode: 0o644, owner: { uid: 0, gid: 0 } });
    } finally {
      for (const f of [fresh, `${fresh}.pub`]) if (existsSync(f)) removeFileSafely(f);
    }
    made = true;
  } else {
    writeFileSafely(files.key, readFileSync(files.key), { mode: 0o640, owner: { uid: 0, gid: relayGid } });
  }
  done.push(`${made ? 'made' : 'kept'} the relay's key ${files.key} (0640, root:${RELAY_ACCOUNT})`);
  if (!existsSync(files.hosts)) {
    writeFileSafely(files.hosts, formatHosts(new Map()), { mode: 0o640, owner: { uid: 0, gid: relayGid }, exclusive: true });
    done.push(`wrote an empty host list ${files.hosts} (0640, root:${RELAY_ACCOUNT})`);
  }
  if (!existsSync(files.knownHosts)) writeFileSafely(files.knownHosts, '', { mode: 0o644, exclusive: true });
  writeFileSafely(RELAY_UNIT_PATH, relayUnitFile(o.configDir), { mode: 0o644, folders: { mode: 0o755 } });
  done.push(`wrote ${RELAY_UNIT_PATH}`);
  if (o.start && systemdRunning()) {
    run('/usr/bin/systemctl', ['daemon-reload']);
    run('/usr/bin/systemctl', ['enable', '--now', 'airlock-relay.service']);
    done.push('enabled and started airlock-relay.service');
  }
  const key = readFileSync(files.publicKey, 'utf8').trim();
  if (o.json) return printJson({ ok: true, done, public_key: key });
  process.stdout.write(
    done.map((d) => `${c.green('✓')} ${d}\n`).join('') +
      `\n${c.cyan('next')}  on each host, as root:  airlock proxy authorize '${key}'\n` +
      `${c.cyan('then')}  here:  sudo airlock hosts add NAME [USER@]ADDRESS[:PORT]   (for each host; check the fingerprint it shows)\n` +
      `${c.cyan('and')}   sudo usermod -aG ${RELAY_USERS_GROUP} AGENT_ACCOUNT   (the agent reaches hosts as: airlock --host NAME ...)\n`,
  );
}

export async function relayKey(o: { configDir: string }): Promise<void> {
  const path = relayFiles(o.configDir).publicKey;
  if (!existsSync(path)) throw new AirlockError('validation', 'no_relay_key', `there is no relay key at ${path}`, 'run `sudo airlock relay install`');
  process.stdout.write(readFileSync(path, 'utf8'));
}
