/**
 * `airlock mcp-server` through the MCP SDK's own client over stdio, against a real daemon
 * in a throwaway host, with the agent, a second principal and the approver as real Unix
 * users: the server runs as the agent's account inside that host, as an MCP client would
 * start it. The agent lists the tools, proposes a read (approved by the default policy), a
 * Medium and a High step and a bad one; the approver approves from another account while
 * airlock_execute waits, and the receipts reach the agent without anyone handling them;
 * history and the audit log verified inside the server agree; forged, replayed,
 * other-transaction and missing receipts fail with the daemon's reason; a denial reaches
 * the waiting agent; a wait that runs out returns cleanly; a second principal can neither
 * wait on nor execute the agent's transaction. With no daemon, the tools still list and
 * the doctor says how to start it; with the agent in no group, it says which group.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { mintReceipt } from '../../src/audit/receipt.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { newToken, tokenHash } from '../../src/protocol/token.js';
import { startWorld, type World } from '../support/world.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { livePreview } from '../../src/protocol/compacted.js';
import { matchCode } from '../../src/protocol/match-code.js';
import { renderPreview } from '../../src/client/render-preview.js';

const TOOLS = ['airlock_actions', 'airlock_describe_action', 'airlock_propose', 'airlock_plan', 'airlock_execute', 'airlock_revert', 'airlock_status', 'airlock_cancel', 'airlock_history', 'airlock_doctor', 'airlock_audit_verify'];

/** A token principal (a CI job, an agent in a VM behind a vsock bridge) reaches the daemon over TCP or the token socket. */
const PORT = 30_000 + Math.floor(Math.random() * 20_000);
const TOKEN_SOCKET = '/run/airlock-token.sock';
const ciToken = newToken();
const TOKENS = `[[token]]\nname = "ci"\nrole = "dev"\nunattended = false\nsha256 = "${tokenHash(ciToken).toString('hex')}"\n`;

let w: World;
let alice: Principal;
let agentId: UnixIdentity;
let agent: McpSession, bob: McpSession;
const sessions: McpSession[] = [];
/** Every answer any server gave, to check that no receipt ever reached an agent. */
const seen: CallToolResult[] = [];

async function mcpAs(name: string, groups: string[], args: string[] = [], env: Record<string, string> = { AIRLOCK_SOCKET: w.d.socket }): Promise<McpSession> {
  const identity = (await w.as(name, groups)).identity;
  const s = await startMcp({ identity, insidePid: w.d.box.pid, env, args });
  sessions.push(s);
  return s;
}

before(async () => {
  // The default policy: reads that show nothing sensitive are approved by it.
  w = await startWorld(['--listen-tcp', `127.0.0.1:${PORT}`, '--token-socket', TOKEN_SOCKET], 'overlay', { tokens: TOKENS });
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  // The host's checkpoint file is where this sandbox keeps it: without it the log cannot be verified (fail closed).
  agent = await mcpAs('agent', ['airlock-admin'], ['--checkpoints', w.d.files.checkpoints]);
  agentId = (await w.as('agent', ['airlock-admin'])).identity;
  bob = await mcpAs('bob', ['airlock-admin']);
});
after(async () => {
  for (const s of sessions) await s.close().catch(() => {});
  await w?.close();
});

type Progress = { progress: number; total?: number; message?: string };
async function call(s: McpSession, name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void): Promise<{ r: CallToolResult; out: any; text: string }> {
  const r = (await s.client.callTool({ name, arguments: args }, onprogress ? { onprogress, resetTimeoutOnProgress: true, timeout: 60_000 } : { timeout: 120_000 })) as CallToolResult;
  seen.push(r);
  // MCP_TEST_DUMP=1 prints the text each answer gives the model, to read what an agent is told.
  if (process.env.MCP_TEST_DUMP) process.stderr.write(`--- ${name}\n${(r.content as Array<{ text?: string }>).map((c) => c.text).join('\n')}\n`);
  const text = (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
  return { r, out: r.structuredContent as any, text };
}
const propose = (s: McpSession, steps: Array<{ action_name: string; params: Record<string, unknown> }>, reason?: string) => call(s, 'airlock_propose', { steps, ...(reason ? { reason } : {}) });
const execute = (s: McpSession, steps: Array<{ transaction_id: string; receipt?: string }>, wait?: number, onprogress?: (p: Progress) => void) =>
  call(s, 'airlock_execute', { steps, ...(wait !== undefined ? { wait_for_approval: wait } : {}) }, onprogress);
/** The stored preview, as the approver's own client reads it before approving. */
const previewOf = async (id: string): Promise<PreviewEnvelope> => livePreview(await alice.call('transaction.get', { transaction_id: id }));
const approve = async (id: string) => w.approve(alice, await previewOf(id));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolves once `cond` holds (polled), or fails after ms. */
async function until(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(50);
  }
}
/** Each step proposed on its own (two changes in one call would be one plan): the transaction ids, in order. */
async function proposeEach(s: McpSession, steps: Array<{ action_name: string; params: Record<string, unknown> }>): Promise<string[]> {
  const ids: string[] = [];
  for (const step of steps) ids.push((await propose(s, [step])).out.steps[0].transaction_id);
  return ids;
}
let group = 0;
const newGroup = () => ({ action_name: 'CreateGroup', params: { group: `mcpg${++group}` } });

