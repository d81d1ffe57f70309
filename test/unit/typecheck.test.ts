/**
 * The tests, the bench and the scripts typecheck with the sources (tsconfig.test.json):
 * tsx runs them without checking types, so a test that builds a daemon object by
 * hand would otherwise break silently when the object's options change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test('sources, tests, bench and scripts typecheck', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.test.json')], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
