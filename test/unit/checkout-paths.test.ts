/**
 * A fresh clone anywhere passes the tests: no source, script or test names a file outside
 * the checkout that only one machine has (a shared workspace, a sibling directory, the
 * checkout's own absolute path). Test data lives in the repository (test/data, test/vectors).
 * System paths the project reads on purpose (/etc, /usr/bin, /proc, the test bed under
 * /var/tmp/airlock-testbed) are not what this is about and pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** What is checked: every file under these (build output excepted), and package.json. */
const SCANNED = ['src', 'test', 'scripts', 'bench', 'bin', 'native', 'package.json'];
const SKIPPED_DIRS = new Set([join(ROOT, 'native', 'build'), join(ROOT, 'node_modules')]);

/**
 * Names of places outside any checkout. Spelled in parts so that this file does not name them
 * itself: the workspace the project was developed in, and the directory beside a checkout
 * that held shared test data.
 */
const WORKSPACE = '/' + 'work' + '/';
const SHARED_SIBLING = '..' + '/shared';

/**
 * Where `text` names a path outside the checkout at `root` (a relative path climbing out is not
 * looked for: traversal attempts are test inputs all over the catalogue tests):
 * each as "line N: what". Pure.
 */
function outsidePaths(text: string, root: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  const ownPath = new RegExp(`${escapeRe(root)}(?![\\w.-])`);
  const workspace = new RegExp(`(?<![\\w.-])${escapeRe(WORKSPACE)}`);
  lines.forEach((line, i) => {
    const at = `line ${i + 1}`;
    if (ownPath.test(line)) found.push(`${at}: the checkout's own absolute path ${root}`);
    if (workspace.test(line)) found.push(`${at}: ${WORKSPACE} (a workspace outside the checkout)`);
    if (line.includes(SHARED_SIBLING)) found.push(`${at}: ${SHARED_SIBLING} (a directory beside the checkout)`);
  });
  return found;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function filesUnder(path: string): string[] {
  if (SKIPPED_DIRS.has(path)) return [];
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st || st.isSymbolicLink()) return [];
  if (st.isFile()) return [path];
  if (!st.isDirectory()) return [];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

test('the scanner flags paths outside the checkout and passes system paths', () => {
  const flagged = (text: string) => outsidePaths(text, ROOT).length > 0;
  for (const bad of [
    `const V = '${WORKSPACE}shared/testdata/merkle';`,
    `readFileSync('${SHARED_SIBLING}/testdata/x.json')`,
    `const here = '${ROOT}/test/data';`,
    `const here = '${ROOT}';`,
  ]) {
    assert.ok(flagged(bad), `flagged: ${bad}`);
  }
  for (const good of [
    `readFile('/etc/hosts')`,
    `'/usr/bin/env'`,
    `'/proc/self/fd/3'`,
    `const BED = '/var/tmp/airlock-testbed/bookworm-v5';`,
    `import { x } from '../../src/daemon/safe-fs.js';`,
    `join(dirname(fileURLToPath(import.meta.url)), '..', 'data', 'merkle')`,
    `'/srv/work/site'`,
    `'/srv/airlock-other/x'`,
  ]) {
    assert.deepEqual(outsidePaths(good, ROOT), [], `passes: ${good}`);
  }
});

test('no source, script or test file names a path outside the checkout', () => {
  const files = SCANNED.flatMap((p) => filesUnder(join(ROOT, p)));
  assert.ok(files.length > 100, `the tree was walked (${files.length} files)`);
  const problems: string[] = [];
  for (const file of files) {
    for (const p of outsidePaths(readFileSync(file, 'latin1'), ROOT)) problems.push(`${relative(ROOT, file)} ${p}`);
  }
  assert.deepEqual(problems, [], 'keep test data in the repository (test/data) and build paths from import.meta.url');
});
