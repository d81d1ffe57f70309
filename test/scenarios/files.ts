/**
 * files family: allowlisted reads and listings, compared with the files as the sandbox has them;
 * a grant for configuration edits and each edit under it (checked by the JSON parser; the nginx
 * grants with their checks and reloads run on the booted test bed, config-grants.test.ts).
 */
import assert from 'node:assert/strict';
import type { Scenario } from './types.js';

const DROP_IN = '/etc/sysctl.d/50-airlock-scenario.conf';
const GRANTED = '/srv/airlock-scenario';
const APP = `${GRANTED}/app.json`;
const GRANT_FILE = '/etc/airlock/grants/scenario.json';
/** Two hours from when the scenarios are loaded: the grant outlives the run. */
const UNTIL = new Date(Date.now() + 2 * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
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
  {
    action: 'GrantConfigEdits',
    params: { name: 'scenario', account: 'agent', folder: GRANTED, checker: 'json', expires_at: UNTIL },
    setup: async (box) => {
      assert.equal((await box.run('/usr/bin/mkdir', ['-m', '0755', '-p', '--', '/etc/airlock', GRANTED])).code, 0);
    },
    check: async (box) => {
      const g = JSON.parse((await box.readFile(GRANT_FILE))!);
      assert.equal(g.account, 'agent');
      assert.equal(g.folder, GRANTED);
      assert.equal(g.edit_risk, 'high', 'no follow-up unit running as its own account: High');
      assert.equal(g.expires_at, new Date(UNTIL).toISOString());
    },
  },
  {
    action: 'ListConfigGrants',
    params: {},
    check: async (_box, r) => {
      assert.ok(r.output.some((l) => l.startsWith(`${GRANT_FILE}:{`) && l.includes('"name":"scenario"')), r.output.join('\n'));
    },
  },
  {
    action: 'CreateGrantedFile',
    params: { grant: 'scenario', path: APP, content: '{\n  "port": 80\n}\n' },
    check: async (box) => {
      assert.equal(await box.readFile(APP), '{\n  "port": 80\n}\n');
      assert.equal((await box.run('/usr/bin/stat', ['-c', '%a %U', '--', APP])).stdout.trim(), '644 root');
    },
  },
  {
    action: 'ReplaceGrantedFile',
    params: { grant: 'scenario', path: APP, content: '{\n  "port": 81\n}\n' },
    check: async (box) => assert.equal(await box.readFile(APP), '{\n  "port": 81\n}\n'),
  },
  {
    action: 'PatchGrantedFile',
    params: { grant: 'scenario', path: APP, diff: '--- a/app.json\n+++ b/app.json\n@@ -1,3 +1,3 @@\n {\n-  "port": 81\n+  "port": 82\n }\n' },
    check: async (box) => assert.equal(await box.readFile(APP), '{\n  "port": 82\n}\n'),
  },
  {
    action: 'RemoveGrantedFile',
    params: { grant: 'scenario', path: APP },
    check: async (box) => assert.equal(await box.readFile(APP), null),
  },
  {
    action: 'RevokeConfigGrant',
    params: { name: 'scenario' },
    check: async (box) => assert.equal(await box.readFile(GRANT_FILE), null),
  },
];