describe('the tools', () => {
  test('the list is static: every tool has a title, the four hints, an input and an output schema; the workflow resource says the rules', async () => {
    const { tools } = await agent.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
    for (const t of tools) {
      assert.ok(t.title, `${t.name} has a title`);
      assert.equal(typeof t.annotations?.readOnlyHint, 'boolean', t.name);
      assert.equal(typeof t.annotations?.destructiveHint, 'boolean', t.name);
      assert.equal(typeof t.annotations?.idempotentHint, 'boolean', t.name);
      assert.equal(t.annotations?.openWorldHint, false, t.name);
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, `${t.name} takes no unknown argument`);
      assert.equal(t.outputSchema?.type, 'object', `${t.name} has an output schema`);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.equal(byName.get('airlock_execute')!.annotations!.destructiveHint, true);
    for (const ro of ['airlock_actions', 'airlock_describe_action', 'airlock_status', 'airlock_history', 'airlock_doctor', 'airlock_audit_verify']) assert.equal(byName.get(ro)!.annotations!.readOnlyHint, true, ro);
    for (const name of ['airlock_propose', 'airlock_execute', 'airlock_revert']) {
      const d = byName.get(name)!.description!;
      assert.match(d, /never an approval/, name);
      assert.match(d, /never ask the person for a receipt/i, name);
    }
    const res = await agent.client.readResource({ uri: 'airlock://workflow' });
    const text = (res.contents[0] as { text: string }).text;
    assert.match(text, /Show the person/);
    assert.match(text, /never\s+an approval/);
    assert.match(text, /Never ask the person for a receipt/);
  });

  test('the catalogue, from the daemon, with each action\'s schema', async () => {
    const { out } = await call(agent, 'airlock_actions', { family: 'users' });
    assert.ok(out.actions.length > 3);
    assert.ok(out.actions.every((a: { family: string }) => a.family === 'users'));
    const { out: d } = await call(agent, 'airlock_describe_action', { action_name: 'CreateUser' });
    assert.equal(d.risk, 'high');
    assert.equal(d.params_schema.type, 'object');
    const bad = await call(agent, 'airlock_describe_action', { action_name: 'RunShell' });
    assert.equal(bad.r.isError, true);
    assert.equal(bad.out.error.code, 'unknown_action');
  });

  test('a parameter of the wrong type: the step says what it got, and the agent is told the JSON to send', async () => {
    const { out, text } = await propose(agent, [{ action_name: 'ScanSshHostKeys', params: { host: '192.0.2.10', port: '443' } }]);
    const [step] = out.steps;
    assert.equal(step.ok, false);
    assert.match(step.error.message, /parameter `port` got the string "443": a whole number from 1 to 65535/);
    assert.deepEqual(step.error.wrong_types, [{ param: 'port', expected: ['number'], got: 'string', as_json: '443' }]);
    assert.match(text, /\nnext: in params: "port": 443 \(a JSON number, not a string\)/);
    assert.doesNotMatch(text, /--param/, 'no command line for an agent that has none');
  });

  test("a refusal whose hint names a daemon method names the MCP tool, never the CLI's command", async () => {
    // The CLI says `see airlock describe CreateGroup` (test/integration/words.test.ts); a shell-less agent is sent to the tool.
    const { out, text } = await propose(agent, [{ action_name: 'CreateGroup', params: { group: 42 } }]);
    const { out: out2, text: text2 } = await propose(agent, [{ action_name: 'RunShell', params: {} }]);
    const [badParams] = out.steps;
    const [unknown] = out2.steps;
    assert.deepEqual([badParams.ok, badParams.error.code, unknown.ok, unknown.error.code], [false, 'bad_params', false, 'unknown_action']);
    assert.match(badParams.error.message, /invalid parameters for CreateGroup/, "the daemon's reason, word for word");
    assert.match(badParams.error.hint, /^airlock_describe_action with action_name CreateGroup\b/);
    assert.match(unknown.error.hint, /^airlock_actions\b/);
    assert.equal(badParams.error.next, undefined, 'the step is worded, not passed on');
    assert.doesNotMatch(text + text2, /airlock describe|airlock actions/);
    assert.match(text, /next: airlock_describe_action with action_name CreateGroup/);
  });
});

