import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as mounts from '../../src/catalogue/families/storage/mounts.js';
import { diskUsageOf } from '../../src/catalogue/families/storage/filesystems.js';
import { listSwap } from '../../src/catalogue/families/storage/swap.js';
import { fstabSource, fstabWith, fstabWithout, mountOption, parseFstab } from '../../src/catalogue/families/storage/fstab.js';
import { mountPoint, usagePath } from '../../src/catalogue/families/storage/mount-points.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { reversibleWhenDone, type Step } from '../../src/catalogue/mechanism.js';
import { pathUnit } from '../../src/catalogue/families/storage/undo-state.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

// What families/storage.ts held: the fstab and mount actions, ListSwap and DiskUsageOf.
const actions: AnyAction[] = [...Object.values(mounts).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a), listSwap, diskUsageOf];
const byName = (n: string) => actions.find((a) => a.name === n)!;
const { run, refused } = actionRunner(actions);
/** The live state an action's rollback declares it reads, for these parameters and this state. */
const declaredState = (a: AnyAction, p: Record<string, unknown>, cur: unknown) => (a.rollback && a.rollback.class !== 'none' ? a.rollback.state?.(p, cur) : undefined);

const FSTAB = '# /etc/fstab\nUUID=1111-2222 / ext4 errors=remount-ro 0 1\n';
const MP = '/srv/airlock-test';
const TMPFS_LINE = `tmpfs ${MP} tmpfs nosuid,size=16m 0 0`;

interface World {
  tree?: Record<string, Node>;
  mounted?: Record<string, { source: string; fstype: string; options?: string }>;
  verify?: CommandOutput;
  ls?: string;
}

