/**
 * Reads the policy file for the daemon: root-owned and writable by root only, in a
 * directory likewise, or refused; absent means the built-in default. A symbolic link
 * is refused rather than followed, so nobody can point the daemon at a file they edit.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AirlockError } from '../protocol/errors.js';
import { DEFAULT_POLICY, parsePolicy, PolicyError, type Policy } from '../policy/policy.js';

export function loadPolicyFile(path: string): Policy {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return DEFAULT_POLICY;
    throw e;
  }
  const dir = lstatSync(dirname(path));
  if (!st.isFile()) throw new AirlockError('integrity', 'policy_untrusted', `${path} is not a regular file (a link is not followed)`);
  for (const [what, s] of [[path, st], [dirname(path), dir]] as const) {
    if (s.uid !== 0 || (s.mode & 0o022) !== 0) {
      throw new AirlockError('integrity', 'policy_untrusted', `${what} must be owned by root and writable by root only (it is uid ${s.uid}, mode ${(s.mode & 0o777).toString(8)})`, `sudo chown root: ${what} && sudo chmod go-w ${what}`);
    }
  }
  try {
    return parsePolicy(readFileSync(path, 'utf8'));
  } catch (e) {
    if (e instanceof PolicyError) throw new AirlockError('validation', 'policy_invalid', `${path}: ${e.message}`, `check it with \`airlock policy check --file ${path}\``);
    throw e;
  }
}
