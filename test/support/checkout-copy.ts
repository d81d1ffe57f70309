/**
 * This checkout, copied into a test bed as `git clone` and `npm install` would leave it
 * (install.test.ts, the README's clone): every entry but `package/`, where other test files
 * build Debian packages meanwhile (scripts/package.ts stages in package/.stage-PID and removes
 * it; a `cp -a` of the whole checkout that met one vanishing failed a run).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_DIR, PROJECT } from '../../scripts/package.js';

/** `mkdir` then `cp` argv (programs by absolute path) that copy the checkout to `dest`, for a sandbox's run(). */
export function checkoutCopy(dest: string): Array<[program: string, args: string[]]> {
  const entries = readdirSync(PROJECT).map((e) => join(PROJECT, e)).filter((p) => p !== PACKAGE_DIR);
  return [
    ['/usr/bin/mkdir', ['-p', '-m', '0755', '--', dest]],
    ['/usr/bin/cp', ['-a', '--', ...entries, dest]],
  ];
}
