/**
 * The pure parts of the MCP server (src/mcp): output lines as the agent gets them, the
 * waiting loop, who can approve (from the group files and the log), the agent's hints, the approval state of a preview, its match code, escaping of every
 * answer; and the tool list, which is static and served with no daemon (in memory, the
 * SDK's own client).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { MAX_LINE_CHARS, MAX_OUTPUT_LINES, agentLines } from '../../src/mcp/output-lines.js';
import { ROUND_MS, waitForDecision, type Waiter } from '../../src/mcp/approval-wait.js';
import { approversFrom, enrolledFromLog, groupNames } from '../../src/client/approvers.js';
import { parseGroup } from '../../src/protocol/account-files.js';
import { forAgent } from '../../src/mcp/agent-hints.js';
import { enforce, mayRead, type Caller, type TxFacts } from '../../src/daemon/authz.js';
import { noSuchTransaction } from '../../src/daemon/verbs/context.js';
import type { AirlockError } from '../../src/protocol/errors.js';
import { approvalOf, needsSecondFactor, previewedStep, proposalText, stepOut } from '../../src/mcp/tools/propose.js';
import { matchCode } from '../../src/protocol/match-code.js';
import { answer } from '../../src/mcp/tool-result.js';
import { buildServer } from '../../src/mcp/server.js';
import type { PreviewResult, WaitOutcome } from '../../src/protocol/messages.js';

test('output lines: split, capped in number and length, every control character escaped, tabs kept', () => {
  const r = agentLines(['a\tb', 'two\nlines', 'esc \u001b[2J cr\rx', 'x'.repeat(MAX_LINE_CHARS + 10)]);
  assert.deepEqual(r.lines.slice(0, 4), ['a\tb', 'two', 'lines', 'esc \\x1b[2J cr\\x0dx']);
  assert.equal(r.lines[4], 'x'.repeat(MAX_LINE_CHARS) + '…');
  assert.equal(r.truncated, true);
  const many = agentLines(Array.from({ length: MAX_OUTPUT_LINES + 5 }, (_, i) => `l${i}`));
  assert.equal(many.lines.length, MAX_OUTPUT_LINES);
  assert.equal(many.truncated, true);
  assert.deepEqual(agentLines(['ok']), { lines: ['ok'], truncated: false });
  assert.equal(agentLines(['ok'], true).truncated, true, "the daemon's own truncation is kept");
  // A cut never splits a surrogate pair.
  const astral = agentLines(['😀'.repeat(MAX_LINE_CHARS + 1)]).lines[0]!;
  assert.equal(Array.from(astral).length, MAX_LINE_CHARS + 1);
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(astral));
});

/** A waiter on a fake clock: `answers` are the outcomes of successive rounds, each taking the time it was given. */
function fakeWaiter(answers: WaitOutcome[], opts: { early?: boolean; abortAfter?: number } = {}) {
  let now = 0;
  const rounds: number[] = [];
  const progress: number[] = [];
  const slept: number[] = [];
  const w: Waiter = {
    round: async (_id, ms) => {
      rounds.push(ms);
      if (!opts.early) now += ms;
      return answers.shift() ?? { transaction_id: 'tx', outcome: 'pending', expires_at: '' };
    },
    progress: async (_id, waited) => void progress.push(waited),
    now: () => now,
    sleep: async (ms) => void (slept.push(ms), (now += ms)),
    aborted: () => opts.abortAfter !== undefined && rounds.length >= opts.abortAfter,
  };
  return { w, rounds, progress, slept };
}
const pending: WaitOutcome = { transaction_id: 'tx', outcome: 'pending', expires_at: '' };
const approved: WaitOutcome = { transaction_id: 'tx', outcome: 'approved', receipt: 'alr1.x', approved_by: 'alice(uid 1)', expires_at: '' };

