/**
 * The human's policy against a real daemon with real Unix users: reads approved by
 * the daemon, exact rules with cooldown and cap, every auto-approval in the signed log
 * with its rule and the policy digest; an edited policy file changes nothing until
 * root reloads it; unattended principals propose into the inbox and never act; a
 * same-uid agent obtains no receipt through any message; notifications carry no parameters.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { Method } from '../../src/protocol/methods.js';
import type { AutoApprovalGrant, PreviewEnvelope } from '../../src/protocol/messages.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { policyDigest } from '../../src/policy/policy.js';
import { airlock, DAEMON } from '../support/cli.js';
import { livePreview } from '../../src/protocol/compacted.js';

type Preview = PreviewEnvelope & { auto_approval?: AutoApprovalGrant; policy_notes?: string[] };
const POLICY = `unattended = ["cronbot"]
[risk]
ListGroups = "medium"
[[rule]]
id = "web-groups"
action = "CreateGroup"
params = { group = "web-*" }
cooldown_minutes = 60
daily_cap = 1
[[rule]]
id = "ops-groups"
action = "CreateGroup"
params = { group = "ops-*" }
cooldown_minutes = 30
daily_cap = 5

[notify]
command = ["/usr/bin/tee", "--append", "NOTIFY_FILE"]
webhook = "http://127.0.0.1:HOOK_PORT/airlock"
`;

let w: World;
let agent: Principal, alice: Principal, cronbot: Principal;
let policyPath: string, notifyFile: string;
/** A webhook receiver in this process: the overlay daemon shares the host's network. */
const hooked: Array<{ path: string; type: string; body: { pending?: Array<Record<string, string>> } }> = [];
const hook = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d)).on('end', () => {
    hooked.push({ path: req.url ?? '', type: String(req.headers['content-type']), body: JSON.parse(body) });
    res.end('ok');
  });
});
const policyText = () => POLICY.replace('NOTIFY_FILE', notifyFile).replace('HOOK_PORT', String((hook.address() as AddressInfo).port));

before(async () => {
  // The notification file lives in the shared directory, which the sandboxed daemon sees at the same path.
  w = await startWorld([], 'overlay', { policy: '' });
  policyPath = join(w.d.box.shared, 'policy.toml');
  notifyFile = join(w.d.box.shared, 'notify.jsonl');
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  writeFileSync(policyPath, policyText());
  agent = await w.as('agent', ['airlock-admin', 'airlock-approvers']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  cronbot = await w.as('cronbot', ['airlock-dev']);
  await w.reload();
});
after(async () => {
  hook.close();
  await w?.close();
});

const preview = (who: Principal, action: string, params: Record<string, unknown>) => who.call('preview', { action_name: action, params });
const execute = (who: Principal, p: Preview, receipt: string) => who.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt });
const entries = () => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as { kind: string; transaction_id: string | null; principal: { user: string; person?: string } | null; details: Record<string, unknown> });
const DAY_MS = 24 * 60 * 60_000;
/** "HH:MM UTC" (with the date when not today), as the daemon's notes write a time. */
const hhmm = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10) === new Date().toISOString().slice(0, 10) ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;
};
const approvalTime = (id: string) => (entries().find((e) => e.kind === 'approval_granted' && e.transaction_id === id) as unknown as { ts: string }).ts;
const approvalOf = (id: string) => entries().find((e) => e.kind === 'approval_granted' && e.transaction_id === id);