describe('dependent steps are one plan', () => {
  test('CreateGroup deployers, AddUserToGroup alice, AddUserToGroup bob: one plan from airlock_propose, approved once by a person, run as one by airlock_execute', async () => {
    const steps = [
      { action_name: 'CreateGroup', params: { group: 'deployers' } },
      { action_name: 'AddUserToGroup', params: { user: 'alice', group: 'deployers' } },
      { action_name: 'AddUserToGroup', params: { user: 'bob', group: 'deployers' } },
    ];
    const { out, text, r } = await propose(agent, steps);
    assert.notEqual(r.isError, true, text);
    assert.equal(out.steps.length, 1, 'one plan, one transaction');
    const [p] = out.steps;
    assert.deepEqual([p.ok, p.action_name, p.risk], [true, 'Plan', 'high']);
    // Each step previewed against the group the first creates (alone, the second would be no_such_group).
    assert.deepEqual(p.plan.steps.map((s: { summary: string }) => s.summary), ['Create group deployers', 'Add alice to group deployers', 'Add bob to group deployers']);
    assert.deepEqual(p.plan.computed_at_execution, []);
    assert.match(p.plan.digest, /^[0-9a-f]{64}$/);
    assert.deepEqual([p.approval.state, p.approval.command, p.approval.second_factor], ['waiting_for_person', `airlock approve ${p.transaction_id}`, true]);
    assert.match(text, /One plan of 3 dependent steps/);
    assert.match(text, /one approval for all 3 steps of the plan/);
    assert.match(text, new RegExp(`airlock_execute with steps \\[\\{"transaction_id":"${p.transaction_id}"\\}\\]`));
    assert.doesNotMatch(text, /airlock_propose.*again|airlock describe /);
    // The match code the agent is told to give the person is the one the approver's prompt shows for the stored preview.
    assert.equal(p.match_code, matchCode(p.preview_digest));
    assert.ok(text.includes(`Tell the person the match code ${p.match_code}: they see the same code when they approve`), text);
    assert.ok(renderPreview(await previewOf(p.transaction_id)).includes(`match code: ${p.match_code} (`), 'the approver sees the same code');

    // The agent waits in airlock_execute; the person approves the plan ONCE, as themselves, with their code.
    const progress: Progress[] = [];
    const running = execute(agent, [{ transaction_id: p.transaction_id }], 120, (x) => progress.push(x));
    await until(() => progress.length >= 1, 'the agent waits on the plan');
    await approve(p.transaction_id);
    const { out: x, r: raw, text: t } = await running;
    assert.notEqual(raw.isError, true, t);
    assert.equal(x.ok, true);
    assert.deepEqual([x.steps[0].state, x.steps[0].approval.how], ['Succeeded', 'approved']);
    assert.deepEqual(x.steps[0].plan_steps, [
      { step: 1, action_name: 'CreateGroup', state: 'succeeded' },
      { step: 2, action_name: 'AddUserToGroup', state: 'succeeded' },
      { step: 3, action_name: 'AddUserToGroup', state: 'succeeded' },
    ]);
    assert.match(t, /plan step 3 \(AddUserToGroup\): succeeded/);
    const line = ((await w.d.box.readFile('/etc/group')) ?? '').split('\n').find((l) => l.startsWith('deployers:'));
    assert.deepEqual(line?.split(':')[3]?.split(','), ['alice', 'bob'], 'the host has the group with both members');
    // One approval in the signed log for the three changes.
    const rows = [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as { kind: string; transaction_id: string | null });
    assert.equal(rows.filter((e) => e.kind === 'approval_granted' && e.transaction_id === p.transaction_id).length, 1);
    assert.equal(rows.filter((e) => e.kind === 'plan_step' && e.transaction_id === p.transaction_id).length, 3);
  });

  test('airlock_revert: the undo of a finished change, waiting for a person at its risk, run by airlock_execute; a second revert is refused as drifted', async () => {
    const step = newGroup();
    const [id] = await proposeEach(agent, [step]);
    await approve(id!);
    assert.equal((await execute(agent, [{ transaction_id: id! }])).out.steps[0].state, 'Succeeded');
    const rv = await call(agent, 'airlock_revert', { transaction_id: id!, reason: 'the group is not needed after all' });
    const s = rv.out.steps[0];
    assert.equal(s.ok, true, rv.text);
    assert.equal(s.action_name, 'RevertTransaction');
    assert.equal(s.risk, 'medium', 'CreateGroup is Medium: so is its revert');
    assert.equal(s.approval.state, 'waiting_for_person');
    assert.deepEqual(s.rollback, { class: 'exact' });
    assert.match(rv.text, /Revert tx_/);
    await approve(s.transaction_id);
    const done = await execute(agent, [{ transaction_id: s.transaction_id }]);
    assert.equal(done.out.steps[0].state, 'Succeeded', done.text);
    assert.doesNotMatch((await w.d.box.readFile('/etc/group')) ?? '', new RegExp(`^${step.params.group}:`, 'm'));
    const again = await call(agent, 'airlock_revert', { transaction_id: id! });
    assert.equal(again.r.isError, true);
    assert.equal(again.out.error?.code ?? again.out.steps?.[0]?.error?.code, 'drifted', again.text);
  });

  test('a refused plan names its step; a single step stays a step; the plan a second time is a new transaction', async () => {
    const { out, text, r } = await propose(agent, [
      { action_name: 'CreateGroup', params: { group: 'mcpplan2' } },
      { action_name: 'AddUserToGroup', params: { user: 'nobody-here', group: 'mcpplan2' } },
    ]);
    assert.equal(r.isError, true);
    assert.deepEqual([out.steps.length, out.steps[0].ok, out.steps[0].action_name, out.steps[0].error.code], [1, false, 'Plan', 'no_such_user']);
    assert.match(out.steps[0].error.message, /^step 2 \(AddUserToGroup\): /);
    assert.match(text, /The plan was REFUSED by the daemon/);
    const single = await propose(agent, [{ action_name: 'CreateGroup', params: { group: 'mcpplan3' } }]);
    assert.equal(single.out.steps[0].action_name, 'CreateGroup');
    assert.equal(single.out.steps[0].plan, undefined);
  });
});