test('the wait: rounds of at most ROUND_MS, progress after each pending round, the decision as soon as it comes', async () => {
  const a = fakeWaiter([pending, pending, approved]);
  assert.equal((await waitForDecision(a.w, 'tx', 60_000)).outcome, 'approved');
  assert.deepEqual(a.rounds, [ROUND_MS, ROUND_MS, ROUND_MS]);
  assert.deepEqual(a.progress, [ROUND_MS, 2 * ROUND_MS]);
  // No time to wait: one poll (timeout 0), no progress.
  const b = fakeWaiter([]);
  assert.equal((await waitForDecision(b.w, 'tx', 0)).outcome, 'pending');
  assert.deepEqual([b.rounds, b.progress], [[0], []]);
  // The last round is only what is left; then it ends pending.
  const c = fakeWaiter([]);
  await waitForDecision(c.w, 'tx', 12_000);
  assert.deepEqual(c.rounds, [5_000, 5_000, 2_000]);
  // A daemon that answers pending at once is not asked again in a tight loop.
  const d = fakeWaiter([], { early: true });
  await waitForDecision(d.w, 'tx', 10_000);
  assert.deepEqual(d.slept, [5_000, 5_000]);
  // A canceled tool call stops at the end of its round.
  const e = fakeWaiter([], { abortAfter: 1 });
  await waitForDecision(e.w, 'tx', 60_000);
  assert.equal(e.rounds.length, 1);
  // Denied, expired, canceled, finished end the wait too.
  for (const o of [{ outcome: 'denied', denied_by: 'a', reason: null }, { outcome: 'expired' }, { outcome: 'canceled' }, { outcome: 'finished', state: 'Succeeded' }] as const) {
    const f = fakeWaiter([pending, { transaction_id: 'tx', ...o } as WaitOutcome]);
    assert.equal((await waitForDecision(f.w, 'tx', 60_000)).outcome, o.outcome);
  }
});

test('approvers: from /etc/group (members and primary group), their factors replayed from the log', () => {
  const group = 'root:x:0:\nairlock-admin:x:990:alice,agent\nairlock-approvers:x:991:alice,carol\nbroken line\nstaff:x:50:\n';
  const passwd = 'root:x:0:0::/root:/bin/bash\ndan:x:1004:991::/home/dan:/bin/sh\n';
  assert.deepEqual(approversFrom(group, passwd), ['alice', 'carol', 'dan']);
  assert.equal(approversFrom('root:x:0:\n', passwd), null);
  assert.equal(parseGroup(group).length, 4);
  assert.deepEqual(groupNames(group, [990, 50, 7]), ['airlock-admin', 'staff']);
  const row = (seq: number, kind: string, approver: string) => ({ seq, sig: '', body: JSON.stringify({ kind, details: { approver } }) });
  const rows = [row(1, 'totp_enrolled', 'alice(uid 1001)'), row(2, 'totp_enrolled', 'carol(uid 1002)'), row(3, 'totp_reset', 'carol(uid 1002)'), row(4, 'totp_issued', 'dan(uid 1004)'), { seq: 5, sig: '', body: 'not json' }];
  assert.deepEqual([...enrolledFromLog(rows)], ['alice']);
  assert.deepEqual([...enrolledFromLog([...rows, row(6, 'totp_enrolled', 'carol(uid 1002)')])].sort(), ['alice', 'carol']);
});

test("an agent's hints never send it to ask for a receipt; the daemon's reason is kept", () => {
  const w = { category: 'stale_approval' as const, code: 'bad_receipt', message: 'the receipt is not a valid approval of tx_1', hint: 'use the receipt printed by `airlock approve` for this transaction' };
  const a = forAgent(w);
  assert.equal(a.message, w.message);
  assert.doesNotMatch(a.hint!, /printed by/);
  assert.match(a.hint!, /Never ask a person for a receipt/);
  for (const code of ['receipt_not_held', 'receipt_expired', 'preview_expired', 'state_changed', 'not_approved', 'receipt_already_consumed']) assert.notEqual(forAgent({ ...w, code }).hint, w.hint, code);
  const other = { category: 'authorization' as const, code: 'not_the_requester', message: 'm', hint: 'h' };
  assert.equal(forAgent(other), other);
});

