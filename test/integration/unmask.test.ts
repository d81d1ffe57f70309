/**
 * Masking against a real daemon with real Unix users: what a read returns reaches the
 * agent masked, the signed log counts what was masked, and clear output is an approval of
 * its own (an unmasking preview): High, asked for and approved only by the same person,
 * with their code, its output to that person's connection alone. Pseudonyms by policy are
 * the daemon key's HMAC. Planted files hold generated values, never real credentials.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope, ResultEnvelope } from '../../src/protocol/messages.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { Pseudonyms } from '../../src/mask/pseudonyms.js';
import { spawnSync } from 'node:child_process';
import { CLI } from '../support/cli.js';
import { typeAt } from '../support/terminal.js';

const APPROVER = ['airlock-admin', 'airlock-approvers'];
const FILE = '/etc/netplan/50-lab.yaml';
const PASSWORD = randomBytes(12).toString('base64url');
const SSID = `lab-${randomBytes(3).toString('hex')}`;
let w: World;
let agent: Principal, alice: Principal, bob: Principal;

before(async () => {
  w = await startWorld();
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', APPROVER);
  bob = await w.as('bob', APPROVER);
  assert.equal((await w.d.box.run('/usr/bin/mkdir', ['-p', '/etc/netplan'])).code, 0);
  writeFileSync(`/proc/${w.d.box.pid}/root${FILE}`, `network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        "${SSID}":\n          password: "${PASSWORD}"\n`, { mode: 0o644 });
});
after(() => w?.close());

type Entry = { kind: string; transaction_id: string | null; details: Record<string, unknown> };
const entriesOf = (id: string) => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as Entry).filter((e) => e.transaction_id === id);
const read = { action_name: 'ReadConfigFile', params: { path: FILE } };
const execute = (who: Principal, p: PreviewEnvelope, receipt: string) => who.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt }) as Promise<ResultEnvelope>;

describe('masked reads', () => {
  test('the agent gets the file with the password masked, and the log counts it without the value', async () => {
    const { p, r } = await w.lifecycle(agent, alice, read.action_name, read.params);
    assert.equal(r.state, 'Succeeded');
    const out = r.output.join('\n');
    assert.ok(!out.includes(PASSWORD), out);
    assert.ok(out.includes(`"${SSID}":`) && out.includes('password: "⟦secret:password⟧"'), out);
    const outcome = entriesOf(p.transaction_id).find((e) => e.kind === 'outcome')!;
    assert.deepEqual(outcome.details.masked, ['password:1']);
    assert.equal(outcome.details.unmasked, undefined);
    assert.ok(!JSON.stringify(entriesOf(p.transaction_id)).includes(PASSWORD), 'no entry holds the value');
  });
});

describe('unmasking', () => {
  test('an agent cannot ask for clear output, nor unmask a change', async () => {
    await rejectsWith(agent.call('preview', { ...read, unmask: true }), 'authorization', 'unmask_needs_approver');
    await rejectsWith(alice.call('preview', { action_name: 'CreateGroup', params: { group: 'unmaskme' }, unmask: true }), 'authorization', 'unmask_not_a_read');
    await rejectsWith(alice.callUnchecked('preview', { ...read, unmask: 'yes' }), 'validation', 'bad_unmask');
  });

  test('a person unmasks their own request, with their code; nobody else approves or runs it', async () => {
    const p = await alice.call('preview', { ...read, unmask: true });
    assert.equal(p.risk, 'high', 'High whatever the read');
    assert.equal(p.unmask, true);
    assert.equal(p.auto_approval, undefined);
    await rejectsWith(w.approve(bob, p), 'authorization', 'unmask_not_yours');
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization', 'totp_required');
    const g = await w.approve(alice, p);
    await rejectsWith(execute(agent, p, g.receipt), 'authorization', 'not_the_requester');
    const r = await execute(alice, p, g.receipt);
    assert.equal(r.state, 'Succeeded');
    assert.ok(r.output.includes(`          password: "${PASSWORD}"`), r.output.join('\n'));
    // The refusals above are in the log too (`refused`); the transaction's own steps are these.
    const steps = entriesOf(p.transaction_id).filter((e) => e.kind !== 'refused');
    assert.deepEqual(steps.map((e) => e.kind), ['preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome']);
    const [preview, granted, , , outcome] = steps;
    assert.equal(preview!.details.unmask, true);
    assert.equal(granted!.details.second_factor, 'totp');
    assert.equal(outcome!.details.unmasked, true);
    assert.deepEqual(outcome!.details.masked, ['password:1'], 'what the clear output held, counted');
    assert.ok(!JSON.stringify(entriesOf(p.transaction_id)).includes(PASSWORD), 'the log still holds no value');
  });
});

describe('the command line', () => {
  test('`airlock unmask TX` shows the person the clear output, after their code and the action name', async () => {
    const { p } = await w.lifecycle(agent, alice, read.action_name, read.params);
    const who = alice.identity;
    const inner = `/usr/bin/setpriv --reuid=${who.uid} --regid=${who.gid} --groups=${who.groups.join(',')} -- ${process.execPath} --import ${import.meta.resolve('tsx')} ${CLI} --socket ${w.d.socket} unmask ${p.transaction_id}`;
    const r = await typeAt(inner, [
      ['Code from your authenticator app', () => w.codes.code('alice')],
      ['Type the action name', 'ReadConfigFile'],
    ]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /High risk/);
    assert.match(r.out, /clear output of ReadConfigFile .*do not paste it into a chat/);
    assert.ok(r.out.includes(`password: "${PASSWORD}"`), r.out);
  });

  test('`airlock mask` masks stdin and files offline; --check and --json say what it found', () => {
    const run = (args: string[], input: string) => spawnSync(process.execPath, ['--import', 'tsx', CLI, 'mask', ...args], { input, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', NO_COLOR: '1' } });
    const secret = `ghp_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`;
    const r = run([], `GITHUB_TOKEN=${secret}\nplain line\n`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'GITHUB_TOKEN=⟦secret:github_token⟧\nplain line\n');
    assert.match(r.stderr, /masked 1 secret \(1 github_token\)/);
    assert.equal(run(['--check'], `token=${secret}\n`).status, 1, 'something masked');
    assert.equal(run(['--check'], 'nothing here\n').status, 0);
    const j = JSON.parse(run(['--json', '-'], `password=${PASSWORD}\n`).stdout);
    assert.deepEqual(j.masked, { password: 1 });
    assert.equal(j.files[0].text, 'password=⟦secret:password⟧\n');
    assert.equal(run(['/nonexistent/file'], '').status, 2);
  });
});

describe('pseudonyms by policy', () => {
  test('with [masking] pseudonyms = ["ip"], addresses become the HMAC of the daemon key; off again after a reload', async () => {
    const policy = join(w.d.box.shared, 'policy.toml');
    writeFileSync(policy, '[masking]\npseudonyms = ["ip"]\n');
    await w.reload();
    assert.deepEqual((await agent.call('policy.show')).pseudonyms, ['ip']);
    writeFileSync(`/proc/${w.d.box.pid}/root/etc/hosts`, '127.0.0.1\tlocalhost\n192.0.2.10\tdb1.lab\n198.51.100.7\tbackup\n', { mode: 0o644 });
    const hosts = { path: '/etc/hosts' };
    const first = (await w.lifecycle(agent, alice, 'ReadConfigFile', hosts)).r.output;
    const again = (await w.lifecycle(agent, alice, 'ReadConfigFile', hosts)).r.output;
    const key = readFileSync(w.d.files.maskKey);
    const p = new Pseudonyms(key, ['ip']);
    assert.deepEqual(first, ['127.0.0.1\tlocalhost', `${p.of('ip', '192.0.2.10')}\tdb1.lab`, `${p.of('ip', '198.51.100.7')}\tbackup`]);
    assert.deepEqual(again, first, 'stable');
    writeFileSync(policy, '');
    await w.reload();
    assert.deepEqual((await w.lifecycle(agent, alice, 'ReadConfigFile', hosts)).r.output[1], '192.0.2.10\tdb1.lab');
  });
});