describe('auto-approval', () => {
  test('a non-sensitive read is approved by the daemon, logged with rule "reads" and the policy digest', async () => {
    const p = await preview(agent, 'ListUsers', {});
    assert.ok(p.auto_approval, 'approved by the policy');
    assert.equal(p.auto_approval.rule, 'reads');
    assert.equal(p.auto_approval.approved_by, 'policy:reads');
    const r = await execute(agent, p, p.auto_approval.receipt);
    assert.equal(r.state, 'Succeeded');
    const e = approvalOf(p.transaction_id)!;
    assert.equal(e.details.rule_id, 'reads');
    assert.equal(e.details.policy_digest, policyDigest(readFileSync(policyPath, 'utf8')));
    assert.equal(e.principal, null, 'the daemon approved, not a person');
  });

  test('a read whose risk the policy raised to Medium waits for a person', async () => {
    const p = await preview(agent, 'ListGroups', {});
    assert.equal(p.risk, 'medium');
    assert.equal(p.auto_approval, undefined);
  });

  test('a rule approves exactly what it covers, once per cooldown and cap', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'web-1' });
    assert.equal(p.auto_approval?.rule, 'web-groups');
    assert.equal((await execute(agent, p, p.auto_approval!.receipt)).state, 'Succeeded');
    assert.match((await w.d.box.readFile('/etc/group'))!, /^web-1:/m);
    assert.equal(approvalOf(p.transaction_id)!.details.rule_id, 'web-groups');
    // The cap (1 a day) and the cooldown (60 min) are spent: the next one waits for a person, and the preview says why.
    const again = await preview(agent, 'CreateGroup', { group: 'web-2' });
    assert.equal(again.auto_approval, undefined);
    assert.deepEqual(again.policy_notes, [`policy: rule \`web-groups\` does not approve this: daily cap, 1 of 1 approvals in the last 24 hours, next at ${hhmm(Date.parse(approvalTime(p.transaction_id)) + DAY_MS)}`]);
    // Not covered: another name, or a parameter the rule does not list.
    const other = await preview(agent, 'CreateGroup', { group: 'db-1' });
    assert.equal(other.auto_approval, undefined);
    assert.deepEqual(other.policy_notes, [
      'policy: rule `web-groups` does not approve this: parameter `group` is "db-1", outside "web-*"',
      'policy: rule `ops-groups` does not approve this: parameter `group` is "db-1", outside "ops-*"',
    ]);
  });

  test('a rule inside its cooldown says when it was last used and when it approves again', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'ops-1' });
    assert.equal(p.auto_approval?.rule, 'ops-groups');
    const again = await preview(agent, 'CreateGroup', { group: 'ops-2' });
    assert.equal(again.auto_approval, undefined);
    const next = hhmm(Date.parse(approvalTime(p.transaction_id)) + 30 * 60_000);
    assert.deepEqual(again.policy_notes, [`policy: rule \`ops-groups\` does not approve this: cooldown, last approved less than a minute ago, next at ${next}`]);
  });

  test('a sensitive read is left to a person by the reads rule, and the preview says so', async () => {
    const p = await preview(agent, 'ShowJournaldConfig', {});
    assert.equal(p.auto_approval, undefined);
    assert.deepEqual(p.policy_notes, ['policy: rule `reads` does not approve this: ShowJournaldConfig is a sensitive read (it can show secrets), which a person approves']);
    // A request no rule comes near has no notes at all.
    assert.equal((await preview(agent, 'CreateUser', { user: 'pn1' })).policy_notes, undefined);
  });

  test('a person can still approve what the rule did not', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'db-2' });
    const g = await w.approve(alice, p);
    assert.equal((await execute(agent, p, g.receipt)).state, 'Succeeded');
  });
});

