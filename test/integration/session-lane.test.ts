/**
 * The "this session" lane against a real daemon with real Unix users: alice approves the agent's
 * Medium request with her passkey and lets identical requests through for an hour; the agent's
 * next identical preview comes back approved (a receipt naming alice and the grant), and executes;
 * the log has the grant and each use. A request that differs (another parameter, another
 * requester) waits for a person. `airlock sessions` lists it, `airlock sessions revoke` ends it
 * (a signed entry), and the next identical request waits again.
 *
 * Attacks: an assertion signed for a plain approval presented with a session (or for one length
 * presented with another): refused, nothing approved; a session with a TOTP code; a session on a
 * High change; on root's request; more than 8 hours; a grant whose approver left
 * airlock-approvers approves nothing; a reload ends every grant.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { grantOf } from '../../src/client/client.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { CLI } from '../support/cli.js';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope, PreviewResult } from '../../src/protocol/messages.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { parsePublicKey } from '../../src/audit/keys.js';
import { verifyLog } from '../../src/audit/verify.js';

const APPROVER = ['airlock-admin', 'airlock-approvers'];
let w: World;
let agent: Principal, other: Principal, alice: Principal;
const aliceKey = new SoftAuthenticator();

type Entry = { kind: string; transaction_id: string | null; principal: unknown; details: Record<string, unknown> };
const logEntries = () => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as Entry);

/** A sensitive read (Medium: a person approves it), as an agent asks for it again and again while it works. */
const READ = { action_name: 'ListAuthorizedKeys', params: { user: 'root' } };
const readAs = (who: Principal, user = 'root') => who.call('preview', { ...READ, params: { user } }) as Promise<PreviewResult>;
const options = async (p: PreviewEnvelope, session_minutes?: number) => (await alice.call('passkey.approval_options', { transaction_id: p.transaction_id, ...(session_minutes ? { session_minutes } : {}) })).options;
const approveSession = async (p: PreviewEnvelope, minutes: number, signedMinutes = minutes) =>
  grantOf(await alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, assertion: aliceKey.get(await options(p, signedMinutes)) as never, session_minutes: minutes }));
const stateOf = async (p: PreviewEnvelope) => (await agent.call('transaction.get', { transaction_id: p.transaction_id })).state;