describe('propose, approve from another account, execute', () => {
  let ids: string[] = [];

  test('a read, a Medium and a High step preview with the daemon\'s risk; a bad step returns its typed error and the others still preview', async () => {
    // A read with one change goes step by step (the policy approves the read); two changes would be one plan, so each change on its own.
    const { out, text, r } = await propose(agent, [{ action_name: 'ListUsers', params: {} }, { action_name: 'CreateUser', params: { user: '; rm -rf /' } }], 'set up a service account');
    const [medium] = (await propose(agent, [newGroup()])).out.steps;
    const { out: h, text: htext } = await propose(agent, [{ action_name: 'CreateUser', params: { user: 'mcpuser' } }]);
    assert.notEqual(r.isError, true);
    const [read, bad] = out.steps;
    const [high] = h.steps;
    assert.deepEqual([read.ok, medium.ok, high.ok, bad.ok], [true, true, true, false]);
    assert.deepEqual([read.risk, medium.risk, high.risk], ['low', 'medium', 'high']);
    assert.equal(read.approval.state, 'approved_by_policy');
    assert.equal(read.approval.rule, 'reads');
    assert.equal(medium.approval.state, 'waiting_for_person');
    assert.equal(medium.approval.command, `airlock approve ${medium.transaction_id}`);
    assert.equal(medium.approval.second_factor, false);
    assert.equal(high.approval.second_factor, true);
    assert.equal(high.min_role, 'admin');
    assert.match(high.requested_by, /^agent\(uid \d+\)$/);
    assert.ok(high.proposed_change.mechanism.length > 0);
    assert.deepEqual([bad.error.category, bad.error.code], ['validation', 'bad_params']);
    assert.equal(out.reason, 'set up a service account');
    assert.match(htext, new RegExp(`airlock approve ${high.transaction_id}`));
    assert.match(htext, /never an approval/);
    assert.match(text, /Step 2: CreateUser was REFUSED/);
    ids = [read.transaction_id, medium.transaction_id, high.transaction_id];
  });

  test('airlock_execute picks the receipts up while it waits, with progress, and runs the steps in order', async () => {
    const progress: Progress[] = [];
    const running = execute(agent, ids.map((transaction_id) => ({ transaction_id })), 120, (p) => progress.push(p));
    // The read ran at once (policy); the agent now waits on the Medium step: a person approves it from their own account.
    await until(() => progress.length >= 1, 'a progress notification while waiting on the Medium step');
    assert.match(progress[0]!.message!, new RegExp(`airlock approve ${ids[1]}`));
    await approve(ids[1]!);
    const seenBefore = progress.length;
    await until(() => progress.some((p, i) => i >= seenBefore && p.message!.includes(ids[2]!)), 'waiting on the High step');
    await approve(ids[2]!); // with alice's authenticator code: High
    const { out, r, text } = await running;
    assert.notEqual(r.isError, true, text);
    assert.equal(out.ok, true);
    assert.deepEqual(out.steps.map((s: { state: string }) => s.state), ['Succeeded', 'Succeeded', 'Succeeded']);
    assert.deepEqual(out.steps.map((s: { approval: { how: string } }) => s.approval.how), ['policy', 'approved', 'approved']);
    assert.match(out.steps[1].approval.approved_by, /^alice\(uid \d+\)$/);
    assert.ok(out.steps[0].output.length > 0, 'the read has output');
    assert.ok(progress.every((p, i) => i === 0 || p.progress >= progress[i - 1]!.progress), 'progress only grows');
    assert.equal((await w.d.box.run('/usr/bin/getent', ['passwd', 'mcpuser'])).code, 0, 'the user exists on the host now');
  });

  test('history and the audit log verified inside the server agree', async () => {
    const { out: h } = await call(agent, 'airlock_history', { limit: 50 });
    const mine = h.transactions.filter((t: { transaction_id: string }) => ids.includes(t.transaction_id));
    assert.deepEqual(mine.map((t: { state: string }) => t.state), ['Succeeded', 'Succeeded', 'Succeeded']);
    const { out: v, text } = await call(agent, 'airlock_audit_verify', {});
    assert.equal(v.status, 'intact', text);
    // The state directory is root's alone: the key came from the daemon, and the report says so.
    assert.equal(v.key.source, 'daemon');
    assert.ok(v.warnings.some((x: string) => x.includes('came from the daemon itself')));
    const rows = [...readSqliteLog(w.d.files.db)].map((r) => JSON.parse(r.body) as { seq: number; kind: string; transaction_id: string | null; details: { state?: string } });
    assert.ok(v.entries <= rows.length && v.entries > 0);
    for (const id of ids) {
      const outcome = rows.find((e) => e.kind === 'outcome' && e.transaction_id === id);
      assert.ok(outcome && outcome.seq <= v.entries, `the log the server verified holds ${id}'s outcome`);
    }
    // With a copy of the key this account can read, the server trusts the file instead.
    const copy = join(w.d.box.shared, 'audit.pub');
    copyFileSync(w.d.files.publicKey, copy);
    chmodSync(copy, 0o644);
    const auditor = await mcpAs('agent', ['airlock-admin'], ['--pubkey', copy, '--checkpoints', w.d.files.checkpoints]);
    const { out: v2 } = await call(auditor, 'airlock_audit_verify', {});
    assert.equal(v2.status, 'intact');
    assert.deepEqual([v2.key.source, v2.key.path], ['file', copy]);
    assert.equal(v2.key.key_id, v.key.key_id);
    // Without --checkpoints the server reads the file the daemon says it writes, not a default path.
    const own = await mcpAs('agent', ['airlock-admin'], ['--pubkey', copy]);
    const { out: v3, text: t3 } = await call(own, 'airlock_audit_verify', {});
    assert.equal(v3.status, 'intact', t3);
    assert.ok(v3.checkpoint, `a checkpoint of the daemon's own file was used: ${t3}`);
    assert.ok(!v3.warnings.some((x: string) => x.includes('cut tail')), t3);
  });
});

