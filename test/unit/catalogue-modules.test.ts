import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction } from '../../src/catalogue/action.js';
import * as blacklist from '../../src/catalogue/families/kernel/blacklist.js';
import { loadModule } from '../../src/catalogue/families/kernel/modules.js';
import { blacklistFile, blacklistLines, dependencies, moduleName, parseLsmod } from '../../src/catalogue/families/kernel/module-state.js';
import { matchesGlob } from '../../src/catalogue/params.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

// What families/modules.ts held: the blacklist actions and LoadModule.
const modules = { ...blacklist, loadModule };
const actions = Object.values(modules).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const { run, refused } = actionRunner(actions);

const LSMOD = 'Module                  Size  Used by\nusb_storage            81920  0\ndummy                  16384  0\nbridge                311296  1 br_netfilter\nbr_netfilter           32768  0\n';
const OWN = '/etc/modprobe.d/60-airlock-blacklist-pcspkr.conf';

/** A host with loadable modules (unless `loadable` is false), some modprobe.d files and lsmod output. */
function modHost(o: { loadable?: boolean; files?: Record<string, string>; tree?: Record<string, Node> } = {}) {
  const files = o.files ?? { '/etc/modprobe.d/blacklist.conf': '# distro\nblacklist floppy\noptions snd x=1\n', [OWN]: 'blacklist pcspkr\ninstall pcspkr /bin/false\n' };
  const tree: Record<string, Node> = { ...files, ...(o.loadable === false ? { '/sys/module/ipv6/parameters/disable': '0' } : { '/proc/modules': 'x' }), ...(o.tree ?? {}) };
  return new FixtureHost(tree, (program, args) => {
    if (program === 'lsmod') return { code: 0, stdout: LSMOD, stderr: '' };
    if (program === 'ls' && args.join(' ') === '-1 -A --quoting-style=escape -- /etc/modprobe.d') {
      return { code: 0, stdout: Object.keys(files).map((f) => f.split('/').pop()!).concat(['README', 'evil\\ name.conf']).join('\n') + '\n', stderr: '' };
    }
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

test('modules actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean]> = {
    ListModuleBlacklist: ['low', true],
    BlacklistModule: ['high', false],
    UnblacklistModule: ['high', false],
    LoadModule: ['high', false],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.deepEqual([a.risk, a.readOnly], expected[a.name], a.name);
    assert.equal(a.family, 'kernel');
    assert.ok(a.params.safeParse(a.example).success, a.name);
    assert.equal(a.params.safeParse({ ...a.example, extra: 1 }).success, false);
  }
});

test('module names refuse injection strings', () => {
  for (const bad of [...INJECTIONS, 'A', 'a'.repeat(57), 'a.b', 'a/b', '-r', 'dummy numdummies=2']) assert.equal(moduleName.safeParse(bad).success, false, JSON.stringify(bad).slice(0, 40));
  for (const good of ['dummy', 'usb-storage', 'nf_tables', 'i915']) assert.ok(moduleName.safeParse(good).success);
  assert.equal(blacklistFile('usb-storage'), '/etc/modprobe.d/60-airlock-blacklist-usb_storage.conf');
  assert.ok(matchesGlob(blacklistFile('usb-storage'), modules.blacklistModule.files[0]!));
});

test('parsers', () => {
  assert.deepEqual(parseLsmod(LSMOD).get('bridge'), { count: 1, users: ['br_netfilter'] });
  assert.deepEqual(parseLsmod(LSMOD).get('dummy'), { count: 0, users: [] });
  assert.deepEqual(blacklistLines('# c\n blacklist a\ninstall b /bin/false\noptions c x=1\nblacklisted\n'), ['blacklist a', 'install b /bin/false']);
});

test('ListModuleBlacklist scans only plainly named .conf files in /etc/modprobe.d', async () => {
  const r = await run('ListModuleBlacklist', {}, modHost());
  assert.deepEqual(r.steps, [
    { kind: 'fileScan', path: OWN },
    { kind: 'fileScan', path: '/etc/modprobe.d/blacklist.conf' },
  ]);
  for (const s of r.steps) assert.ok(modules.listModuleBlacklist.files.some((g) => matchesGlob((s as { path: string }).path, g)));
});

test('BlacklistModule writes the airlock drop-in in the _ form', async () => {
  const r = await run('BlacklistModule', { module: 'usb-storage' }, modHost({ tree: { '/usr/sbin/update-initramfs': 'x' } }));
  assert.deepEqual(r.steps, [
    {
      kind: 'fileWrite',
      path: '/etc/modprobe.d/60-airlock-blacklist-usb_storage.conf',
      content: '# Written by Airlock (BlacklistModule); UnblacklistModule removes it.\nblacklist usb_storage\ninstall usb_storage /bin/false\n',
      mode: 0o644,
    },
  ]);
  const w = r.preview.warnings!.join('\n');
  assert.match(w, /loaded now/);
  assert.match(w, /update-initramfs/);
  const other = await run('BlacklistModule', { module: 'floppy' }, modHost());
  assert.match(other.preview.warnings!.join('\n'), /also named in \/etc\/modprobe.d\/blacklist.conf/);
  assert.doesNotMatch(other.preview.warnings!.join('\n'), /update-initramfs/);
});

test('blacklist refusals', async () => {
  const h = modHost();
  await assertNoChange(run('BlacklistModule', { module: 'pcspkr' }, h), /already/);
  await refused('BlacklistModule', { module: 'ext4' }, h, 'boot_critical_module', 'authorization');
  await refused('BlacklistModule', { module: 'virtio-blk' }, h, 'boot_critical_module', 'authorization');
  await refused('UnblacklistModule', { module: 'floppy' }, h, 'not_blacklisted_by_airlock', 'conflict');
  const u = await run('UnblacklistModule', { module: 'pcspkr' }, h);
  assert.deepEqual(u.steps, [{ kind: 'fileDelete', path: OWN }]);
});

test('LoadModule runs modprobe with modprobe -r as its undo, and refuses what it cannot or must not load', async () => {
  const { steps, preview } = await run('LoadModule', { module: 'wire-guard' }, modHost());
  assert.deepEqual(steps, [{ kind: 'command', program: 'modprobe', args: ['--', 'wire_guard'], undo: { kind: 'command', program: 'modprobe', args: ['-r', '--', 'wire_guard'] } }]);
  assert.match(preview.summary, /Load the kernel module wire_guard/);
  await assertNoChange(run('LoadModule', { module: 'dummy' }, modHost()), /already/);
  await refused('LoadModule', { module: 'pcspkr' }, modHost(), 'module_blacklisted', 'conflict');
  await refused('LoadModule', { module: 'floppy' }, modHost(), 'module_blacklisted', 'conflict');
  await refused('LoadModule', { module: 'ipv6' }, modHost({ tree: { '/sys/module/ipv6/parameters/disable': '0' } }), 'built_in', 'conflict');
  await refused('LoadModule', { module: 'wireguard' }, modHost({ loadable: false }), 'no_loadable_modules', 'unsupported_platform');
});


test('issue 27: LoadModule is exact: modprobe -r, then the dependencies loaded before are loaded again; each module probed in /sys/module', async () => {
  const deps = 'insmod /lib/modules/6.1.0/kernel/net/ipv4/udp_tunnel.ko \ninsmod /lib/modules/6.1.0/kernel/net/ipv6/ip6_udp_tunnel.ko.xz \ninsmod /lib/modules/6.1.0/kernel/drivers/net/wireguard/wireguard.ko.xz \n';
  const withDeps = new FixtureHost({ '/proc/modules': 'x' }, (program, args) => {
    if (program === 'modprobe' && args.join(' ') === '--show-depends -- wireguard') return { code: 0, stdout: deps, stderr: '' };
    if (program === 'lsmod') return { code: 0, stdout: `${LSMOD}udp_tunnel             32768  0\n`, stderr: '' };
    return { code: 0, stdout: '', stderr: '' };
  });
  const { steps, cur } = await run('LoadModule', { module: 'wireguard' }, withDeps);
  assert.deepEqual(steps, [
    { kind: 'command', program: 'modprobe', args: ['--show-depends', '--', 'wireguard'], undo: { kind: 'command', program: 'modprobe', args: ['-a', '--', 'udp_tunnel'] } },
    { kind: 'command', program: 'modprobe', args: ['--', 'wireguard'], undo: { kind: 'command', program: 'modprobe', args: ['-r', '--', 'wireguard'] } },
  ]);
  const r = loadModule.rollback!;
  assert.ok(r.class === 'exact');
  assert.deepEqual(r.state?.({ module: 'wireguard' }, cur as never), ['wireguard', 'udp_tunnel', 'ip6_udp_tunnel'].map((m) => ({ file: `/sys/module/${m}/initstate` })));
  assert.deepEqual(dependencies('builtin crc32c\ninsmod /x/-rf.ko\ninsmod /lib/a/b-c.ko.zst\n', 'x'), ['b_c'], 'only plain module names, in lsmod form');
});

test('issue 27: the blacklist actions are exact by their file steps alone', () => {
  for (const a of [modules.blacklistModule, modules.unblacklistModule]) assert.deepEqual(a.rollback, { class: 'exact' }, a.name);
});