/** `airlock ARGS --json` as `who`, through the real CLI on the daemon's socket. */
function cli(who: UnixIdentity, args: string[]): { status: number; json: unknown; stderr: string } {
  const r = spawnSync('/usr/bin/setpriv', [`--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--', process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', w.d.socket, ...args, '--json'], { encoding: 'utf8', cwd: '/', env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
  let json: unknown = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {}
  return { status: r.status ?? 128, json, stderr: r.stderr + r.stdout };
}

before(async () => {
  w = await startWorld();
  // The keys the read lists, on the overlay (the agent reads root's and alice's).
  for (const home of ['/root', '/home/alice']) {
    const dir = `/proc/${w.d.box.pid}/root${home}/.ssh`;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(`${dir}/authorized_keys`, 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d laptop\n', { mode: 0o600 });
  }
  agent = await w.as('agent', ['airlock-admin']);
  other = await w.as('agent2', ['airlock-admin']);
  alice = await w.as('alice', APPROVER);
  const { options } = await alice.call('passkey.begin', {});
  await alice.call('passkey.register', { response: aliceKey.create(options) as never, name: 'phone', totp_code: await w.codes.code('alice') });
});
after(() => w?.close());

describe('a session grant', () => {
  let grantId: string;

  test("alice approves the agent's read with a one-hour session: its identical next request is approved at once, naming her and the grant, and runs", async () => {
    const first = await readAs(agent);
    assert.equal(first.risk, 'medium');
    assert.equal(first.auto_approval, undefined, 'a sensitive read waits for a person');
    const advice = (await alice.call('transaction.get', { transaction_id: first.transaction_id })).your_approval;
    assert.equal(advice.session_allowed, true);
    const g = await approveSession(first, 60);
    assert.ok(g.session_grant, 'the approval names its grant');
    grantId = g.session_grant!.grant_id;
    const until = Date.parse(g.session_grant!.until);
    assert.ok(Math.abs(until - (Date.now() + 3_600_000)) < 60_000, `the grant ends in an hour: ${g.session_grant!.until}`);

    const again = await readAs(agent);
    assert.ok(again.auto_approval, 'the identical request is approved by the grant');
    assert.equal(again.auto_approval!.rule, 'session');
    assert.equal(again.auto_approval!.session_grant?.grant_id, grantId);
    assert.match(again.auto_approval!.approved_by, /^alice\(uid \d+\)$/);
    const done = await agent.call('execute', { transaction_id: again.transaction_id, action_name: READ.action_name, params: again.params, receipt: again.auto_approval!.receipt });
    assert.equal(done.state, 'Succeeded');

    const entries = logEntries();
    const granted = entries.find((e) => e.kind === 'session_granted');
    assert.equal(granted?.details.grant_id, grantId);
    assert.equal(granted?.transaction_id, first.transaction_id);
    assert.match(String(granted?.details.requester), /^agent\(uid \d+\)$/);
    const use = entries.find((e) => e.kind === 'approval_granted' && e.transaction_id === again.transaction_id);
    assert.equal(use?.details.session_grant, grantId);
    assert.equal(use?.principal, null, 'the daemon approved it, under the grant');
  });

  test('a request that differs waits for a person: other parameters, another requester', async () => {
    const otherParams = await readAs(agent, 'alice');
    assert.equal(otherParams.auto_approval, undefined);
    const otherAgent = await readAs(other);
    assert.equal(otherAgent.auto_approval, undefined);
    assert.equal(await stateOf(otherParams), 'Previewed');
  });

  test('`airlock sessions` lists it for alice; `airlock sessions revoke` ends it with a signed entry, and the next identical request waits', async () => {
    const listed = cli(alice.identity, ['sessions']);
    assert.equal(listed.status, 0, listed.stderr);
    const grants = (listed.json as { grants: Array<{ grant_id: string; uses: number; action_name: string; params: unknown }> }).grants;
    assert.deepEqual(grants.map((g) => [g.grant_id, g.action_name, g.uses, g.params]), [[grantId, READ.action_name, 1, READ.params]]);
    const revoked = cli(alice.identity, ['sessions', 'revoke', grantId]);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal((revoked.json as { uses: number } | null)?.uses, 1, JSON.stringify(revoked));
    const after = await readAs(agent);
    assert.equal(after.auto_approval, undefined, 'revoked: a person decides again');
    const entry = logEntries().find((e) => e.kind === 'session_revoked');
    assert.equal(entry?.details.grant_id, grantId);
    const again = cli(alice.identity, ['sessions', 'revoke', grantId]);
    assert.equal(again.status, 5, 'no such grant in force');
    assert.match(again.stderr + JSON.stringify(again.json), /no_such_session/);
  });
});

describe('what a session cannot be', () => {
  test('an assertion signed for a plain approval, or for another length, grants nothing and approves nothing', async () => {
    const p = await readAs(agent);
    const plain = aliceKey.get(await options(p));
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, assertion: plain as never, session_minutes: 60 }), 'authorization', 'bad_assertion');
    await rejectsWith(approveSession(p, 480, 60), 'authorization', 'bad_assertion');
    assert.equal(await stateOf(p), 'Previewed');
    // And a session's assertion is not a plain approval either.
    const session = aliceKey.get(await options(p, 60));
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, assertion: session as never }), 'authorization', 'bad_assertion');
    assert.equal(await stateOf(p), 'Previewed');
  });

  test('with a TOTP code, on a High change, or longer than 8 hours: refused before anything is spent', async () => {
    const p = await readAs(agent);
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, totp_code: w.codes.freshCode('alice') ?? '000000', session_minutes: 60 }), 'authorization', 'session_needs_passkey');
    await rejectsWith(alice.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, assertion: aliceKey.get(await options(p, 60)) as never, session_minutes: 481 }), 'validation', 'bad_session_minutes');
    const high = await agent.call('preview', { action_name: 'CreateUser', params: { user: 'sessionhigh' } });
    assert.equal((await alice.call('transaction.get', { transaction_id: high.transaction_id })).your_approval.session_allowed, undefined);
    await rejectsWith(approveSession(high, 60), 'authorization', 'session_not_for_high');
    assert.equal(await stateOf(high), 'Previewed');
    assert.equal(await stateOf(p), 'Previewed');
  });

  test("root's request (here, root in alice's own login session) gets no session", async () => {
    const asRoot = await w.rootAs('alice');
    const p = (await asRoot.call('preview', READ)) as PreviewResult;
    await rejectsWith(approveSession(p, 60), 'authorization', 'session_not_for_root');
    assert.equal(await stateOf(p), 'Previewed');
  });

  test('a grant approves nothing once its approver is out of airlock-approvers, and again once back in', async () => {
    const p = await readAs(agent);
    const g = await approveSession(p, 30);
    assert.ok((await readAs(agent)).auto_approval, 'in force');
    const gpasswd = async (flag: string) => assert.equal((await w.d.box.run('/usr/bin/gpasswd', [flag, 'alice', 'airlock-approvers'])).code, 0);
    await gpasswd('-d');
    try {
      assert.equal((await readAs(agent)).auto_approval, undefined, "alice no longer approves: her grant does not either");
    } finally {
      await gpasswd('-a');
    }
    assert.ok((await readAs(agent)).auto_approval, 'her standing is read at each use');
    await alice.call('session.revoke', { grant_id: g.session_grant!.grant_id });
  });

  test('a policy reload ends every grant', async () => {
    const p = await readAs(agent);
    await approveSession(p, 30);
    assert.ok((await readAs(agent)).auto_approval, 'in force');
    await w.reload();
    assert.equal((await readAs(agent)).auto_approval, undefined, 'ended by the reload');
    assert.deepEqual((await alice.call('session.list', {})).grants, []);
  });

  test('the log of all this verifies with the public key alone', async () => {
    const pub = parsePublicKey(readFileSync(w.d.files.publicKey, 'utf8'));
    const report = await verifyLog(readSqliteLog(w.d.files.db), pub, readFileSync(w.d.files.checkpoints, 'utf8'));
    assert.equal(report.status, 'intact');
  });
});