describe('receipts the daemon refuses', () => {
  test('forged, other-transaction and replayed receipts fail with the daemon\'s reason, and the receipt is not spent by a failure', async () => {
    const [a, b] = (await proposeEach(agent, [newGroup(), newGroup()])) as [string, string];
    const ga = await approve(a);
    const gb = await approve(b);
    const forged = mintReceipt(signingKeyFromSeed(randomBytes(32)), { transactionId: a, requestHash: ga.request_hash, approver: ga.approved_by, executor: ga.executor, expiresAt: ga.expires_at }).receipt;
    const f = await execute(agent, [{ transaction_id: a, receipt: forged }]);
    assert.equal(f.r.isError, true);
    assert.deepEqual([f.out.steps[0].halt, f.out.steps[0].error.category, f.out.steps[0].error.code], ['refused', 'stale_approval', 'bad_receipt']);
    // The daemon's reason, with a next step for an agent: never "use the receipt printed by airlock approve".
    assert.match(f.out.steps[0].error.message, /not a valid approval/);
    assert.doesNotMatch(f.text, /printed by/);
    assert.match(f.text, /Never ask a person for a receipt/);
    const other = await execute(agent, [{ transaction_id: a, receipt: gb.receipt }, { transaction_id: b }]);
    assert.equal(other.out.steps[0].error.code, 'bad_receipt');
    assert.deepEqual(other.out.not_run, [b], 'it halts at the first failure');
    // Without a receipt the server waits for its own: a is still approved and unspent.
    const ok = await execute(agent, [{ transaction_id: a }, { transaction_id: b }]);
    assert.deepEqual(ok.out.steps.map((s: { state: string }) => s.state), ['Succeeded', 'Succeeded']);
    const replay = await execute(agent, [{ transaction_id: a, receipt: ga.receipt }]);
    assert.equal(replay.out.steps[0].error.code, 'receipt_already_consumed');
  });

  test('a missing receipt: nobody approved (the step waits, cleanly); a policy receipt is held by the daemon, for any server process of the requester', async () => {
    const { out } = await propose(agent, [newGroup()]);
    const id = out.steps[0].transaction_id;
    const none = await execute(agent, [{ transaction_id: id }]);
    assert.notEqual(none.r.isError, true, 'waiting for a person is not an error');
    assert.deepEqual([none.out.ok, none.out.steps[0].halt, none.out.steps[0].state, none.out.steps[0].ran], [false, 'not_approved_yet', 'Previewed', false]);
    assert.match(none.text, new RegExp(`airlock approve ${id}`));
    // A read the policy approved: the daemon holds its receipt for the requester, as it holds a person's approval's,
    // so another server process of the same account (a restarted agent) runs it; another principal cannot.
    const { out: read } = await propose(agent, [{ action_name: 'ListUsers', params: {} }]);
    const id2 = read.steps[0].transaction_id;
    assert.equal(read.steps[0].approval.state, 'approved_by_policy');
    const stranger = await execute(bob, [{ transaction_id: id2 }]);
    assert.equal(stranger.out.steps[0].halt, 'refused', 'only the requester gets the receipt');
    const other = await mcpAs('agent', ['airlock-admin']);
    const r = await execute(other, [{ transaction_id: id2 }]);
    assert.deepEqual([r.out.steps[0].state, r.out.steps[0].ran, r.out.steps[0].approval.how, r.out.steps[0].approval.approved_by], ['Succeeded', true, 'policy', 'policy:reads']);
    assert.equal((await execute(agent, [{ transaction_id: id2 }])).out.steps[0].halt, null, 'it ran once: the proposer sees that it ran before');
  });
});