test("a hint that names a daemon method is worded as the MCP tool for it; the method's step is not passed on", () => {
  const w = { category: 'validation' as const, code: 'bad_params', message: 'invalid parameters for CreateGroup: group is text', hint: 'see `airlock describe CreateGroup`', next: { method: 'actions.describe', params: { action_name: 'CreateGroup' } } };
  assert.deepEqual(forAgent(w), { category: 'validation', code: 'bad_params', message: w.message, hint: "airlock_describe_action with action_name CreateGroup gives its parameters' schema and a valid example" });
  assert.match(forAgent({ ...w, code: 'unknown_action', next: { method: 'actions.list', params: {} } }).hint!, /^airlock_actions /);
  // A method with no tool keeps the daemon's hint, without the step the tools' output schemas do not describe.
  assert.deepEqual(forAgent({ ...w, next: { method: 'policy.reload', params: {} } }), { category: 'validation', code: 'bad_params', message: w.message, hint: w.hint });
});

test('a transaction that is unknown, or not the caller\'s to read: the person is sent to `airlock history`, the agent to airlock_history', () => {
  let unknown: AirlockError | undefined;
  try {
    noSuchTransaction('tx_00');
  } catch (e) {
    unknown = e as AirlockError;
  }
  assert.match(unknown!.hint!, /`airlock history`/);
  assert.match(forAgent(unknown!.toWire()).hint!, /^airlock_history /);
  const who = { uid: 1002, user: 'other', role: 'dev', groups: [], approver: false, unattended: false } as unknown as Caller;
  const tx = { id: 'tx_01', requesterUid: 1001, requesterName: 'agent', requesterPersonUid: null } as unknown as TxFacts;
  let notYours: AirlockError | undefined;
  try {
    enforce(mayRead(who, tx));
  } catch (e) {
    notYours = e as AirlockError;
  }
  assert.equal(notYours!.code, 'not_yours');
  assert.match(forAgent(notYours!.toWire()).hint!, /^airlock_history /);
});

test('the approval state of a preview, and when a person needs their code', () => {
  const base = { transaction_id: 'tx_1', risk: 'medium', min_role: 'dev' } as PreviewResult;
  assert.deepEqual(approvalOf(base, { second_factor_from: 'high' }), { state: 'waiting_for_person', who: 'a person in airlock-approvers with role dev or above, as themselves (not this agent\'s account)', command: 'airlock approve tx_1', second_factor: false });
  const high = approvalOf({ ...base, risk: 'high' } as PreviewResult, null);
  assert.equal(high.state === 'waiting_for_person' && high.second_factor, true, 'High needs a code under any policy');
  assert.deepEqual(approvalOf({ ...base, unattended: true } as PreviewResult, null), { state: 'inbox', command: 'airlock inbox run tx_1' });
  const auto = { ...base, auto_approval: { rule: 'reads', approved_by: 'policy:reads', expires_at: 'T', receipt: 'alr1.secret' } } as unknown as PreviewResult;
  const a = approvalOf(auto, null);
  assert.deepEqual(a, { state: 'approved_by_policy', rule: 'reads', approved_by: 'policy:reads', expires_at: 'T' });
  assert.doesNotMatch(JSON.stringify(a), /alr1/, 'the receipt stays in the server');
  const bySession = { ...base, auto_approval: { rule: 'session', approved_by: 'alice(uid 1001)', expires_at: 'T', receipt: 'alr1.secret', session_grant: { grant_id: 'sg_1', until: 'U' } } } as unknown as PreviewResult;
  assert.deepEqual(approvalOf(bySession, null), { state: 'approved_by_session', approved_by: 'alice(uid 1001)', session_grant: 'sg_1', session_until: 'U', expires_at: 'T' });
  assert.deepEqual(['low', 'medium', 'high'].map((r) => needsSecondFactor(r as never, { second_factor_from: 'medium' })), [false, true, true]);
  assert.deepEqual(['low', 'medium', 'high'].map((r) => needsSecondFactor(r as never, { second_factor_from: 'high' })), [false, false, true]);
});

