/**
 * `airlock proxy authorize KEY` (root, on a host): lets a relay log in here to run the proxy and
 * nothing else. The relay's account here is a system account in one Airlock role group (dev by
 * default: it proposes, a person approves). Its home, its .ssh folder and its authorized_keys
 * are root's and only readable by it, so the account can change none of them; each key line
 * carries `restrict` (no terminal, no forwarding of any kind) and the forced command, the
 * proxy by the absolute paths of this Node and this installation. sshd runs a forced command
 * through the account's shell, so the shell is /bin/sh; the command it is given is fixed.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePasswd } from '../protocol/account-files.js';
import { AirlockError } from '../protocol/errors.js';
import { ROLE_GROUPS, type Role } from '../protocol/risk.js';
import { makeFolderSafely, writeFileSafely } from '../protocol/safe-write.js';
import { CHECKOUT, groupExists, requireRoot, run } from './installation.js';
import { c, printJson } from './ui.js';

const KEY_LINE = /^(ssh-ed25519|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com) ([A-Za-z0-9+/]{16,1024}={0,2})(?: ([A-Za-z0-9@._:+-]{1,100}))?$/;
const ACCOUNT = /^[a-z_][a-z0-9_-]{0,31}$/;

/** The lines of the authorized_keys there is, read without following a link (none: an empty list). */
function existingLines(path: string): string[] {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new AirlockError('conflict', 'account_exists', `${path} is not a plain file (${(e as NodeJS.ErrnoException).code})`, 'remove it, then authorize again');
  }
  try {
    if (!fstatSync(fd).isFile()) throw new AirlockError('conflict', 'account_exists', `${path} is not a plain file`, 'remove it, then authorize again');
    return readFileSync(fd, 'utf8').split('\n');
  } finally {
    closeSync(fd);
  }
}

/** The forced command: this Node and this installation's entry point, by absolute path. */
export const proxyCommandLine = () => `${process.execPath} ${join(CHECKOUT, 'bin', 'airlock.js')} proxy`;

export async function proxyAuthorize(publicKey: string, o: { account: string; role: Exclude<Role, 'boot'>; json?: boolean }): Promise<void> {
  requireRoot('proxy authorize');
  const m = KEY_LINE.exec(publicKey.trim());
  if (!m) throw new AirlockError('validation', 'bad_public_key', 'give the relay\'s public key as one line: ssh-ed25519 AAAA... [comment] (`airlock relay key` prints it on the workstation)');
  if (!ACCOUNT.test(o.account)) throw new AirlockError('validation', 'bad_account', `${JSON.stringify(o.account)} is not an account name`);
  const group = ROLE_GROUPS[o.role];
  if (!groupExists(group)) throw new AirlockError('validation', 'not_installed', `there is no group ${group} here`, 'install Airlock on this host first (`sudo apt install ./airlock_*.deb` or `sudo airlock install`)');
  const done: string[] = [];
  const home = `/var/lib/${o.account}`;
  const entry = parsePasswd(readFileSync('/etc/passwd', 'utf8')).find((e) => e.name === o.account);
  if (!entry) {
    run('/usr/sbin/useradd', ['--system', '--user-group', '--groups', group, '--no-create-home', '--home-dir', home, '--shell', '/bin/sh', '--', o.account]);
    done.push(`created the system account ${o.account} (in ${group})`);
  } else if (entry.home !== home) {
    throw new AirlockError('conflict', 'account_exists', `an account ${o.account} exists already with the home ${entry.home}: not one this command made`, 'choose another with --account');
  } else {
    // Only an account this command made is taken up again: its home and .ssh are root's. Another
    // account whose home happens to be that path (a service's own folder) is never taken over.
    for (const dir of [home, join(home, '.ssh')]) {
      let st;
      try {
        st = lstatSync(dir);
      } catch {
        continue;
      }
      if (!st.isDirectory() || st.uid !== 0) throw new AirlockError('conflict', 'account_exists', `an account ${o.account} exists already and ${dir} is not root's folder: not an account this command made`, 'choose another with --account');
    }
    run('/usr/sbin/usermod', ['--append', '--groups', group, '--', o.account]);
  }
  const uid = Number(run('/usr/bin/id', ['-u', '--', o.account]).trim());
  const gid = Number(run('/usr/bin/id', ['-g', '--', o.account]).trim());
  // Root's, readable by the account: sshd accepts them, the account can change none of them.
  makeFolderSafely(home, 0o750, { uid: 0, gid });
  makeFolderSafely(join(home, '.ssh'), 0o750, { uid: 0, gid });
  const path = join(home, '.ssh', 'authorized_keys');
  const line = `restrict,command="${proxyCommandLine()}" ${m[1]} ${m[2]}${m[3] ? ` ${m[3]}` : ''}`;
  const kept = existingLines(path).filter((l) => l.trim() && !l.includes(` ${m[2]}`));
  writeFileSafely(path, [...kept, line].join('\n') + '\n', { mode: 0o640, owner: { uid: 0, gid } });
  done.push(`authorised the key ${m[1]} …${m[2]!.slice(-12)} for ${o.account}: it runs the proxy and nothing else (${path})`);
  if (o.json) return printJson({ ok: true, done, account: o.account, uid, role: o.role });
  process.stdout.write(done.map((d) => `${c.green('✓')} ${d}\n`).join('') + `\nThe relay's agents act here as ${o.account}, with the ${o.role} role: each change still waits for a person.\n`);
}
