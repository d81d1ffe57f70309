/**
 * The bounded reader of a file named on the command line (src/cli/bounded-file.ts): a FIFO an
 * agent planted at the path the person will name is refused at once, not waited on for a
 * writer; a regular file reads whole up to the bound, and one byte more is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBoundedFile } from '../../src/cli/bounded-file.js';

const refuse = { unreadable: (code: string) => new Error(`unreadable ${code}`), notFile: () => new Error('not a file'), tooLarge: () => new Error('too large') };

test('a FIFO is refused at once as no regular file; a regular file reads up to the bound, and past it is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bounded-'));
  try {
    const fifo = join(dir, 'passkey.json');
    execFileSync('/usr/bin/mkfifo', [fifo]);
    const t = Date.now();
    assert.throws(() => readBoundedFile(fifo, 16, refuse), /not a file/);
    assert.ok(Date.now() - t < 1000, 'no wait for a writer');
    const file = join(dir, 'plan.json');
    writeFileSync(file, 'x'.repeat(16));
    assert.equal(readBoundedFile(file, 16, refuse).toString(), 'x'.repeat(16));
    writeFileSync(file, 'x'.repeat(17));
    assert.throws(() => readBoundedFile(file, 16, refuse), /too large/);
    assert.throws(() => readBoundedFile(join(dir, 'none'), 16, refuse), /unreadable ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
