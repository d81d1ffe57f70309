/** system family: every read checked against what the sandbox itself reports. */
import assert from 'node:assert/strict';
import type { Scenario } from './types.js';

const json = (lines: string[]) => JSON.parse(lines.join('\n')) as Record<string, unknown>;

export const scenarios: Scenario[] = [
  {
    action: 'HostInfo',
    params: {},
    check: async (box, r) => {
      assert.ok(r.output.some((l) => /^ID=(debian|ubuntu)$/.test(l)), 'os-release ID line');
      const uname = (await box.run('/usr/bin/uname', ['-r'])).stdout.trim();
      assert.ok(r.output.some((l) => l.startsWith('Linux ') && l.includes(uname)), 'uname line with the running kernel');
    },
  },
  {
    action: 'DiskUsage',
    params: {},
    check: async (_box, r) => {
      assert.match(r.output[0]!, /^Filesystem\s+Type\s+Size/);
      assert.ok(r.output.some((l) => / \/$/.test(l)), 'a line for the root file system');
    },
  },
  {
    action: 'MemoryInfo',
    params: {},
    check: async (box, r) => {
      const kb = Number(/^MemTotal:\s+(\d+) kB/m.exec((await box.readFile('/proc/meminfo'))!)![1]);
      const mem = r.output.find((l) => l.startsWith('Mem:'));
      assert.ok(mem, 'Mem: line');
      assert.equal(Number(mem.split(/\s+/)[1]), kb * 1024);
    },
  },
  {
    action: 'Uptime',
    params: {},
    check: async (box, r) => {
      const [up, load] = r.output;
      const seconds = Number(up!.split(' ')[0]);
      const now = Number((await box.readFile('/proc/uptime'))!.split(' ')[0]);
      assert.ok(seconds > 0 && seconds <= now, `uptime ${seconds} within (0, ${now}]`);
      assert.match(load!, /^\d+\.\d\d \d+\.\d\d \d+\.\d\d \d+\/\d+ \d+$/);
    },
  },
  {
    action: 'ListBlockDevices',
    params: {},
    check: async (box, r) => {
      const devices = json(r.output).blockdevices as Array<{ name: string }>;
      const names = (await box.run('/usr/bin/lsblk', ['-n', '-d', '-o', 'NAME'])).stdout.split('\n').map((s) => s.trim()).filter(Boolean);
      assert.deepEqual(devices.map((d) => d.name).sort(), names.sort());
    },
  },
  {
    action: 'ListMounts',
    params: {},
    check: async (_box, r) => {
      const fss = json(r.output).filesystems as Array<{ target: string }>;
      assert.ok(fss.some((f) => f.target === '/'), 'the root mount');
      assert.ok(fss.some((f) => f.target === '/proc'), '/proc');
    },
  },
  {
    action: 'ListProcesses',
    params: {},
    check: async (_box, r) => {
      assert.match(r.output[0]!, /^\s*PID\s+USER\s+%CPU\s+%MEM\s+COMMAND$/);
      assert.ok(r.output.some((l) => /^\s*1\s+root\s/.test(l)), 'pid 1 owned by root');
    },
  },
];