test('a previewed step carries its match code, computed from its digest, and the text tells the agent to give it to the person', () => {
  const digest = 'e'.repeat(64);
  const p = {
    transaction_id: 'tx_' + '1'.repeat(24), action_name: 'CreateGroup', params: { group: 'web' }, request_hash: 'a'.repeat(64), summary: 'Create group web', risk: 'medium', min_role: 'dev',
    current_state: null, proposed_change: { change: null, mechanism: [], digest: 'c'.repeat(64) }, side_effects: [], reboot_required: false, rollback_available: true, warnings: [],
    requested_by: 'agent(uid 1001)', created_at: '2030-01-01T00:00:00.000Z', expires_at: '2030-01-01T00:15:00.000Z', preview_digest: digest,
  } as PreviewResult;
  const step = previewedStep(p, { second_factor_from: 'high' } as never);
  const code = matchCode(digest);
  assert.equal(step.match_code, code);
  assert.ok(stepOut.safeParse(step).success, 'the output schema the tool declares holds it');
  const text = proposalText([step], new Map([[p.transaction_id, p]]), undefined, null);
  assert.ok(text.includes(`match code: ${code} (`), 'in the preview, as the approver sees it');
  assert.ok(text.includes(`Tell the person the match code ${code}: they see the same code when they approve`), text);
  assert.ok(text.includes(`(medium risk, match code ${code})`), 'and in the closing line of what waits');
  // Approved by the policy: nobody approves it, so nothing to tell the person (the preview still shows its code).
  const auto = { ...p, auto_approval: { rule: 'r', approved_by: 'policy:r', expires_at: 'T', receipt: 'alr1.x' } } as unknown as PreviewResult;
  assert.doesNotMatch(proposalText([previewedStep(auto, null)], new Map([[p.transaction_id, auto]]), undefined, null), /Tell the person the match code/);
});

test('every answer is escaped, structured content and text alike', () => {
  const r = answer({ summary: 'x\u001b[31m', list: ['\u202e', 'ok\tok'], nested: { k: '\u0007' } }, 'line\u001b]0;title\u0007\nnext');
  assert.deepEqual(r.structuredContent, { summary: 'x\\x1b[31m', list: ['\\u202e', 'ok\tok'], nested: { k: '\\x07' } });
  assert.equal((r.content[0] as { text: string }).text, 'line\\x1b]0;title\\x07\nnext');
  assert.equal(r.isError, undefined);
  assert.equal(answer({}, '', true).isError, true);
});

test('the tool list is static and needs no daemon; a call without one says how to reach it', async () => {
  const server = buildServer({ target: { socket: '/nonexistent/airlock.sock' }, audit: { publicKeyPath: '/nonexistent/audit.pub', checkpointsPath: '/nonexistent/checkpoints.log' } });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'unit', version: '0' });
  await client.connect(b);
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 11);
    for (const t of tools) {
      assert.match(t.name, /^airlock_[a-z_]+$/);
      assert.ok(t.title && t.description && t.outputSchema, t.name);
      assert.deepEqual(Object.keys(t.annotations ?? {}).sort(), ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint'], t.name);
    }
    // The rules every tool shares are said once, in the instructions the client gives the model with the tool list;
    // again only by the two tools whose call leads to a change, where the model is about to act on them.
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /"yes" is never an approval/);
    assert.match(instructions, /never ask the person for a receipt/i);
    assert.match(instructions, /every Airlock tool/);
    for (const t of tools) {
      const says = /"yes" is never an approval/.test(t.description!) && /never ask the person for a receipt/i.test(t.description!);
      assert.equal(says, ['airlock_propose', 'airlock_execute', 'airlock_revert'].includes(t.name), `${t.name}: the rules are said once, not in every description`);
    }
    const r = await client.callTool({ name: 'airlock_status', arguments: { transaction_id: 'tx_' + '0'.repeat(24) } });
    assert.equal(r.isError, true);
    assert.equal((r.structuredContent as { error: { code: string } }).error.code, 'daemon_unreachable');
    // Inputs are strict: an unknown argument is refused before anything is asked.
    const bad = await client.callTool({ name: 'airlock_history', arguments: { limit: 5, sneaky: true } });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /sneaky/);
  } finally {
    await client.close();
    await server.close();
  }
});
