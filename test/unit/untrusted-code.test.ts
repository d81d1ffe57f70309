/**
 * What `airlock install` and `doctor` hold the daemon's code to: root's, writable by nobody
 * else, down to every directory above it; a sticky directory of root's above it (/tmp) is
 * no way in, since others cannot rename or remove what root put there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { untrustedCode } from '../../src/cli/installation.js';

test('root-owned code passes, also below sticky /tmp; group- or world-writable, or owned by someone else, anywhere on the way fails', { skip: process.getuid?.() !== 0 && 'needs root (the files must be root-owned)' }, () => {
  const dir = mkdtempSync('/tmp/airlock-code-');
  try {
    const code = join(dir, 'checkout', 'bin');
    mkdirSync(code, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    assert.deepEqual(untrustedCode([code]), [], 'root-owned, below sticky /tmp');
    chmodSync(join(dir, 'checkout'), 0o775);
    assert.deepEqual(untrustedCode([code]), [`${join(dir, 'checkout')} is writable by its group or by others (mode 775)`]);
    chmodSync(join(dir, 'checkout'), 0o755);
    // World-writable and sticky is refused for the code itself: only a directory above it may be.
    chmodSync(code, 0o1777);
    assert.match(untrustedCode([code]).join(), /bin is writable by its group or by others \(mode 1777\)/);
    chmodSync(code, 0o755);
    chownSync(code, 65534, 65534);
    assert.match(untrustedCode([code]).join(), /bin is owned by uid 65534, not root/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
