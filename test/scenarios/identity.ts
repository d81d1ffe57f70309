/** identity family: host name and time zone, checked with hostname, readlink and date inside the sandbox. */
import assert from 'node:assert/strict';
import type { Scenario } from './types.js';

const out = async (box: Parameters<Scenario['check']>[0], program: string, args: string[]) => (await box.run(program, args)).stdout.trim();

export const scenarios: Scenario[] = [
  {
    action: 'GetHostname',
    params: {},
    check: async (box, r) => {
      assert.ok(r.output.includes(await out(box, '/usr/bin/hostname', [])), 'the running name');
    },
  },
  {
    action: 'SetHostname',
    params: { hostname: 'airlock-scenario' },
    check: async (box) => {
      assert.equal(await box.readFile('/etc/hostname'), 'airlock-scenario\n');
      assert.equal(await out(box, '/usr/bin/hostname', []), 'airlock-scenario');
    },
  },
  {
    title: 'after the rename',
    action: 'GetHostname',
    params: {},
    check: async (_box, r) => {
      assert.deepEqual(r.output, ['airlock-scenario', 'airlock-scenario']);
    },
  },
  {
    action: 'GetTimezone',
    params: {},
    check: async (box, r) => {
      const target = await out(box, '/usr/bin/readlink', ['--', '/etc/localtime']);
      assert.ok(r.output.includes(target), `the /etc/localtime target ${target}`);
      assert.ok(r.output.includes(await out(box, '/usr/bin/date', ['+%Z %z'])), 'the zone in effect');
    },
  },
  {
    action: 'SetTimezone',
    params: { timezone: 'Europe/Paris' },
    check: async (box) => {
      assert.equal(await out(box, '/usr/bin/readlink', ['--', '/etc/localtime']), '/usr/share/zoneinfo/Europe/Paris');
      const tz = await box.readFile('/etc/timezone');
      if (tz !== null) assert.equal(tz, 'Europe/Paris\n');
      assert.match(await out(box, '/usr/bin/date', ['+%Z']), /^CES?T$/);
    },
  },
  {
    title: 'an alias is written under its canonical name',
    action: 'SetTimezone',
    params: { timezone: 'UTC' },
    check: async (box, r) => {
      assert.equal(await out(box, '/usr/bin/readlink', ['--', '/etc/localtime']), '/usr/share/zoneinfo/Etc/UTC');
      const tz = await box.readFile('/etc/timezone');
      if (tz !== null) assert.equal(tz, 'Etc/UTC\n');
      assert.equal(await out(box, '/usr/bin/date', ['+%Z %z']), 'UTC +0000');
      assert.match(r.summary, /Etc\/UTC/);
    },
  },
];
