/**
 * `airlock relay serve`: the relay itself (src/relay/server.ts), started by its unit under its
 * own account. It refuses to start where its secrets are not as `airlock relay install` left
 * them (the key readable by others, the host list or the folder writable by others) and as
 * root: it needs no privilege, and a relay running as root would hold more than the key.
 */
import { lstatSync, readFileSync } from 'node:fs';

import { parseGroup } from '../protocol/account-files.js';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { RELAY_USERS_GROUP } from '../protocol/relay.js';
import { relayFiles } from './relay-files.js';

export async function relayServe(o: { listen: string; configDir: string }): Promise<void> {
  if (process.getuid?.() === 0) throw new AirlockError('authorization', 'relay_as_root', 'the relay runs as its own account, never as root', '`sudo airlock relay install`, then `sudo systemctl start airlock-relay`');
  const files = relayFiles(o.configDir);
  checkSecrets(o.configDir, files);
  const usersGid = parseGroup(readFileSync('/etc/group', 'utf8')).find((g) => g.name === RELAY_USERS_GROUP)?.gid ?? null;
  const log = (line: string) => process.stderr.write(`airlock-relay: ${line}\n`);
  const { startRelay } = await import('../relay/server.js');
  const server = await startRelay({ socket: o.listen, hostsFile: files.hosts, knownHosts: files.knownHosts, key: files.key, usersGid, log });
  log(`listening on ${escapeText(o.listen, 'line')}; ${usersGid === null ? `no group ${RELAY_USERS_GROUP}: root alone may use it` : `members of ${RELAY_USERS_GROUP} may use it`}`);
  await new Promise<void>((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => server.close(() => resolve()));
  });
}

/** The folder, key and host list: root's, and nobody else may write them; the key readable by the relay's group alone. */
function checkSecrets(dir: string, files: ReturnType<typeof relayFiles>): void {
  const wrong: string[] = [];
  for (const [path, othersMayRead] of [[dir, true], [files.hosts, false], [files.key, false], [files.knownHosts, true]] as const) {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      wrong.push(`${path} is missing`);
      continue;
    }
    if (st.isSymbolicLink()) wrong.push(`${path} is a symbolic link`);
    else if (st.uid !== 0) wrong.push(`${path} is not owned by root`);
    else if (st.mode & 0o022) wrong.push(`${path} is writable by others than root`);
    else if (!othersMayRead && st.mode & 0o004) wrong.push(`${path} is readable by every account`);
  }
  if (wrong.length) throw new AirlockError('integrity', 'relay_files_unsafe', `the relay will not start: ${wrong.join('; ')}`, 'run `sudo airlock relay install` to set them right');
}