describe('decisions that reach the waiting agent', () => {
  test('a denial reaches the agent while it waits, with the reason', async () => {
    const [id, next] = (await proposeEach(agent, [newGroup(), newGroup()])) as [string, string];
    const progress: Progress[] = [];
    const running = execute(agent, [{ transaction_id: id }, { transaction_id: next }], 120, (p) => progress.push(p));
    await until(() => progress.length >= 1, 'the agent waits');
    await alice.call('deny', { transaction_id: id, reason: 'not on a Friday' });
    const { out: r, r: raw, text } = await running;
    assert.equal(raw.isError, true);
    assert.deepEqual([r.steps[0].halt, r.steps[0].state, r.steps[0].approval.reason], ['denied', 'Canceled', 'not on a Friday']);
    assert.match(r.steps[0].approval.denied_by, /^alice\(uid \d+\)$/);
    assert.deepEqual(r.not_run, [next]);
    assert.match(text, /not on a Friday/);
    const { out: s } = await call(agent, 'airlock_status', { transaction_id: id });
    assert.deepEqual([s.state, s.deny_reason], ['Canceled', 'not on a Friday']);
  });

  test('a tool call the client canceled runs nothing more: not the step approved just after, not the approved steps after it', async () => {
    const [id, next] = (await proposeEach(agent, [newGroup(), newGroup()])) as [string, string];
    await approve(next); // approved already: it would run at once after the first
    const progress: Progress[] = [];
    const stop = new AbortController();
    const running = agent.client.callTool({ name: 'airlock_execute', arguments: { steps: [{ transaction_id: id }, { transaction_id: next }], wait_for_approval: 120 } }, { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: 60_000, signal: stop.signal });
    await until(() => progress.length >= 1, 'the agent waits on the first step');
    // The person stops the agent (Esc in their client), and an approval lands in the same round of the wait.
    stop.abort();
    await assert.rejects(running);
    await approve(id);
    // Longer than a round of the wait (5 s) and the two steps would take.
    await sleep(8_000);
    const states = await Promise.all([id, next].map(async (t) => (await alice.call('transaction.get', { transaction_id: t })).state));
    assert.deepEqual(states, ['Queued', 'Queued'], 'nothing ran after the call was canceled: the agent would never hear of it');
    for (const t of [id, next]) await alice.call('cancel', { transaction_id: t });
  });

  test('a wait that runs out returns cleanly, and the step can be canceled', async () => {
    const { out } = await propose(agent, [newGroup()]);
    const id = out.steps[0].transaction_id;
    const t0 = Date.now();
    const { out: r, r: raw } = await execute(agent, [{ transaction_id: id }], 2);
    assert.ok(Date.now() - t0 >= 1900 && Date.now() - t0 < 15_000, `returned after ${Date.now() - t0} ms`);
    assert.notEqual(raw.isError, true);
    assert.deepEqual([r.steps[0].halt, r.steps[0].state], ['not_approved_yet', 'Previewed']);
    const { out: c } = await call(agent, 'airlock_cancel', { transaction_id: id });
    assert.equal(c.state, 'Canceled');
    const { out: again } = await execute(agent, [{ transaction_id: id }]);
    assert.equal(again.steps[0].halt, 'canceled');
  });
});