describe('the policy file is the human\'s', () => {
  test('an edited file changes nothing until root reloads it; a non-root reload is refused', async () => {
    const before = (await agent.call('policy.show')).digest;
    writeFileSync(policyPath, policyText().replace('daily_cap = 1', 'daily_cap = 100').replace('cooldown_minutes = 60', 'cooldown_minutes = 0'));
    assert.equal((await preview(agent, 'CreateGroup', { group: 'web-3' })).auto_approval, undefined, 'still the old cap');
    await rejectsWith(agent.call('policy.reload'), 'authorization', 'root_only');
    await rejectsWith(alice.call('policy.reload'), 'authorization', 'root_only');
    assert.equal((await agent.call('policy.show')).digest, before);
    const r = await w.reload();
    assert.equal(r.old_digest, before);
    assert.notEqual(r.new_digest, before);
    const logged = entries().filter((e) => e.kind === 'policy_reloaded').at(-1)!;
    assert.deepEqual([logged.details.old_digest, logged.details.new_digest, logged.principal?.user], [before, r.new_digest, 'root']);
    assert.match(logged.principal?.person ?? '', /^keeper(-\d+)?\(uid \d+\) via login$/);
    assert.equal((await preview(agent, 'CreateGroup', { group: 'web-4' })).auto_approval?.rule, 'web-groups');
  });

  test('root with nobody behind it reloads nothing; an admin approver reloads only with their own code', async () => {
    const before = (await agent.call('policy.show')).digest;
    writeFileSync(policyPath, policyText().replace('daily_cap = 5', 'daily_cap = 6'));
    // Attack: a root process no login session stands behind (a service, a transient unit).
    const nobody = await rejectsWith((await w.root()).call('policy.reload'), 'authorization', 'no_person');
    assert.match(nobody.message, /no sudo user and no login uid/);
    // An admin approver through sudo: their code, checked as an approval code is.
    const asAlice = await w.rootAs('alice');
    await rejectsWith(asAlice.call('policy.reload'), 'authorization', 'totp_required');
    await rejectsWith(asAlice.call('policy.reload', { totp_code: 'abcdef' }), 'authorization', 'totp_invalid');
    // An admin who is no approver, through sudo, has no factor to give: refused before any code.
    await w.as('bert', ['airlock-admin']);
    await rejectsWith((await w.rootAs('bert')).call('policy.reload', { totp_code: '123456' }), 'authorization', 'not_an_admin_approver');
    assert.equal((await agent.call('policy.show')).digest, before);
    const r = await asAlice.call('policy.reload', { totp_code: await w.codes.code('alice') });
    assert.notEqual(r.new_digest, before);
    const logged = entries().filter((e) => e.kind === 'policy_reloaded').at(-1)!;
    assert.equal(logged.principal?.person, `alice(uid ${alice.identity.uid}) via login`);
    writeFileSync(policyPath, policyText());
    await w.reload();
  });

  test('a file the agent owns, or one that lowers a risk, is refused at reload and the old policy stays', async () => {
    const before = (await agent.call('policy.show')).digest;
    writeFileSync(policyPath, '[risk]\nCreateUser = "low"\n');
    await rejectsWith(w.reload(), 'validation', 'policy_invalid');
    writeFileSync(policyPath, 'reads = "auto"\n[[rule]]\nid = "all"\naction = "CreateGroup"\nparams = { group = "x*" }\ncooldown_minutes = 0\ndaily_cap = 100\n');
    chownSync(policyPath, agent.identity.uid, agent.identity.gid);
    await rejectsWith(w.reload(), 'integrity', 'policy_untrusted');
    chownSync(policyPath, 0, 0);
    assert.equal((await agent.call('policy.show')).digest, before);
    writeFileSync(policyPath, policyText());
    await w.reload();
  });
});

describe('a rule the daemon cannot apply is refused everywhere', () => {
  // A list parameter: `names = "rtp*"` was accepted and explained, then never matched a request.
  const ARRAY_RULE = '[[rule]]\nid = "hosts"\naction = "AddHostsEntry"\nparams = { ip = "10.0.0.5", names = "rtp*" }\ncooldown_minutes = 0\ndaily_cap = 5\n';
  const WHY = /params\.names: AddHostsEntry's names is a list/;

  test('policy check exits 5 and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-policy-array-'));
    try {
      const file = join(dir, 'policy.toml');
      writeFileSync(file, ARRAY_RULE);
      const r = await airlock(['policy', 'check', '--file', file]);
      assert.equal(r.code, 5, r.stdout + r.stderr);
      assert.match(r.stderr, WHY);
      const j = JSON.parse((await airlock(['policy', 'check', '--file', file, '--json'])).stdout) as { ok: boolean; error: { message: string } };
      assert.equal(j.ok, false);
      assert.match(j.error.message, WHY);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the daemon refuses to start with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-policy-start-'));
    try {
      const file = join(dir, 'policy.toml');
      writeFileSync(file, ARRAY_RULE, { mode: 0o644 });
      const r = await airlock(['--socket', join(dir, 's.sock'), '--state-dir', join(dir, 'state'), '--log-dir', join(dir, 'log'), '--no-syslog', '--policy', file, '--tokens', join(dir, 'none.toml')], { entry: DAEMON, timeoutMs: 20_000 });
      assert.equal(r.code, 9, r.stderr);
      assert.match(r.stderr, WHY);
      assert.ok(!existsSync(join(dir, 's.sock')), 'it never listened');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a reload with it is refused and the old policy stays', async () => {
    const before = (await agent.call('policy.show')).digest;
    writeFileSync(policyPath, policyText() + ARRAY_RULE);
    try {
      const e = await rejectsWith(w.reload(), 'validation', 'policy_invalid');
      assert.match(e.message, WHY);
      assert.equal((await agent.call('policy.show')).digest, before);
    } finally {
      writeFileSync(policyPath, policyText());
    }
  });
});

