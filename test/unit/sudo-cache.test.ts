/**
 * How `airlock doctor` and `install` read sudo's configuration for one account: whether it may
 * sudo, and for how long a typed password stays good. Debian's stock sudoers caches for 15
 * minutes; a drop-in `Defaults:USER timestamp_timeout=0` turns that off for the account, and
 * the reading follows sudo's own rules (includes in order, names with '.' skipped, last match
 * wins, negation) and is conservative where it cannot resolve a list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheRisk, dropIn, readSudoers, sudoCache, type Account } from '../../src/cli/sudo-cache.js';

const DEBIAN = `#
# This file MUST be edited with the 'visudo' command as root.
Defaults\tenv_reset
Defaults\tmail_badpass
Defaults\tsecure_path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
Defaults\tuse_pty
# User privilege specification
root\tALL=(ALL:ALL) ALL
# Allow members of group sudo to execute any command
%sudo\tALL=(ALL:ALL) ALL
@includedir DIR
`;
const alice: Account = { name: 'alice', uid: 1000, groups: [{ name: 'alice', gid: 1000 }, { name: 'sudo', gid: 27 }] };
const bob: Account = { name: 'bob', uid: 1001, groups: [{ name: 'bob', gid: 1001 }] };

/** sudoers (with DIR the drop-in directory) and the drop-ins, read as sudo reads them. */
function configured(main: string, dropIns: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-sudoers-'));
  const d = join(dir, 'sudoers.d');
  mkdirSync(d);
  writeFileSync(join(dir, 'sudoers'), main.replaceAll('DIR', d));
  for (const [name, text] of Object.entries(dropIns)) writeFileSync(join(d, name), text);
  try {
    return readSudoers(join(dir, 'sudoers'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("Debian's stock sudoers: a sudo-group member's password is cached 15 minutes per terminal; an account outside it may not sudo", () => {
  const lines = configured(DEBIAN);
  const s = sudoCache(lines, alice, 'host');
  assert.deepEqual(s, { maySudo: true, noPassword: null, timeout: 15, type: 'tty', where: [] });
  assert.match(cacheRisk('alice', s)!, /^alice's sudo keeps a typed password good for 15 minute\(s\) in that terminal \(timestamp_timeout=15, timestamp_type=tty, sudo's defaults\): an agent running as alice can use it and be root$/);
  assert.equal(sudoCache(lines, bob, 'host').maySudo, false);
  assert.equal(cacheRisk('bob', sudoCache(lines, bob, 'host')), null);
});

test("the drop-in airlock install writes turns caching off for its account only; a later line can turn it on again, and is named", () => {
  const lines = configured(DEBIAN, { 'airlock-no-cache': dropIn('alice') });
  assert.equal(sudoCache(lines, alice, 'host').timeout, 0);
  assert.equal(cacheRisk('alice', sudoCache(lines, alice, 'host')), null);
  const other: Account = { ...bob, groups: [...bob.groups, { name: 'sudo', gid: 27 }] };
  assert.equal(sudoCache(lines, other, 'host').timeout, 15, 'Defaults:alice is alice’s alone');
  // Files are read in name order, and a name with a '.' or ending in '~' is not read at all.
  const later = configured(DEBIAN, { 'airlock-no-cache': dropIn('alice'), 'zz-cache': 'Defaults timestamp_timeout=30\n', 'skipped.conf': 'Defaults timestamp_timeout=99\n', 'old~': 'Defaults timestamp_timeout=98\n' });
  const s = sudoCache(later, alice, 'host');
  assert.equal(s.timeout, 30);
  assert.match(s.where[0]!, /sudoers\.d\/zz-cache:1$/);
});

test('global timestamps, negation, groups by gid, aliases, continuation lines, !timestamp_timeout, and NOPASSWD', () => {
  const s = sudoCache(configured(`${DEBIAN}Defaults timestamp_type=global, timestamp_timeout=5\n`), alice, 'host');
  assert.deepEqual([s.timeout, s.type], [5, 'global']);
  assert.match(cacheRisk('alice', s)!, /in every terminal and process of the account/);
  // ALL but alice: off for everyone else, alice keeps the default.
  assert.equal(sudoCache(configured(`${DEBIAN}Defaults:ALL,!alice timestamp_timeout=0\n`), alice, 'host').timeout, 15);
  assert.equal(sudoCache(configured(`${DEBIAN}Defaults:%#27 timestamp_timeout=0\n`), alice, 'host').timeout, 0);
  assert.equal(sudoCache(configured(`${DEBIAN}User_Alias PEOPLE = bob, \\\n  alice\nDefaults:PEOPLE !timestamp_timeout\n`), alice, 'host').timeout, 0);
  assert.equal(sudoCache(configured(`${DEBIAN}Defaults@host timestamp_timeout=0\n`), alice, 'host').timeout, 0);
  assert.equal(sudoCache(configured(`${DEBIAN}Defaults@elsewhere timestamp_timeout=0\n`), alice, 'host').timeout, 15);
  assert.equal(sudoCache(configured(`${DEBIAN}Defaults:#1000 timestamp_timeout=-1\n`), alice, 'host').timeout, -1);
  const free = sudoCache(configured(`${DEBIAN}bob ALL=(root) NOPASSWD: ALL\nDefaults:bob timestamp_timeout=0\n`), bob, 'host');
  assert.equal(free.maySudo, true);
  assert.match(cacheRisk('bob', free)!, /^bob runs sudo with no password at all \(NOPASSWD, .*sudoers:\d+\)/);
});

test('conservative where a list cannot be resolved: a netgroup turns caching on, never off', () => {
  assert.equal(sudoCache(configured(`${DEBIAN}Defaults:+admins timestamp_timeout=0\n`), alice, 'host').timeout, 15);
  assert.equal(sudoCache(configured(`${DEBIAN}Defaults timestamp_timeout=0\nDefaults:+admins timestamp_timeout=10\n`), alice, 'host').timeout, 10);
  assert.equal(sudoCache(configured(`+admins ALL=(ALL) ALL\n`), bob, 'host').maySudo, true, 'a netgroup specification counts as the account’s');
});
