/**
 * Whether the policy file may be trusted: a regular file (a link is not followed), it and
 * its directory owned by root and writable by root only. The daemon refuses a policy that
 * is not (src/daemon/policy-file.ts), and `airlock doctor` says so before a restart does.
 */
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';

export interface TrustProblem {
  message: string;
  hint?: string;
}

/** null when the file is trustworthy; 'absent' when there is none (the built-in default applies). */
export function policyFileProblem(path: string): TrustProblem | 'absent' | null {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw e;
  }
  if (!st.isFile()) return { message: `${path} is not a regular file (a link is not followed)` };
  for (const [what, s] of [[path, st], [dirname(path), lstatSync(dirname(path))]] as const) {
    if (s.uid !== 0 || (s.mode & 0o022) !== 0) {
      return { message: `${what} must be owned by root and writable by root only (it is uid ${s.uid}, mode ${(s.mode & 0o777).toString(8)})`, hint: `sudo chown root: ${what} && sudo chmod go-w ${what}` };
    }
  }
  return null;
}