describe('a second principal', () => {
  test("can neither wait on nor execute the agent's transaction", async () => {
    const { out } = await propose(agent, [newGroup()]);
    const id = out.steps[0].transaction_id;
    const g = await approve(id);
    const waited = await execute(bob, [{ transaction_id: id }], 1);
    assert.deepEqual([waited.out.steps[0].halt, waited.out.steps[0].error.code], ['refused', 'not_the_requester']);
    const withReceipt = await execute(bob, [{ transaction_id: id, receipt: g.receipt }]);
    assert.equal(withReceipt.out.steps[0].error.code, 'not_the_requester');
    const { out: s } = await call(bob, 'airlock_status', { transaction_id: id });
    assert.equal(s.state, 'Queued', 'untouched');
    assert.equal((await execute(agent, [{ transaction_id: id }])).out.steps[0].state, 'Succeeded');
  });
});

describe('token principals', () => {
  test('AIRLOCK_SOCKET and AIRLOCK_TOKEN reach the token socket and TCP, as for the CLI: the token names the principal', async () => {
    // An account in no airlock group: on these listeners the token decides, not the kernel's peer credentials.
    const ci = await mcpAs('ci-runner', [], [], { AIRLOCK_SOCKET: TOKEN_SOCKET, AIRLOCK_TOKEN: ciToken });
    const { out } = await propose(ci, [newGroup()]);
    assert.equal(out.steps[0].requested_by, 'token:ci');
    const id = out.steps[0].transaction_id;
    const running = execute(ci, [{ transaction_id: id }], 60, () => {});
    await sleep(300);
    await approve(id);
    assert.equal((await running).out.steps[0].state, 'Succeeded');
    const tcp = await mcpAs('ci-runner', [], [], { AIRLOCK_SOCKET: `tcp:127.0.0.1:${PORT}`, AIRLOCK_TOKEN: ciToken });
    const { out: d } = await call(tcp, 'airlock_doctor', {});
    assert.deepEqual([d.principal.user, d.principal.via, d.principal.role], ['token:ci', 'token', 'dev']);
    assert.equal(d.approvers.known, false, "another host's groups are not read from here");
    const bad = await mcpAs('ci-runner', [], [], { AIRLOCK_SOCKET: `tcp:127.0.0.1:${PORT}`, AIRLOCK_TOKEN: newToken() });
    const refused = await call(bad, 'airlock_history', {});
    assert.deepEqual([refused.r.isError, refused.out.error.code], [true, 'bad_token']);
  });
});

