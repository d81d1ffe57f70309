import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction } from '../../src/catalogue/action.js';
import * as sysctl from '../../src/catalogue/families/kernel/sysctl.js';
import { isSecretSysctl, LISTABLE_SYSCTLS_ERE, ROOT_HELPER_SYSCTLS, sysctlConfValue, sysctlDropIn, sysctlPath } from '../../src/catalogue/families/kernel/sysctl.js';
import { listKernelModules } from '../../src/catalogue/families/kernel/modules.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

// What families/kernel.ts held: the sysctl actions and ListKernelModules.
const actions: AnyAction[] = [...Object.values(sysctl).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a), listKernelModules];
const byName = (n: string) => actions.find((a) => a.name === n)!;

const PROC: Record<string, Node> = {
  '/proc/sys/kernel/msgmax': '8192\n',
  '/proc/sys/net/ipv4/ip_local_port_range': '32768\t60999\n',
  '/proc/sys/net/ipv4/tcp_fastopen_key': { file: '00000000-00000000-00000000-00000000\n', mode: 0o600 },
  '/proc/sys/net/ipv6/conf/all/stable_secret': { file: 'secret\n', mode: 0o600 },
  '/proc/sys/vm/drop_caches': { file: '', mode: 0o200 },
  '/proc/sys/kernel/osrelease': { file: '6.1.0\n', mode: 0o444 },
  '/proc/sys/kernel/core_pattern': 'core\n',
  '/proc/sys/kernel/modprobe': '/sbin/modprobe\n',
  '/proc/sys/kernel/randomize_va_space': '2\n',
};

async function run(name: string, raw: Record<string, unknown>, tree: Record<string, Node> = PROC) {
  const a = byName(name);
  const p = a.params.parse(raw);
  const host = new FixtureHost(tree);
  const cur = await a.current(p, host);
  checked(a, p, cur);
  return { steps: a.mechanism(p, cur), preview: a.preview(p, cur), host };
}

async function refusal(name: string, raw: Record<string, unknown>, tree: Record<string, Node> = PROC): Promise<AirlockError> {
  try {
    await run(name, raw, tree);
  } catch (e) {
    assert.ok(e instanceof AirlockError, String(e));
    return e;
  }
  assert.fail(`${name} ${JSON.stringify(raw)} was not refused`);
}