function hostWith(w: World = {}) {
  const tree: Record<string, Node> = { '/etc/fstab': FSTAB, [MP]: { dir: true }, '/srv': { dir: true }, '/var/log': { dir: true }, ...w.tree };
  return new FixtureHost(tree, (program: ProgramName, args: string[]) => {
    if (program === 'findmnt' && args[0] === '--verify') return w.verify ?? { code: 0, stdout: 'Success, no errors or warnings detected\n', stderr: '' };
    if (program === 'findmnt' && args.includes('-M')) {
      const m = w.mounted?.[args[args.length - 1]!];
      if (!m) return { code: 1, stdout: '', stderr: '' };
      return { code: 0, stdout: JSON.stringify({ filesystems: [{ target: args[args.length - 1], source: m.source, fstype: m.fstype, options: m.options ?? 'rw' }] }), stderr: '' };
    }
    if (program === 'ls') return { code: 0, stdout: w.ls ?? '', stderr: '' };
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

test('storage actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean]> = {
    ListFstab: ['low', true],
    ListSwap: ['low', true],
    DiskUsageOf: ['low', true],
    CreateMountpoint: ['medium', false],
    AddFstabEntry: ['high', false],
    RemoveFstabEntry: ['high', false],
    Mount: ['high', false],
    Unmount: ['high', false],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'storage');
    assert.deepEqual([a.risk, a.readOnly], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
  assert.deepEqual(byName('AddFstabEntry').files, ['/etc/fstab']);
  assert.deepEqual(byName('RemoveFstabEntry').files, ['/etc/fstab']);
});

test('validators refuse injection strings', () => {
  for (const bad of INJECTIONS) {
    for (const [name, v] of Object.entries({ mountPoint, fstabSource, mountOption, usagePath })) assert.equal(v.safeParse(bad).success, false, `${name} accepted ${JSON.stringify(bad)}`);
    for (const prefix of ['/srv/', '/mnt/', 'UUID=', 'LABEL=', '/dev/', '/var/log/']) {
      for (const v of [mountPoint, fstabSource, usagePath]) assert.equal(v.safeParse(prefix + bad).success, false, `accepted ${JSON.stringify(prefix + bad)}`);
    }
  }
});

test('mount points: only the allowlist, never system directories', () => {
  for (const ok of ['/srv', '/srv/data', '/mnt/usb', '/data', '/data/a/b', '/media/cdrom', '/var/lib/postgresql', '/var/lib/docker/volumes']) assert.ok(mountPoint.safeParse(ok).success, ok);
  for (const bad of ['/', '/usr', '/etc', '/boot', '/proc', '/sys', '/dev', '/run', '/home', '/home/alice', '/var', '/var/lib', '/var/lib/dpkg', '/var/lib/apt/lists', '/var/lib/systemd', '/var/lib/airlock', '/srv/', '/srv//x', '/srv/..', '/srv/../etc', '/srv/.x', '/srv/a b', '/srvx', '/tmp', 'srv/x']) {
    assert.equal(mountPoint.safeParse(bad).success, false, bad);
  }
});

test('fstab entries: sources, types, options and pass are checked together', () => {
  const p = byName('AddFstabEntry').params;
  const ok = [
    { source: 'tmpfs', mountpoint: MP, fstype: 'tmpfs', options: ['size=16m', 'mode=0750', 'nosuid'] },
    { source: 'UUID=3e6be9de-8139-11d1-9106-a43f08d823a6', mountpoint: '/srv/data', fstype: 'ext4', options: ['defaults', 'nofail'], pass: 2 },
    { source: 'LABEL=backup', mountpoint: '/mnt/backup', fstype: 'xfs' },
    { source: '/dev/sdb1', mountpoint: '/media/usb', fstype: 'vfat', options: ['ro'] },
    { source: '/dev/mapper/vg-data', mountpoint: '/data', fstype: 'btrfs', pass: 0 },
  ];
  for (const e of ok) assert.ok(p.safeParse(e).success, JSON.stringify(e));
  const bad = [
    { source: 'tmpfs', mountpoint: MP, fstype: 'ext4' },
    { source: '/dev/sdb1', mountpoint: MP, fstype: 'tmpfs' },
    { source: '/dev/sdb1', mountpoint: MP, fstype: 'ext4', options: ['size=1g'] },
    { source: 'tmpfs', mountpoint: MP, fstype: 'tmpfs', options: ['ro', 'rw'] },
    { source: 'tmpfs', mountpoint: MP, fstype: 'tmpfs', options: ['size=1m', 'size=2m'] },
    { source: 'tmpfs', mountpoint: MP, fstype: 'tmpfs', pass: 2 },
    { source: 'tmpfs', mountpoint: MP, fstype: 'tmpfs', options: [] },
    { source: '/dev/sdb1', mountpoint: MP, fstype: 'nfs' },
    { source: '/dev/sdb1', mountpoint: MP, fstype: 'swap' },
    { source: '/dev/sdb1', mountpoint: MP, fstype: 'ext4', pass: 3 },
    { source: '/dev/sdb1', mountpoint: MP, fstype: 'ext4', dump: 1 },
    { source: '/dev/../etc/shadow', mountpoint: MP, fstype: 'ext4' },
    { source: 'server:/export', mountpoint: MP, fstype: 'ext4' },
    { source: 'LABEL=a b', mountpoint: MP, fstype: 'ext4' },
    { source: '/dev/sdb1', mountpoint: '/', fstype: 'ext4' },
  ];
  for (const e of bad) assert.equal(p.safeParse(e).success, false, JSON.stringify(e));
  for (const o of ['exec', 'suid', 'dev', 'user', 'users', 'uid=0', 'x-systemd.requires=/', 'size=0m', 'size=1t', 'mode=99', 'defaults,nofail', 'comment=x']) assert.equal(mountOption.safeParse(o).success, false, o);
});

test('DiskUsageOf: allowlisted directories only, exact argv', async () => {
  for (const bad of ['/', '/etc', '/root', '/proc', '/var', '/home/../etc', '/var/logx']) assert.equal(usagePath.safeParse(bad).success, false, bad);
  const { steps } = await run('DiskUsageOf', { path: '/var/log' }, hostWith());
  assert.deepEqual(steps, [{ kind: 'command', program: 'du', args: ['-sh', '-x', '--', '/var/log'], paths: ['/var/log'] }]);
  await refused('DiskUsageOf', { path: '/var/log/none' }, hostWith(), 'no_such_directory');
  // A link, at the end or on the way, is refused before du or stat look through it.
  await refused('DiskUsageOf', { path: '/var/log/x' }, hostWith({ tree: { '/var/log/x': { link: '/etc' } } }), 'untrusted_path', 'authorization');
  await refused('DiskUsageOf', { path: '/home/alice/r/secret' }, hostWith({ tree: { '/home/alice': { dir: true, uid: 1000 }, '/home/alice/r': { link: '/root' } } }), 'untrusted_path', 'authorization');
  await refused('DiskUsageOf', { path: '/var/tmp/x' }, hostWith({ tree: { '/var/tmp': { dir: true, mode: 0o1777 }, '/var/tmp/x': { dir: true } } }), 'untrusted_path');
  // The last component may belong to anyone: nobody but root can replace it.
  await run('DiskUsageOf', { path: '/home/alice' }, hostWith({ tree: { '/home/alice': { dir: true, uid: 1000 } } }));
});

test('the units systemd names for mount points and swap files, as systemd-escape --path', () => {
  assert.equal(pathUnit('/srv/airlock-test', 'mount'), 'srv-airlock\\x2dtest.mount');
  assert.equal(pathUnit('/srv/airlock-swap/swapfile', 'swap'), 'srv-airlock\\x2dswap-swapfile.swap');
  assert.equal(pathUnit('/var/lib/my_data.d/x', 'mount'), 'var-lib-my_data.d-x.mount');
  assert.equal(pathUnit('/swapfile', 'swap'), 'swapfile.swap');
});

test('every change of these declares how it is undone, and what it reads to show it', () => {
  for (const a of actions.filter((x) => !x.readOnly)) assert.equal(a.rollback?.class, 'exact', a.name);
  const state = (name: string, p: Record<string, unknown>, cur: unknown) => declaredState(byName(name), p, cur);
  assert.deepEqual(state('CreateMountpoint', { path: '/srv/new' }, {}), [{ program: 'stat', args: ['--format=%F %a %u %g %s', '--', '/srv/new'] }]);
  assert.deepEqual(state('Mount', { mountpoint: MP }, {}), [{ program: 'findmnt', args: ['-n', '-o', 'SOURCE,FSTYPE,OPTIONS', '-M', MP] }]);
  assert.deepEqual(state('Unmount', { mountpoint: MP }, {}), [{ program: 'findmnt', args: ['-n', '-o', 'SOURCE,FSTYPE,OPTIONS', '-M', MP] }]);
  assert.deepEqual(state('AddFstabEntry', { mountpoint: MP }, { systemd: false }), []);
  assert.deepEqual(state('AddFstabEntry', { mountpoint: MP }, { systemd: true }), [{ program: 'systemctl', args: ['show', '-p', 'LoadState', '-p', 'SourcePath', '--', 'srv-airlock\\x2dtest.mount'] }]);
});

test('ListFstab and ListSwap read one fixed file each', async () => {
  assert.deepEqual((await run('ListFstab', {}, hostWith())).steps, [{ kind: 'fileScan', path: '/etc/fstab' }]);
  assert.deepEqual((await run('ListSwap', {}, hostWith())).steps, [{ kind: 'fileScan', path: '/proc/swaps' }]);
});

test('CreateMountpoint: mkdir with rmdir as undo; refuses what exists and a missing parent', async () => {
  const { steps } = await run('CreateMountpoint', { path: '/srv/new' }, hostWith());
  assert.deepEqual(steps, [
    { kind: 'command', program: 'mkdir', args: ['-m', '0755', '--', '/srv/new'], paths: ['/srv/new'], undo: { kind: 'command', program: 'rmdir', args: ['--', '/srv/new'], paths: ['/srv/new'] } },
  ]);
  await refused('CreateMountpoint', { path: MP }, hostWith(), 'already_exists', 'conflict');
  await refused('CreateMountpoint', { path: '/mnt/a/b' }, hostWith(), 'parent_missing', 'conflict');
  // A link on the way (here an admin's own, in /srv) would make mkdir create /etc/systemd/evil.
  await refused('CreateMountpoint', { path: '/srv/etc/systemd/evil' }, hostWith({ tree: { '/srv/etc': { link: '/etc' } } }), 'untrusted_path', 'authorization');
  await refused('CreateMountpoint', { path: '/srv/agent/x' }, hostWith({ tree: { '/srv/agent': { dir: true, uid: 1001 } } }), 'untrusted_path');
});

test('parseFstab, fstabWith and fstabWithout', () => {
  const text = '# c\n\nUUID=1 / ext4 defaults 0 1\n/dev/sdb1 /srv/my\\040disk ext4 defaults 0 2\n  # indented comment\n';
  assert.deepEqual(parseFstab(text).map((e) => [e.index, e.source, e.target, e.fstype]), [
    [2, 'UUID=1', '/', 'ext4'],
    [3, '/dev/sdb1', '/srv/my disk', 'ext4'],
  ]);
  assert.equal(fstabWith('a', 'b'), 'a\nb\n');
  assert.equal(fstabWith('a\n', 'b'), 'a\nb\n');
  assert.equal(fstabWith('', 'b'), 'b\n');
  assert.equal(fstabWithout('a\nb\nc\n', 1), 'a\nc\n');
});

test('AddFstabEntry: appends the line, verifies with findmnt, reloads systemd', async () => {
  const entry = { source: 'tmpfs', mountpoint: MP, fstype: 'tmpfs', options: ['nosuid', 'size=16m'] };
  const { steps, preview } = await run('AddFstabEntry', entry, hostWith({ tree: { '/run/systemd/system': { dir: true } } }));
  const reload = { kind: 'command', program: 'systemctl', args: ['daemon-reload'] };
  const verify = { kind: 'command', program: 'findmnt', args: ['--verify', '--tab-file', '/etc/fstab'], verdict: { success: 'Success, no errors or warnings detected' }, paths: [MP] };
  const write = { kind: 'fileWrite', path: '/etc/fstab', content: `${FSTAB}${TMPFS_LINE}\n`, mode: 0o644 };
  // systemd reloaded before the check (findmnt warns while it uses an older fstab); the first reload's undo reloads after a restore,
  // which undoes the second; the check changes nothing.
  assert.deepEqual(steps, [{ ...reload, undo: reload }, write, { ...reload, noUndo: 'undone_earlier' }, { ...verify, noUndo: 'changes_nothing' }]);
  assert.ok(reversibleWhenDone(steps as Step[]));
  // Without systemd (no /run/systemd/system) nothing is reloaded.
  assert.deepEqual((await run('AddFstabEntry', entry, hostWith())).steps, [write, { ...verify, noUndo: 'changes_nothing' }]);
  assert.equal((preview.change as { appends_line: string }).appends_line, TMPFS_LINE);
  // A device path source is a name mount opens too.
  const dev = await run('AddFstabEntry', { source: '/dev/sdb1', mountpoint: MP, fstype: 'ext4', options: ['nofail'] }, hostWith({ tree: { '/dev/sdb1': { device: true } } }));
  assert.deepEqual((dev.steps[dev.steps.length - 1] as { paths: string[] }).paths, [MP, '/dev/sdb1']);
  const ext4 = await run('AddFstabEntry', { source: 'UUID=abcd-1234', mountpoint: MP, fstype: 'ext4', pass: 2 }, hostWith());
  assert.equal((ext4.steps[0] as { content: string }).content, `${FSTAB}UUID=abcd-1234 ${MP} ext4 defaults 0 2\n`);
  assert.ok(ext4.preview.warnings?.some((w) => w.includes('nofail')));
});

test('AddFstabEntry refusals', async () => {
  const e = { source: 'tmpfs', mountpoint: MP, fstype: 'tmpfs' };
  await refused('AddFstabEntry', e, hostWith({ tree: { '/etc/fstab': `${FSTAB}${TMPFS_LINE}\n` } }), 'fstab_entry_exists', 'conflict');
  await refused('AddFstabEntry', { ...e, mountpoint: '/srv/none' }, hostWith(), 'mountpoint_missing', 'conflict');
  await refused('AddFstabEntry', { ...e, mountpoint: '/srv/file' }, hostWith({ tree: { '/srv/file': 'x' } }), 'mountpoint_not_directory');
  await refused('AddFstabEntry', { ...e, mountpoint: '/srv/link' }, hostWith({ tree: { '/srv/link': { link: '/etc' } } }), 'untrusted_path', 'authorization');
  await refused('AddFstabEntry', e, hostWith({ verify: { code: 1, stdout: '/x\n   [E] unreachable\n', stderr: '0 parse errors, 1 error' } }), 'fstab_already_invalid');
  // findmnt exits 0 on warnings: a warning fails the check all the same.
  await refused('AddFstabEntry', e, hostWith({ verify: { code: 0, stdout: '/srv/l\n   [W] non-canonical target path (real: /etc)\n', stderr: '0 parse errors, 0 errors, 1 warning' } }), 'fstab_already_invalid');
  // A link in the middle of the mount point: it would be mounted over /etc/profile.d.
  await refused('AddFstabEntry', { ...e, mountpoint: '/srv/agent/etc/profile.d' }, hostWith({ tree: { '/srv/agent': { dir: true, uid: 1001 }, '/srv/agent/etc': { link: '/etc' } } }), 'untrusted_path', 'authorization');
  // A source in a directory anyone can write (mount would loop-mount the agent's image), or a regular file.
  await refused('AddFstabEntry', { source: '/dev/shm/img', mountpoint: MP, fstype: 'ext4', options: ['nofail'] }, hostWith({ tree: { '/dev/shm': { dir: true, mode: 0o1777 }, '/dev/shm/img': 'x' } }), 'untrusted_path');
  await refused('AddFstabEntry', { source: '/dev/img', mountpoint: MP, fstype: 'ext4', options: ['nofail'] }, hostWith({ tree: { '/dev/img': 'x' } }), 'source_not_a_device', 'conflict');
  // A host without /etc/fstab at all.
  await refused('AddFstabEntry', e, new FixtureHost({ [MP]: { dir: true } }, () => ({ code: 0, stdout: '', stderr: '' })), 'no_fstab');
});

test('RemoveFstabEntry: removes exactly the one line, refuses when mounted, absent or ambiguous', async () => {
  const text = `${FSTAB}${TMPFS_LINE}\n# after\n`;
  const { steps, preview } = await run('RemoveFstabEntry', { mountpoint: MP }, hostWith({ tree: { '/etc/fstab': text } }));
  // Without systemd, the file alone.
  assert.deepEqual(steps, [{ kind: 'fileWrite', path: '/etc/fstab', content: `${FSTAB}# after\n`, mode: 0o644 }]);
  const reload = { kind: 'command', program: 'systemctl', args: ['daemon-reload'] };
  const systemd = await run('RemoveFstabEntry', { mountpoint: MP }, hostWith({ tree: { '/etc/fstab': text, '/run/systemd/system': { dir: true } } }));
  // The first reload is there for its undo: a rollback or a revert restores the file, then reloads systemd onto it.
  assert.deepEqual(systemd.steps, [{ ...reload, undo: reload }, steps[0], { ...reload, noUndo: 'undone_earlier' }]);
  assert.ok(reversibleWhenDone(systemd.steps as Step[]));
  assert.deepEqual(declaredState(byName('RemoveFstabEntry'), { mountpoint: MP }, systemd.cur), [
    { program: 'systemctl', args: ['show', '-p', 'LoadState', '-p', 'SourcePath', '--', 'srv-airlock\\x2dtest.mount'] },
  ]);
  assert.deepEqual((preview.change as { removes_line: unknown }).removes_line, { number: 3, text: TMPFS_LINE });
  await refused('RemoveFstabEntry', { mountpoint: MP }, hostWith(), 'no_fstab_entry');
  await refused('RemoveFstabEntry', { mountpoint: MP }, hostWith({ tree: { '/etc/fstab': `${text}${TMPFS_LINE}\n` } }), 'ambiguous_fstab_entry');
  await refused('RemoveFstabEntry', { mountpoint: MP }, hostWith({ tree: { '/etc/fstab': text }, mounted: { [MP]: { source: 'tmpfs', fstype: 'tmpfs' } } }), 'mounted');
  // A longer mount point that starts with the same text is another entry.
  await refused('RemoveFstabEntry', { mountpoint: '/srv/airlock' }, hostWith({ tree: { '/etc/fstab': text } }), 'no_fstab_entry');
});

test('Mount: mount -- MOUNTPOINT of an fstab entry; refusals', async () => {
  const tree = { '/etc/fstab': `${FSTAB}${TMPFS_LINE}\n` };
  const { steps, preview } = await run('Mount', { mountpoint: MP }, hostWith({ tree, ls: 'a\nb\n' }));
  assert.deepEqual(steps, [{ kind: 'command', program: 'mount', args: ['--', MP], paths: [MP], undo: { kind: 'command', program: 'umount', args: ['--', MP], paths: [MP] } }]);
  assert.ok(preview.warnings?.some((w) => w.includes('2 entries')), 'warns about hidden content');
  await refused('Mount', { mountpoint: MP }, hostWith(), 'no_fstab_entry');
  await assertNoChange(run('Mount', { mountpoint: MP }, hostWith({ tree, mounted: { [MP]: { source: 'tmpfs', fstype: 'tmpfs' } } })), /already/);
  await refused('Mount', { mountpoint: '/srv/gone' }, hostWith({ tree: { '/etc/fstab': `${FSTAB}tmpfs /srv/gone tmpfs defaults 0 0\n` } }), 'mountpoint_missing');
  const linked = `${FSTAB}tmpfs /srv/agent/etc/profile.d tmpfs mode=1777 0 0\n`;
  await refused('Mount', { mountpoint: '/srv/agent/etc/profile.d' }, hostWith({ tree: { '/etc/fstab': linked, '/srv/agent': { dir: true, uid: 1001 }, '/srv/agent/etc': { link: '/etc' } } }), 'untrusted_path', 'authorization');
  await refused('Mount', { mountpoint: MP }, hostWith({ tree: { '/etc/fstab': `${FSTAB}/dev/shm/img ${MP} ext4 defaults 0 0\n`, '/dev/shm': { dir: true, mode: 0o1777 }, '/dev/shm/img': 'x' } }), 'untrusted_path');
});

test('Unmount: umount -- MOUNTPOINT, undone by mounting what was there; refuses when nothing is mounted', async () => {
  const options = 'rw,nosuid,nodev,relatime,size=16384k,mode=750,inode64';
  const h = hostWith({ mounted: { [MP]: { source: 'tmpfs', fstype: 'tmpfs', options } } });
  const { steps } = await run('Unmount', { mountpoint: MP }, h);
  assert.deepEqual(steps, [
    { kind: 'command', program: 'umount', args: ['--', MP], paths: [MP], undo: { kind: 'command', program: 'mount', args: ['-t', 'tmpfs', '-o', options, '--', 'tmpfs', MP], paths: [MP] } },
  ]);
  // A device source is opened by name: the trusted-path rule checks it too.
  const dev = await run('Unmount', { mountpoint: MP }, hostWith({ mounted: { [MP]: { source: '/dev/loop3', fstype: 'ext4', options: 'rw,relatime' } } }));
  assert.deepEqual((dev.steps[0] as { undo: { args: string[]; paths: string[] } }).undo.paths, [MP, '/dev/loop3']);
  // What mount could not be given back as findmnt printed it is refused, not unmounted without an undo.
  for (const m of [
    { source: '/dev/sda1[/sub]', fstype: 'btrfs' },
    { source: 'tmpfs', fstype: 'tmpfs', options: 'rw,context="system_u:object_r:tmp_t:s0"' },
    { source: '-o', fstype: 'tmpfs' },
    { source: '/dev/../etc', fstype: 'ext4' },
  ]) {
    await refused('Unmount', { mountpoint: MP }, hostWith({ mounted: { [MP]: m } }), 'unrestorable_mount', 'conflict');
  }
  assert.ok(h.calls.some(([p, a]) => p === 'findmnt' && a.join(' ') === `-J -o TARGET,SOURCE,FSTYPE,OPTIONS -M ${MP}`));
  await assertNoChange(run('Unmount', { mountpoint: MP }, hostWith()), /not|no /);
  // umount follows a link: /srv/boot -> /boot would detach /boot.
  await refused('Unmount', { mountpoint: '/srv/boot' }, hostWith({ tree: { '/srv/boot': { link: '/boot' } }, mounted: { '/srv/boot': { source: 'boot', fstype: 'ext4' } } }), 'untrusted_path', 'authorization');
  for (const mp of ['/', '/usr', '/var', '/boot', '/home', '/run']) assert.equal(byName('Unmount').params.safeParse({ mountpoint: mp }).success, false, mp);
});
