/**
 * `npm install` builds the addon against the headers of the Node that runs it, wherever
 * that Node lives: here a copy of this Node in a prefix of its own (PREFIX/bin/node with
 * PREFIX/include/node), first on PATH, the way /usr/local or an nvm folder holds it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HEADERS = join(dirname(dirname(process.execPath)), 'include', 'node');

test('npm install builds the addon with the headers under the running Node’s own prefix', { skip: existsSync(join(HEADERS, 'node_api.h')) ? false : `no headers at ${HEADERS}` }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'airlock-build-'));
  try {
    const prefix = join(tmp, 'usr', 'local');
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    mkdirSync(join(prefix, 'include'), { recursive: true });
    cpSync(process.execPath, join(prefix, 'bin', 'node'));
    cpSync(HEADERS, join(prefix, 'include', 'node'), { recursive: true });
    // A checkout holding only what the install step reads.
    const checkout = join(tmp, 'airlock');
    for (const f of ['package.json', '.npmrc', 'scripts/build-native.js', 'native/binding.gyp', 'native/airlock_native.c']) cpSync(join(ROOT, f), join(checkout, f), { recursive: true });
    const r = spawnSync('npm', ['run-script', 'install'], {
      cwd: checkout,
      encoding: 'utf8',
      env: { PATH: `${join(prefix, 'bin')}:/usr/local/bin:/usr/bin:/bin`, HOME: tmp, npm_config_cache: join(tmp, 'npm-cache'), npm_config_update_notifier: 'false' },
      timeout: 240_000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`the headers in ${prefix}/include/node`));
    assert.ok(existsSync(join(checkout, 'native', 'build', 'Release', 'airlock_native.node')), r.stdout + r.stderr);
    // node-gyp recorded the headers it compiled with: the copy's, not /usr's.
    const config = readFileSync(join(checkout, 'native', 'build', 'config.gypi'), 'utf8');
    assert.match(config, new RegExp(`"nodedir": "${prefix}"`));
    // The committed .npmrc pins no nodedir any more.
    assert.doesNotMatch(readFileSync(join(ROOT, '.npmrc'), 'utf8'), /nodedir/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