describe('unattended principals propose, never act', () => {
  test('a proposal goes to the inbox, no one can approve it, and it never executes', async () => {
    const p = await preview(cronbot, 'CreateGroup', { group: 'nightly' });
    assert.equal(p.unattended, true);
    assert.equal(p.auto_approval, undefined);
    await rejectsWith(w.approve(alice, p), 'authorization', 'unattended_proposal');
    // Root with nobody behind it is no person at all; alice through sudo would meet unattended_proposal as above.
    await rejectsWith((await w.root()).call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization', 'no_person');
    const inbox = await alice.call('inbox');
    assert.ok(inbox.some((t) => t.transaction_id === p.transaction_id && t.state === 'Previewed'));
    await rejectsWith(cronbot.call('inbox'), 'authorization', 'not_an_approver');
    assert.doesNotMatch((await w.d.box.readFile('/etc/group'))!, /^nightly:/m);
  });

  test('even a rule that covers it does not approve it; non-sensitive reads still run', async () => {
    const p = await preview(cronbot, 'CreateGroup', { group: 'web-9' });
    assert.equal(p.auto_approval, undefined, 'rules never approve for an unattended principal');
    assert.ok(p.policy_notes?.includes('policy: rule `web-groups` does not approve this: cronbot is unattended: it proposes, and a person decides'), JSON.stringify(p.policy_notes));
    const read = await preview(cronbot, 'ListUsers', {});
    assert.equal(read.auto_approval?.rule, 'reads');
    assert.equal((await execute(cronbot, read, read.auto_approval!.receipt)).state, 'Succeeded');
  });

  test('a person re-previews a proposal as their own transaction', async () => {
    const proposal = (await alice.call('inbox')).find((t) => t.summary.includes('nightly'))!;
    const t = await alice.call('transaction.get', { transaction_id: proposal.transaction_id });
    const fresh = await preview(agent, livePreview(t).action_name, livePreview(t).params);
    assert.equal(fresh.unattended, undefined);
    const g = await w.approve(alice, fresh);
    assert.equal((await execute(agent, fresh, g.receipt)).state, 'Succeeded');
  });
});

describe('a same-uid agent with a shell obtains no receipt through any message', () => {
  test('self-approval, enrolment, reload, forged and borrowed receipts all fail', async () => {
    const p = await preview(agent, 'CreateUser', { user: 'mallory' });
    assert.equal(p.auto_approval, undefined, 'High is never automatic');
    // The agent runs as an approver here but does not hold that person's authenticator: its own request needs the code.
    await rejectsWith(agent.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest }), 'authorization', 'totp_required');
    await rejectsWith(agent.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: '000000' }), 'authorization', 'totp_invalid');
    await rejectsWith(agent.callUnchecked('totp.enroll', { user: 'agent' }), 'validation', 'bad_params');
    await rejectsWith(agent.call('totp.enroll', {}), 'authorization', 'totp_required'); // replacing its factor needs a current code
    await rejectsWith(agent.call('policy.reload'), 'authorization', 'root_only');
    // A receipt minted for a read does not open the High transaction.
    const read = await preview(agent, 'ListUsers', {});
    await rejectsWith(execute(agent, p, read.auto_approval!.receipt), 'stale_approval');
    await rejectsWith(agent.callUnchecked('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params }), 'stale_approval');
    assert.equal((await agent.call('transaction.get', { transaction_id: p.transaction_id })).state, 'Previewed');
    assert.doesNotMatch((await w.d.box.readFile('/etc/passwd'))!, /^mallory:/m);
  });
});