describe('airlock_doctor', () => {
  test('with the daemon: the principal this process is, the policy, the approvers and their factors, the log', async () => {
    const { out, text } = await call(agent, 'airlock_doctor', {});
    assert.equal(out.daemon.reachable, true);
    assert.equal(out.daemon.socket, w.d.socket);
    assert.deepEqual([out.principal.user, out.principal.uid, out.principal.role, out.principal.approver, out.principal.via], ['agent', agentId.uid, 'admin', false, 'unix']);
    assert.match(out.policy.digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(out.approvers.known, true);
    assert.deepEqual(out.approvers.people.find((p: { user: string }) => p.user === 'alice'), { user: 'alice', second_factor: true });
    assert.equal(out.audit.status, 'intact');
    assert.equal(out.ok, true, text);
  });

  test('with the agent in no group: the daemon refuses it, and the doctor says which group to join', async () => {
    const nobody = await mcpAs('nora', []);
    const { out, text } = await call(nobody, 'airlock_doctor', {});
    assert.equal(out.daemon.reachable, true);
    assert.equal(out.principal, null);
    assert.equal(out.daemon.error.code, 'no_role');
    assert.equal(out.ok, false);
    assert.ok(out.fixes.some((f: string) => f.includes('sudo usermod -aG airlock-dev nora')), text);
    const refused = await propose(nobody, [{ action_name: 'ListUsers', params: {} }]);
    assert.equal(refused.r.isError, true);
    assert.equal(refused.out.error.code, 'no_role');
  });
});

describe('no daemon', () => {
  test('the tools list, a call says how to start or reach the daemon, and the doctor says what to fix', async () => {
    const s = await startMcp({ identity: { uid: 65534, gid: 65534, groups: [65534] }, env: { AIRLOCK_SOCKET: '/nonexistent/airlock.sock' } });
    sessions.push(s);
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
    const { r, out, text } = await call(s, 'airlock_propose', { steps: [{ action_name: 'ListUsers', params: {} }] });
    assert.equal(r.isError, true);
    assert.deepEqual([out.error.category, out.error.code], ['transient', 'daemon_unreachable']);
    assert.match(text, /\/nonexistent\/airlock\.sock/);
    assert.match(text, /systemctl start airlock/);
    assert.match(text, /AIRLOCK_SOCKET/);
    const d = await call(s, 'airlock_doctor', {});
    assert.notEqual(d.r.isError, true);
    assert.deepEqual([d.out.daemon.reachable, d.out.principal, d.out.ok], [false, null, false]);
    assert.ok(d.out.fixes.some((f: string) => f.includes('systemctl start airlock')));
  });

  test('the listing tools answer from the built-in catalogue, saying that host support is unknown', async () => {
    const s = await startMcp({ identity: { uid: 65534, gid: 65534, groups: [65534] }, env: { AIRLOCK_SOCKET: '/nonexistent/airlock.sock' } });
    sessions.push(s);
    const all = await call(s, 'airlock_actions', {});
    assert.notEqual(all.r.isError, true);
    assert.equal(all.out.actions.length, (await import('../../src/catalogue/index.js')).CATALOGUE.size, 'every action of the catalogue');
    assert.ok(all.out.actions.every((a: { supported_here: unknown }) => a.supported_here === null));
    assert.match(all.text, /No Airlock daemon answered/);
    const users = await call(s, 'airlock_actions', { family: 'users' });
    assert.ok(users.out.actions.length > 0 && users.out.actions.every((a: { family: string }) => a.family === 'users'));
    const one = await call(s, 'airlock_describe_action', { action_name: 'CreateUser' });
    assert.notEqual(one.r.isError, true);
    assert.deepEqual([one.out.name, one.out.risk, one.out.supported_here], ['CreateUser', 'high', null]);
    assert.equal((one.out.params_schema as { type: string }).type, 'object');
    const none = await call(s, 'airlock_describe_action', { action_name: 'NoSuchAction' });
    assert.equal(none.r.isError, true);
    assert.deepEqual([none.out.error.category, none.out.error.code], ['validation', 'unknown_action']);
  });
});

test('no answer carried a receipt, and none a control character but newline and tab', () => {
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (strings.push(k), walk(x));
  };
  walk(seen);
  assert.ok(strings.length > 100);
  assert.ok(!strings.some((x) => /alr1\./.test(x)), 'a receipt reached an agent');
  assert.deepEqual(strings.filter((x) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(x)), []);
});
