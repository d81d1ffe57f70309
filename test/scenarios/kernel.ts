/**
 * kernel family, for real in the throwaway overlay. The sandbox has its own IPC
 * namespace but shares the host's network namespace and every non-namespaced
 * sysctl, so the only key these scenarios change is kernel.msgmax (IPC-namespaced):
 * the real host's value never moves. Checks run sysctl and read files directly.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

const KEY = 'kernel.msgmax';
const DROP_IN = `/etc/sysctl.d/60-airlock-${KEY}.conf`;
/** Different from the kernel default (8192) of the fresh IPC namespace. */
const VALUE = '9137';

const out = (r: { output: string[] }) => r.output.join('\n');

async function sysctl(box: SandboxView, key: string): Promise<string> {
  const r = await box.run('/usr/sbin/sysctl', ['-n', '--', key]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

export const scenarios: Scenario[] = [
  {
    action: 'GetSysctl',
    params: { key: KEY },
    check: async (box, r) => {
      const now = await sysctl(box, KEY);
      assert.match(now, /^\d+$/);
      assert.equal(out(r).trim(), now);
      assert.equal(((await box.readFile('/proc/sys/kernel/msgmax')) ?? '').trim(), now);
    },
  },
  {
    action: 'ListSysctls',
    params: {},
    check: async (box, r) => {
      const text = out(r);
      assert.ok(text.split('\n').includes(`${KEY} = ${await sysctl(box, KEY)}`), `a "${KEY} = value" line`);
      assert.match(text, /^kernel\.ostype = Linux$/m);
      assert.match(text, /^net\.ipv4\.tcp_fastopen = /m);
      assert.doesNotMatch(text, /tcp_fastopen_key|stable_secret/, 'secret keys are left out');
      assert.doesNotMatch(text, /^kernel\.cad_pid/m, 'root-only values are left out');
    },
  },
  {
    action: 'SetSysctl',
    params: { key: KEY, value: VALUE },
    setup: async (box) => {
      assert.notEqual(await sysctl(box, KEY), VALUE, 'the test value must differ from the current one');
      assert.equal(await box.readFile(DROP_IN), null);
    },
    check: async (box) => {
      assert.equal(await sysctl(box, KEY), VALUE, 'running value');
      assert.equal(await box.readFile(DROP_IN), `${KEY} = ${VALUE}\n`, 'drop-in content');
      assert.equal((await box.run('/usr/bin/stat', ['-c', '%a %U %G', '--', DROP_IN])).stdout.trim(), '644 root root');
      // What a reboot would apply: procps reads the drop-in back to the same value.
      const load = await box.run('/usr/sbin/sysctl', ['-p', DROP_IN]);
      assert.equal(load.stdout.trim(), `${KEY} = ${VALUE}`);
    },
  },
  {
    title: 'a value the kernel refuses rolls the drop-in back',
    action: 'SetSysctl',
    params: { key: KEY, value: 'abc' },
    expect: 'RolledBack',
    check: async (box) => {
      assert.equal(await box.readFile(DROP_IN), `${KEY} = ${VALUE}\n`, 'drop-in restored');
      assert.equal(await sysctl(box, KEY), VALUE, 'running value unchanged');
    },
  },
  {
    action: 'ListKernelModules',
    params: {},
    check: async (box, r) => {
      const modules = await box.readFile('/proc/modules');
      if (modules !== null) {
        // Loadable-module kernel: the exact file contents.
        assert.equal(out(r).trim(), modules.trim());
      } else {
        // Built without module support (as the project's test VMs are): the built-in ones.
        const ls = await box.run('/usr/bin/ls', ['-1', '--', '/sys/module']);
        assert.equal(out(r).trim(), ls.stdout.trim());
        assert.ok(out(r).split('\n').includes('kernel'), 'the "kernel" pseudo-module is listed');
      }
    },
  },
];
