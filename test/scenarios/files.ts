/** files family: allowlisted reads and listings, compared with the files as the sandbox has them. */
import assert from 'node:assert/strict';
import type { Scenario } from './types.js';

const DROP_IN = '/etc/sysctl.d/50-airlock-scenario.conf';
/** A file's lines as the daemon releases them (a final newline ends the last line, it does not add one). */
const lines = (text: string | null) => (text ?? '').replace(/\n$/, '').split('\n');

export const scenarios: Scenario[] = [
  {
    action: 'ReadConfigFile',
    params: { path: '/etc/passwd' },
    check: async (box, r) => {
      assert.ok(r.output.some((l) => l.startsWith('root:x:0:0:')), 'the root entry');
      assert.deepEqual(r.output, lines(await box.readFile('/etc/passwd')));
    },
  },
  {
    title: 'a drop-in matched by a glob',
    action: 'ReadConfigFile',
    params: { path: DROP_IN },
    // SandboxView cannot write; copy a file whose content is known (the sandbox's /etc/hostname).
    setup: async (box) => {
      const r = await box.run('/usr/bin/cp', ['--', '/etc/hostname', DROP_IN]);
      assert.equal(r.code, 0, r.stderr);
    },
    check: async (box, r) => {
      assert.deepEqual(r.output, lines(await box.readFile(DROP_IN)));
    },
  },
  {
    action: 'ListConfigDirectory',
    params: { path: '/etc/sysctl.d' },
    check: async (_box, r) => {
      assert.ok(r.output.some((l) => /^-[rwx-]{9} .* \d{4}-\d\d-\d\d \d\d:\d\d 50-airlock-scenario\.conf$/.test(l)), 'the drop-in, with long-iso time');
      assert.ok(r.output.some((l) => / \.$/.test(l)), 'the directory itself (-a)');
    },
  },
];