describe('every message of the protocol, tried by the requester itself', () => {
  let w2: World;
  before(async () => {
    w2 = await startWorld([], 'overlay', { policy: 'reads = "ask"\n' });
  });
  after(() => w2?.close());

  test('no method hands a same-uid agent a receipt for its own request, read or change', async () => {
    // The agent holds every group a person could give it, approvers included.
    const me = await w2.as('agent', ['airlock-admin', 'airlock-approvers']);
    const mine = [await me.call('preview', { action_name: 'ListUsers', params: {} }), await me.call('preview', { action_name: 'CreateGroup', params: { group: 'mine' } }), await me.call('preview', { action_name: 'CreateUser', params: { user: 'mine' } })];
    const answers: unknown[] = [...mine];
    const attempt = async (method: Method, params: Record<string, unknown>) => {
      try {
        answers.push(await me.callUnchecked(method, params));
      } catch (e) {
        answers.push((e as Error).message);
      }
    };
    for (const p of mine) {
      const tx = { transaction_id: p.transaction_id };
      await attempt('approve', { ...tx, preview_digest: p.preview_digest });
      await attempt('approve', { ...tx, preview_digest: p.preview_digest, totp_code: '123456' });
      await attempt('transaction.get', tx);
      await attempt('execute', { ...tx, action_name: p.action_name, params: p.params });
      await attempt('execute', { ...tx, action_name: p.action_name, params: p.params, receipt: '' });
    }
    for (const [method, params] of [['totp.enroll', { user: 'agent' }], ['policy.reload', {}], ['policy.show', {}], ['inbox', {}], ['history', {}], ['actions.list', {}], ['actions.describe', { action_name: 'CreateUser' }], ['audit.pubkey', {}]] as const) await attempt(method, params);
    assert.ok(!JSON.stringify(answers).includes('alr1.'), 'no answer carries a receipt');
    for (const p of mine) assert.equal((await me.call('transaction.get', { transaction_id: p.transaction_id })).state, 'Previewed');
    // Its own requests need its person's code: without one, or with a guess, every approval attempt is refused.
    assert.equal(answers.filter((a) => typeof a === 'string' && /needs the 6-digit code|that code is wrong/.test(a)).length, 6, 'every approval attempt was refused for want of the factor');
  });
});

describe('notifications', () => {
  test('a pending approval and a proposal are announced with summary and risk, never parameters', async () => {
    const p = await preview(agent, 'CreateUser', { user: 'secret-name-42' });
    const q = await preview(cronbot, 'CreateGroup', { group: 'hidden-group-7' });
    let text = '';
    // A requester notified in the last 10 s has this coalesced into its next notification.
    for (let i = 0; i < 150 && !(text.includes(p.transaction_id) && text.includes(q.transaction_id)); i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = readFileSync(notifyFile, 'utf8');
    }
    // One line per notification: a requester's pending events (and others, such as an enrolment, with none).
    const events = text.trim().split('\n').flatMap((l) => (JSON.parse(l) as { pending?: Array<Record<string, string>> }).pending ?? []);
    const pe = events.find((e) => e.transaction_id === p.transaction_id)!;
    assert.deepEqual([pe.event, pe.action, pe.risk], ['pending_approval', 'CreateUser', 'high']);
    assert.equal(events.find((e) => e.transaction_id === q.transaction_id)?.event, 'proposal');
    assert.ok(!('params' in pe));
    // It leads to the decision: the console's page of the transaction, and nothing secret in the link.
    assert.equal(pe.link, `http://localhost:7443/tx/${p.transaction_id}`);
    // The summary is the preview's one line, which may name the user: it is what an approver is told.
    assert.ok(events.every((e) => !JSON.stringify(e).includes('"params"')));
    // The webhook got the same event as JSON.
    const postedEvent = () => hooked.flatMap((h) => (h.body.pending ?? []).map((e) => ({ ...h, event: e }))).find((h) => h.event.transaction_id === q.transaction_id);
    for (let i = 0; i < 150 && !postedEvent(); i++) await new Promise((r) => setTimeout(r, 100));
    const posted = postedEvent()!;
    assert.deepEqual([posted.path, posted.type, posted.event.event, posted.event.risk], ['/airlock', 'application/json', 'proposal', 'medium']);
  });
});