test('kernel actions: names, risks, declarations', () => {
  assert.deepEqual(Object.fromEntries(actions.map((a) => [a.name, a.risk])), { GetSysctl: 'low', SetSysctl: 'high', ListSysctls: 'low', ListKernelModules: 'low' });
  for (const a of actions) {
    assert.equal(a.family, 'kernel');
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
  // Exact: the drop-in restored, the running value set back; the probe reads it from inside the namespace.
  const r = byName('SetSysctl').rollback!;
  assert.equal(r.class, 'exact');
  assert.deepEqual(r.class === 'exact' && r.state?.({ key: 'kernel.msgmax', value: '1' }, { value: '8192' }), [{ program: 'sysctl', args: ['-n', '--', 'kernel.msgmax'] }]);
  assert.deepEqual(r.class === 'exact' && r.state?.({ key: 'vm.drop_caches', value: '3' }, { value: null }), [], 'a write-only key has no value to read back');
  assert.deepEqual(byName('SetSysctl').files, ['/etc/sysctl.d/60-airlock-*.conf']);
});

test('sysctl keys and values refuse injections', () => {
  const badKeys = [...INJECTIONS, 'kernel', 'kernel.', '.kernel', 'kernel..msgmax', 'kernel/msgmax', 'kernel.msgmax=1', 'Kernel.msgmax', 'kernel.*', '-w', '-p/etc/x'];
  const get = (key: unknown) => byName('GetSysctl').params.safeParse({ key }).success;
  const setKey = (key: unknown) => byName('SetSysctl').params.safeParse({ key, value: '1' }).success;
  for (const k of badKeys) {
    assert.equal(get(k), false, `GetSysctl key ${JSON.stringify(k)}`);
    assert.equal(setKey(k), false, `SetSysctl key ${JSON.stringify(k)}`);
  }
  assert.equal(byName('GetSysctl').params.safeParse({ key: 'kernel.msgmax', extra: 1 }).success, false, 'strict');
  assert.equal(byName('SetSysctl').params.safeParse({ key: 'kernel.msgmax', value: '1', extra: 1 }).success, false, 'strict');
  assert.equal(byName('SetSysctl').params.safeParse({ key: 'kernel.msgmax' }).success, false, 'value required');
  const set = byName('SetSysctl');
  for (const v of ['; rm -rf /', '$(id)', '`id`', '-1', '--help', 'a\u0000b', 'a\nb', 'x'.repeat(200), '', 'a|b', 'a=b', '#x', "a'b", 'a\tb']) {
    assert.equal(set.params.safeParse({ key: 'kernel.msgmax', value: v }).success, false, `value ${JSON.stringify(v)}`);
  }
  for (const v of ['1', '32768 60999', 'bbr', '0.5']) assert.equal(set.params.safeParse({ key: 'kernel.msgmax', value: v }).success, true, v);
  for (const a of ['ListSysctls', 'ListKernelModules']) {
    assert.equal(byName(a).params.safeParse({}).success, true);
    assert.equal(byName(a).params.safeParse({ pattern: '.*' }).success, false);
  }
});

test('paths derive from the key only', () => {
  assert.equal(sysctlPath('net.ipv4.conf.all.rp_filter'), '/proc/sys/net/ipv4/conf/all/rp_filter');
  assert.equal(sysctlDropIn('kernel.msgmax'), '/etc/sysctl.d/60-airlock-kernel.msgmax.conf');
});

test('GetSysctl reads /proc/sys first and refuses unknown, group, write-only and secret keys', async () => {
  const { steps, preview, host } = await run('GetSysctl', { key: 'kernel.msgmax' });
  assert.deepEqual(steps, [{ kind: 'command', program: 'sysctl', args: ['-n', '--', 'kernel.msgmax'] }]);
  assert.match(preview.summary, /now 8192/);
  assert.equal(host.calls.length, 0);
  assert.equal((await refusal('GetSysctl', { key: 'kernel.nope' })).code, 'no_such_sysctl');
  assert.equal((await refusal('GetSysctl', { key: 'net.ipv4' })).code, 'not_a_sysctl');
  assert.equal((await refusal('GetSysctl', { key: 'vm.drop_caches' })).code, 'private_sysctl');
  assert.equal((await refusal('GetSysctl', { key: 'net.ipv4.tcp_fastopen_key' })).code, 'secret_sysctl');
  assert.equal((await refusal('GetSysctl', { key: 'net.ipv6.conf.all.stable_secret' })).code, 'secret_sysctl');
});

test('SetSysctl writes the drop-in, then sysctl -w with the old value as undo', async () => {
  const { steps, preview } = await run('SetSysctl', { key: 'kernel.msgmax', value: '9000' });
  assert.deepEqual(steps, [
    { kind: 'fileWrite', path: '/etc/sysctl.d/60-airlock-kernel.msgmax.conf', content: 'kernel.msgmax = 9000\n', mode: 0o644, parent: { mode: 0o755 } },
    {
      kind: 'command',
      program: 'sysctl',
      args: ['-w', '--', 'kernel.msgmax=9000'],
      undo: { kind: 'command', program: 'sysctl', args: ['-w', '--', 'kernel.msgmax=8192'] },
    },
  ]);
  assert.deepEqual((preview.change as { running: unknown }).running, { key: 'kernel.msgmax', from: '8192', to: '9000' });
  // Multi-value keys: the kernel's tabs become spaces, both ways.
  const range = await run('SetSysctl', { key: 'net.ipv4.ip_local_port_range', value: '20000  61000' });
  assert.deepEqual((range.steps[1] as { args: string[]; undo: { args: string[] } }).args, ['-w', '--', 'net.ipv4.ip_local_port_range=20000 61000']);
  assert.deepEqual((range.steps[1] as { undo: { args: string[] } }).undo.args, ['-w', '--', 'net.ipv4.ip_local_port_range=32768 60999']);
});

test('SetSysctl refusals and warnings', async () => {
  for (const key of ROOT_HELPER_SYSCTLS) assert.equal((await refusal('SetSysctl', { key, value: '/tmp/x' })).code, 'protected_sysctl', key);
  // binfmt_misc registration is root code execution through any setuid binary.
  for (const key of ['fs.binfmt_misc.register', 'fs.binfmt_misc.status', 'kernel.usermodehelper.bset']) assert.equal((await refusal('SetSysctl', { key, value: ':x:E::pwn::/home/agent/sh:C' })).code, 'protected_sysctl', key);
  assert.equal((await refusal('SetSysctl', { key: 'net.ipv4.tcp_fastopen_key', value: '1' })).code, 'secret_sysctl');
  assert.equal((await refusal('SetSysctl', { key: 'kernel.osrelease', value: '1' })).code, 'read_only_sysctl');
  assert.equal((await refusal('SetSysctl', { key: 'kernel.nope', value: '1' })).code, 'no_such_sysctl');
  assert.equal((await refusal('SetSysctl', { key: 'kernel.msgmax', value: '   ' })).code, 'empty_value');
  const done = { ...PROC, '/etc/sysctl.d/60-airlock-kernel.msgmax.conf': 'kernel.msgmax = 8192\n' };
  await assertNoChange(run('SetSysctl', { key: 'kernel.msgmax', value: '8192' }, done), /already/);
  // Same running value but not persisted yet: allowed.
  assert.equal((await run('SetSysctl', { key: 'kernel.msgmax', value: '8192' })).steps.length, 2);

  const overridden = { ...PROC, '/etc/sysctl.conf': '# comment\nkernel.randomize_va_space=2\n kernel/randomize_va_space = 2\n' };
  const w = (await run('SetSysctl', { key: 'kernel.randomize_va_space', value: '0' }, overridden)).preview.warnings!;
  assert.ok(w.some((x) => /hardening/.test(x)));
  assert.ok(w.some((x) => /\/etc\/sysctl\.conf sets kernel\.randomize_va_space = 2/.test(x)));
  // A write-only key: no undo (the old value is unknown), and the preview says so.
  const drop = await run('SetSysctl', { key: 'vm.drop_caches', value: '3' });
  assert.equal((drop.steps[1] as { undo?: unknown }).undo, undefined);
  assert.ok(drop.preview.warnings!.some((x) => /cannot be restored/.test(x)));
});

test('sysctl.conf parsing', () => {
  assert.equal(sysctlConfValue(null, 'a.b'), null);
  assert.equal(sysctlConfValue('a.b = 1\n#a.b = 2\n-a.b=3\n', 'a.b'), '3');
  assert.equal(sysctlConfValue('a.bc = 1\n', 'a.b'), null);
});

test('the ListSysctls pattern keeps every key but the secret ones', () => {
  const re = new RegExp(LISTABLE_SYSCTLS_ERE); // the subset used is the same in POSIX ERE and JS
  const keys = [
    'abi.vsyscall32',
    'kernel.msgmax',
    'net',
    'net.ipv4',
    'net.ipv4.tcp_fastopen',
    'net.ipv4.tcp_fastopen_keys',
    'net.ipv4.tcp_fastopen_kez',
    'net.ipv4.xcp_fastopen_key',
    'net.ipv4.conf.all.tcp_fastopen_key',
    'net.ipv6.conf.all.disable_ipv6',
    'net.ipv6.conf.all.stable_secretx',
    'net.ipv6.stable_secre',
    'net.ipv5.tcp_fastopen_key',
    'net.core.somaxconn',
    'vm.swappiness',
    'net.ipv4.tcp_fastopen_key',
    'net.ipv6.conf.all.stable_secret',
    'net.ipv6.conf.eth0.stable_secret',
    'net.ipv6.conf.default.stable_secret',
  ];
  for (const k of keys) assert.equal(re.test(k), !isSecretSysctl(k), k);
  assert.deepEqual(byName('ListSysctls').mechanism({}, null), [{ kind: 'command', program: 'sysctl', args: ['-a', '--pattern', LISTABLE_SYSCTLS_ERE], unprivileged: true }]);
  assert.doesNotMatch(byName('ListSysctls').preview({}, null).summary, /^$/);
});

test('ListKernelModules runs lsmod (never /proc/modules, which shows kernel addresses to root), or lists /sys/module without loadable modules', async () => {
  assert.deepEqual((await run('ListKernelModules', {}, { '/proc/modules': 'ext4 1 0 - Live 0x0\n', '/sys/module/ext4/version': '1' })).steps, [
    { kind: 'command', program: 'lsmod', args: [] },
  ]);
  assert.deepEqual((await run('ListKernelModules', {}, { '/sys/module/ext4/version': '1' })).steps, [{ kind: 'command', program: 'ls', args: ['-1', '--', '/sys/module'] }]);
  assert.equal((await refusal('ListKernelModules', {}, {})).code, 'no_modules');
});
