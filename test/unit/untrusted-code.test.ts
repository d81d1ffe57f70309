/**
 * What `airlock install` and `doctor` hold the daemon's code to: every file and directory it
 * loads (bin, dist, src, all of node_modules, native/build, package.json) and every directory
 * above, through links, root's and writable by nobody else; a sticky directory of root's
 * above it (/tmp) is no way in, since others cannot rename or remove what root put there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkDaemonCode, describeUntrusted, untrustedFix } from '../../src/cli/daemon-code.js';
import { CHECKOUT } from '../../src/cli/installation.js';

const root = { skip: process.getuid?.() !== 0 && 'needs root (the files must be root-owned)' };
const NODE = '/usr/bin/env'; // stands in for the node binary: root's, in a root-only directory

/** A root-owned checkout in a fresh directory below /tmp, with the parts the daemon loads. */
function checkout(): { dir: string; co: string } {
  const dir = mkdtempSync('/tmp/airlock-code-');
  chmodSync(dir, 0o755);
  const co = join(dir, 'checkout');
  for (const d of ['bin', 'dist/daemon', 'src/cli', 'node_modules/pkg/lib/deep/er', 'native/build/Release']) mkdirSync(join(co, d), { recursive: true, mode: 0o755 });
  for (const f of ['bin/airlock.js', 'dist/daemon/entry.js', 'src/cli/main.ts', 'node_modules/pkg/lib/deep/er/index.js', 'native/build/Release/airlock_native.node', 'package.json']) writeFileSync(join(co, f), '', { mode: 0o644 });
  return { dir, co };
}
const report = (co: string) => checkDaemonCode(co, NODE).problems.map((p) => `${p.path} is ${p.why}`);

test('root-owned code passes, also below sticky /tmp; group- or world-writable, or owned by someone else, anywhere on the way fails', root, () => {
  const { dir, co } = checkout();
  try {
    assert.deepEqual(report(co), [], 'root-owned, below sticky /tmp');
    chmodSync(co, 0o775);
    assert.deepEqual(report(co), [`${co} is writable by its group or by others (mode 775)`]);
    chmodSync(co, 0o755);
    // World-writable and sticky is refused for the code itself: only a directory above it may be.
    chmodSync(join(co, 'bin'), 0o1777);
    assert.deepEqual(report(co), [`${join(co, 'bin')} is writable by its group or by others (mode 1777)`]);
    chmodSync(join(co, 'bin'), 0o755);
    chownSync(join(co, 'bin'), 65534, 65534);
    assert.deepEqual(report(co), [`${join(co, 'bin')} is owned by uid 65534, not root`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the whole tree is walked: an agent-owned dist/daemon/entry.js, a 0666 file deep in node_modules, a native addon, each fails with the fix', root, () => {
  const { dir, co } = checkout();
  try {
    chownSync(join(co, 'dist/daemon/entry.js'), 65534, 65534);
    chmodSync(join(co, 'node_modules/pkg/lib/deep/er/index.js'), 0o666);
    chmodSync(join(co, 'native/build/Release/airlock_native.node'), 0o664);
    chmodSync(join(co, 'package.json'), 0o646);
    const { problems } = checkDaemonCode(co, NODE);
    assert.deepEqual(problems.map((p) => `${p.path} is ${p.why}`).sort(), [
      `${co}/dist/daemon/entry.js is owned by uid 65534, not root`,
      `${co}/native/build/Release/airlock_native.node is writable by its group or by others (mode 664)`,
      `${co}/node_modules/pkg/lib/deep/er/index.js is writable by its group or by others (mode 666)`,
      `${co}/package.json is writable by its group or by others (mode 646)`,
    ]);
    assert.equal(untrustedFix(problems.filter((p) => p.path.includes('node_modules'))), `as root: chown -R root:root ${co}/node_modules; chmod -R go-w ${co}/node_modules`);
    assert.match(describeUntrusted(problems, 2), /; and 2 more$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('links are followed: a link to a tree others can change fails, at the target and at every directory above it', root, () => {
  const { dir, co } = checkout();
  try {
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(join(elsewhere, 'pkg2'), { recursive: true, mode: 0o755 });
    writeFileSync(join(elsewhere, 'pkg2', 'index.js'), '', { mode: 0o644 });
    symlinkSync(join(elsewhere, 'pkg2'), join(co, 'node_modules', 'pkg2'));
    assert.deepEqual(report(co), []);
    chownSync(join(elsewhere, 'pkg2', 'index.js'), 65534, 65534);
    assert.deepEqual(report(co), [`${elsewhere}/pkg2/index.js is owned by uid 65534, not root`]);
    assert.equal(checkDaemonCode(co, NODE).problems[0]!.fix, `chown -R root:root ${elsewhere}/pkg2; chmod -R go-w ${elsewhere}/pkg2`);
    chownSync(join(elsewhere, 'pkg2', 'index.js'), 0, 0);
    chmodSync(elsewhere, 0o777);
    assert.deepEqual(report(co), [`${elsewhere} is writable by its group or by others (mode 777)`]);
    chmodSync(elsewhere, 0o755);
    // A link to a directory already judged as an ancestor (of the checkout itself) is walked below too.
    mkdirSync(join(elsewhere, 'deep'), { mode: 0o755 });
    writeFileSync(join(elsewhere, 'deep', 'loaded.js'), '');
    chmodSync(join(elsewhere, 'deep', 'loaded.js'), 0o666);
    symlinkSync(dir, join(co, 'node_modules', 'up'));
    assert.deepEqual(report(co), [`${elsewhere}/deep/loaded.js is writable by its group or by others (mode 666)`]);
    rmSync(join(elsewhere, 'deep'), { recursive: true });
    rmSync(join(co, 'node_modules', 'up'));
    // A link that leads nowhere cannot be checked: refused, not skipped.
    symlinkSync(join(dir, 'nowhere'), join(co, 'src', 'gone.ts'));
    assert.match(report(co).join(), /src\/gone\.ts is unreadable \(ENOENT\), so not checked/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the real checkout and its node_modules: walked whole, timed', (t) => {
  const start = process.hrtime.bigint();
  const { walked } = checkDaemonCode(CHECKOUT);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  t.diagnostic(`${walked} entries walked in ${ms.toFixed(0)} ms`);
  assert.ok(walked > 5000, `node_modules is in the walk (${walked} entries)`);
});
