/** A user's ~/.ssh/authorized_keys: listing its keys, adding one, removing one. */
import { sshKeyFingerprint } from '../../lib/ssh-fingerprint.js';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, type PasswdEntry, unchanged } from '../../action.js';
import { fileScan, fileWrite } from '../../mechanism.js';
import { params, parseSshKey, sshPublicKey, userName } from '../../params.js';
import { requireUser } from '../../lib/accounts.js';
import { exact } from '../../rollback.js';

const KEY_FILES = ['/root/.ssh/authorized_keys', '/home/*/.ssh/authorized_keys'];

interface KeyFileState {
  user: PasswdEntry;
  path: string;
  exists: boolean;
  lines: string[];
}

/** Reads a user's authorized_keys; refuses homes outside /home and /root before anything else. */
async function keyFile(user: string, host: Host): Promise<KeyFileState> {
  const entry = await requireUser(host, user);
  const path = `${entry.home}/.ssh/authorized_keys`;
  if (!/^\/(root|home\/[a-z_][a-z0-9_-]*)$/.test(entry.home)) {
    throw new AirlockError('authorization', 'path_not_allowed', `${user}'s home ${entry.home} is outside /home and /root; Airlock does not manage keys there`);
  }
  const text = await host.readFile(path);
  return { user: entry, path, exists: text !== null, lines: text === null ? [] : text.split('\n').filter((l) => l.trim() !== '') };
}

/** A key line as the preview shows it: type, its SHA256 fingerprint (as ssh-keygen -lf prints it), comment; options only as a flag. */
function describeKeyLine(line: string): string {
  const blob = blobOf(line);
  const fields = line.trim().split(/\s+/);
  const at = fields.findIndex((f) => f === blob);
  const type = at > 0 ? fields[at - 1] : '?';
  const comment = at >= 0 ? fields.slice(at + 1).join(' ') : '';
  const options = at > 1 ? ' [with options]' : '';
  // The fingerprint `ssh-keygen -lf` prints for the key, so a person can compare it with their own key file.
  const fp = sshKeyFingerprint(line);
  return `${type} ${fp ? fp.sha256 : `…${blob ? blob.slice(-12) : '?'}`} ${comment}${options}`.trim();
}

/** Shown in previews: what the file holds, never whole lines (forced-command options may carry secrets). */
const showKeyFile = (cur: KeyFileState) => ({ user: cur.user.name, path: cur.path, exists: cur.exists, keys: cur.lines.map(describeKeyLine) });

/** "ssh-ed25519 key SHA256:… (deploy@laptop)": what a summary, and so history, names a key by. */
function keyName(key: string): string {
  const k = parseSshKey(key)!;
  const fp = sshKeyFingerprint(key);
  return `${k.type} key${fp ? ` ${fp.sha256}` : ''}${k.comment ? ` (${k.comment})` : ''}`;
}

const blobOf = (line: string) => line.trim().split(/\s+/).find((f) => /^AAAA[A-Za-z0-9+/]+={0,2}$/.test(f));
const withNewline = (lines: string[]) => (lines.length ? lines.join('\n') + '\n' : '');

export const listAuthorizedKeys = action({
  name: 'ListAuthorizedKeys',
  family: 'ssh',
  description: "List the lines of a user's ~/.ssh/authorized_keys (a sensitive read: options may hold secrets).",
  // Medium: the file may hold forced-command options with secrets, and shows who can log in where.
  risk: 'medium',
  readOnly: true,
  // Sensitive: whole authorized_keys lines: options such as command="..." may carry secrets.
  sensitive: true,
  reachesNetwork: false,
  params: params({ user: userName }),
  files: KEY_FILES,
  example: { user: 'deploy' },
  current: ({ user }, host) => keyFile(user, host),
  shown: showKeyFile,
  preview: ({ user }, cur) => ({ summary: `Read ${cur.path} (${cur.lines.length} keys) for ${user}`, change: null }),
  check: (_p, cur) => {
    if (!cur.exists) throw new AirlockError('execution', 'not_found', `${cur.path} does not exist`);
  },
  mechanism: (_p, cur) => [fileScan(cur.path)],
});

export const addAuthorizedKey = action({
  name: 'AddAuthorizedKey',
  family: 'ssh',
  description: "Append one OpenSSH public key to a user's ~/.ssh/authorized_keys (created 0600 with ~/.ssh 0700 when missing).",
  risk: 'high',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName, key: sshPublicKey }),
  files: KEY_FILES,
  rebuildsAtExecute: { files: KEY_FILES, showLine: describeKeyLine },
  example: { user: 'deploy', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d deploy@laptop' },
  current: ({ user }, host) => keyFile(user, host),
  shown: showKeyFile,
  check: ({ key }, cur) => {
    if (cur.lines.some((l) => blobOf(l) === parseSshKey(key)!.blob)) {
      return unchanged(`this key is already in ${cur.path}`);
    }
  },
  preview: ({ user, key }, cur) => ({
    summary: `Authorize ${keyName(key)} for ${user}`,
    change: { file: cur.path, append_line: key, creates_file: !cur.exists },
    sideEffects: [`anyone holding the matching private key can log in as ${user}`],
    warnings: cur.user.uid === 0 ? ['this grants a root login'] : [],
  }),
  mechanism: ({ key }, cur) => [
    fileWrite(cur.path, withNewline([...cur.lines, key]), {
      mode: 0o600,
      owner: { uid: cur.user.uid, gid: cur.user.gid },
      parent: { mode: 0o700, owner: { uid: cur.user.uid, gid: cur.user.gid } },
    }),
  ],
  effects: ({ key }, cur) => {
    const owner = { uid: cur.user.uid, gid: cur.user.gid };
    return [{ kind: 'file', path: cur.path, content: withNewline([...cur.lines, key]), mode: 0o600, owner, parent: { mode: 0o700, owner } }];
  },
});

export const removeAuthorizedKey = action({
  name: 'RemoveAuthorizedKey',
  family: 'ssh',
  description: "Remove every line carrying the given public key from a user's ~/.ssh/authorized_keys.",
  risk: 'high',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ user: userName, key: sshPublicKey }),
  files: KEY_FILES,
  rebuildsAtExecute: { files: KEY_FILES, showLine: describeKeyLine },
  example: { user: 'deploy', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d deploy@laptop' },
  current: ({ user }, host) => keyFile(user, host),
  shown: showKeyFile,
  check: ({ key }, cur) => {
    if (!cur.lines.some((l) => blobOf(l) === parseSshKey(key)!.blob)) {
      return unchanged(`this key is not in ${cur.path}`);
    }
  },
  preview: ({ user, key }, cur) => {
    const blob = parseSshKey(key)!.blob;
    const removed = cur.lines.filter((l) => blobOf(l) === blob);
    return {
      summary: `Revoke ${keyName(key)} of ${user}`,
      change: { file: cur.path, remove_lines: removed.map(describeKeyLine) },
      sideEffects: ['open sessions that used this key stay open until they end'],
    };
  },
  mechanism: ({ key }, cur) => {
    const blob = parseSshKey(key)!.blob;
    return [fileWrite(cur.path, withNewline(cur.lines.filter((l) => blobOf(l) !== blob)), { mode: 0o600 })];
  },
});
