/** Test file helpers. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const tempDir = (prefix = 'airlock-test-') => mkdtempSync(join(tmpdir(), prefix));

/** Removes a tree, clearing the append-only attribute the daemon sets on its checkpoint file. */
export function removeTree(dir: string): void {
  try {
    execFileSync('/usr/bin/chattr', ['-R', '-a', '--', dir], { stdio: 'ignore' });
  } catch {}
  rmSync(dir, { recursive: true, force: true });
}
