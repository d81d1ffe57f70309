/**
 * `airlock install --sudo-no-cache USER`: writes /etc/sudoers.d/airlock-no-cache, which turns
 * sudo's password cache off for USER (sudo-cache.ts says why), only when asked. The file is
 * written under a name sudo ignores (it has a '.'), root's and 0440 through its descriptor,
 * checked by `visudo -cf`, renamed into place, and the whole configuration checked again
 * (`visudo -c`), then read back: a later line that turns caching on again is reported.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, fchmodSync, fchownSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { NewFile, removeFileSafely, writeFileSafely } from '../protocol/safe-write.js';
import { AirlockError } from '../protocol/errors.js';
import { accountNamed, dropIn, DROP_IN_PATH, plainAccountName, readSudoers, sudoCache } from './sudo-cache.js';

const VISUDO = '/usr/sbin/visudo';

function visudo(args: string[]): string | null {
  try {
    execFileSync(VISUDO, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    return null;
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    return (err.stderr?.toString() || err.message).trim();
  }
}

/** Writes the drop-in for `user`; what was done, one line. */
export function writeNoCacheDropIn(user: string): string {
  if (!plainAccountName(user)) throw new AirlockError('validation', 'bad_sudo_no_cache', `--sudo-no-cache: ${JSON.stringify(user)} is not an account name`, 'name the account the agent runs under, e.g. --sudo-no-cache alice');
  const account = accountNamed(user, readFileSync('/etc/passwd', 'utf8'), readFileSync('/etc/group', 'utf8'));
  if (!account) throw new AirlockError('validation', 'bad_sudo_no_cache', `--sudo-no-cache: there is no account ${user}`, 'name an account in /etc/passwd');
  const dir = dirname(DROP_IN_PATH);
  if (!existsSync(dir)) throw new AirlockError('validation', 'bad_sudo_no_cache', `--sudo-no-cache: there is no ${dir}, so sudo is not installed here`, 'leave out --sudo-no-cache on a host without sudo');
  // What an earlier run wrote, put back if the whole configuration refuses the new one.
  let earlier: Buffer | null = null;
  try {
    earlier = readFileSync(DROP_IN_PATH);
  } catch {}
  // Through the held folder (safe-write.ts): the temporary name has a '.', which sudo ignores,
  // and visudo checks it there before it is renamed into place.
  const file = NewFile.create(DROP_IN_PATH, { mode: 0o440, owner: { uid: 0, gid: 0 } });
  try {
    file.write(dropIn(user));
    // visudo judges the owner and mode too: give the staged file its final ones before it looks.
    fchownSync(file.fd, 0, 0);
    fchmodSync(file.fd, 0o440);
  } catch (e) {
    file.abort();
    throw e;
  }
  const bad = visudo(['-cf', file.stagedPath]);
  if (bad) {
    file.abort();
    throw new AirlockError('execution', 'sudoers_invalid', `visudo refused the drop-in: ${bad}`, 'nothing was written; report this');
  }
  file.commit();
  const whole = visudo(['-c']);
  if (whole) {
    if (earlier) writeFileSafely(DROP_IN_PATH, earlier, { mode: 0o440, owner: { uid: 0, gid: 0 } });
    else removeFileSafely(DROP_IN_PATH);
    throw new AirlockError('execution', 'sudoers_invalid', `with the drop-in, visudo -c refused the configuration: ${whole}`, `the drop-in was ${earlier ? 'put back as it was' : 'removed again'}; fix what visudo -c says first`);
  }
  const after = sudoCache(readSudoers(), account);
  if (after.timeout !== 0) throw new AirlockError('execution', 'sudoers_invalid', `wrote ${DROP_IN_PATH}, but sudo still caches ${user}'s password (timestamp_timeout=${after.timeout}, set in ${after.where.join(', ') || 'sudo\'s defaults'})`, `the line named comes after the drop-in or /etc/sudoers does not read ${dir} (@includedir ${dir}): fix that line`);
  return `wrote ${DROP_IN_PATH} (0440, checked by visudo): sudo asks ${user} for the password every time, so an agent running as ${user} cannot borrow a cached one`;
}
