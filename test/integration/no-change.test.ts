/**
 * "No change" against a real daemon, real users and a real /etc/hosts and authorized_keys:
 * a request whose desired state already holds previews as no change (its own field, in the
 * digest, no mechanism step), the daemon approves it itself under rule "no-change" (at High
 * risk too: nothing runs), execute is Succeeded with changed: false and leaves every byte as
 * it was, and the signed log has the whole door for it. When the host changes between such
 * a preview and its execution so that a change is now needed, the receipt is refused as
 * stale; nothing unseen runs. The CLI shows "ok (no change)" and exits 0.
 */
import type { LogEntry } from '../../src/audit/entry.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { airlockAs } from '../support/cli.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { AutoApprovalGrant, PreviewEnvelope, ResultEnvelope } from '../../src/protocol/messages.js';
import { previewDigestMatches } from '../../src/protocol/hash.js';

type Preview = PreviewEnvelope & { auto_approval?: AutoApprovalGrant };
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d deploy@laptop';
const ENTRY = { ip: '10.254.9.9', names: ['nochange.airlock.test'] };

let w: World;
let agent: Principal;
let human: Principal;
let bot: Principal;
const hostsPath = () => `/proc/${w.d.box.pid}/root/etc/hosts`;

before(async () => {
  w = await startWorld([], 'overlay', { policy: 'unattended = ["cronbot"]\n' });
  agent = await w.as('agent', ['airlock-admin']);
  human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  bot = await w.as('cronbot', ['airlock-admin']);
  assert.equal((await w.d.box.run('/usr/sbin/useradd', ['-m', '--', 'deploy'])).code, 0);
});
after(() => w?.close());

const preview = (who: Principal, action: string, params: Record<string, unknown>): Promise<Preview> => who.call('preview', { action_name: action, params });
const execute = (who: Principal, p: Preview, receipt: string): Promise<ResultEnvelope> => who.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt });

/** What every no-change preview is: said plainly, flagged, nothing to run, and the flag covered by the digest. */
function assertNoChangePreview(p: Preview, reason: RegExp): void {
  assert.equal(p.no_change, true);
  assert.match(p.summary, /^no change: /);
  assert.match(p.summary, reason);
  assert.deepEqual(p.proposed_change.mechanism, []);
  assert.equal(p.proposed_change.change, null);
  const { auto_approval: _grant, ...envelope } = p;
  assert.ok(previewDigestMatches(envelope), 'the digest covers the envelope as sent');
  const { no_change: _flag, ...withoutFlag } = envelope;
  assert.equal(previewDigestMatches(withoutFlag), false, 'dropping the flag breaks the digest');
}

describe('a request whose desired state already holds', () => {
  test('AddHostsEntry: the first time a person approves a change; the same again is no change, approved by the daemon, Succeeded with changed: false', async () => {
    const first = await w.lifecycle(agent, human, 'AddHostsEntry', ENTRY);
    assert.equal(first.p.no_change, undefined);
    assert.equal((first.p as Preview).auto_approval, undefined, 'a real change waits for a person');
    assert.equal(first.r.state, 'Succeeded');
    assert.equal(first.r.changed, true);
    const before = await readFile(hostsPath(), 'utf8');

    const again = await preview(agent, 'AddHostsEntry', ENTRY);
    assertNoChangePreview(again, /already has the line 10\.254\.9\.9\\x09nochange\.airlock\.test/);
    assert.equal(again.auto_approval?.rule, 'no-change');
    assert.equal(again.auto_approval?.approved_by, 'policy:no-change');
    const r = await execute(agent, again, again.auto_approval!.receipt);
    assert.equal(r.state, 'Succeeded');
    assert.equal(r.changed, false);
    assert.equal(r.needs_reboot, false);
    assert.deepEqual(r.output, []);
    assert.equal(await readFile(hostsPath(), 'utf8'), before, 'nothing was written');
  });

  test('the signed log holds the whole door for a no-op: preview, approval by rule no-change (no person), consumed, started with 0 steps, outcome changed: false', async () => {
    const p = await preview(agent, 'AddHostsEntry', ENTRY);
    await execute(agent, p, p.auto_approval!.receipt);
    const mine = await w.entriesOf(p.transaction_id);
    assert.deepEqual(mine.map((e) => e.kind), ['preview', 'approval_granted', 'approval_consumed', 'execution_started', 'outcome']);
    const [shown, granted, , started, outcome] = mine as [LogEntry, LogEntry, LogEntry, LogEntry, LogEntry];
    assert.equal(shown.details.preview_digest, p.preview_digest);
    assert.equal(shown.principal?.user, 'agent', 'the log says who asked');
    assert.equal(granted.details.rule_id, 'no-change');
    assert.equal(granted.principal, null, 'the daemon approved it, not a person');
    assert.equal(started.details.steps, 0);
    assert.equal(outcome.details.state, 'Succeeded');
    assert.equal(outcome.details.changed, false);
  });

  test('a High no-op (AddAuthorizedKey of a key that is there) is approved by the daemon too: nothing runs, so no person and no second factor are at stake', async () => {
    const first = await w.lifecycle(agent, human, 'AddAuthorizedKey', { user: 'deploy', key: KEY });
    assert.equal(first.r.changed, true);
    const keys = `/proc/${w.d.box.pid}/root/home/deploy/.ssh/authorized_keys`;
    const before = await readFile(keys, 'utf8');
    const again = await preview(agent, 'AddAuthorizedKey', { user: 'deploy', key: KEY });
    assert.equal(again.risk, 'high');
    assertNoChangePreview(again, /this key is already in \/home\/deploy\/\.ssh\/authorized_keys/);
    assert.equal(again.auto_approval?.rule, 'no-change');
    const r = await execute(agent, again, again.auto_approval!.receipt);
    assert.equal(r.state, 'Succeeded');
    assert.equal(r.changed, false);
    assert.equal(await readFile(keys, 'utf8'), before);
  });

  test('an unattended principal gets a no-op approved as well (it proposes changes only; this runs nothing)', async () => {
    const p = await preview(bot, 'AddHostsEntry', ENTRY);
    assert.equal(p.unattended, true);
    assert.equal(p.no_change, true);
    assert.equal(p.auto_approval?.rule, 'no-change');
    assert.equal((await execute(bot, p, p.auto_approval!.receipt)).changed, false);
  });

  test('the host changed after a no-change preview so that a change is needed: the receipt is refused as stale and nothing runs', async () => {
    const gone = { ip: '10.254.9.10', name: 'never.airlock.test' };
    const p = await preview(agent, 'RemoveHostsEntry', gone);
    assertNoChangePreview(p, /has no line mapping never\.airlock\.test to 10\.254\.9\.10/);
    // Someone adds the mapping by hand: removing it now would be a change nobody approved.
    const withLine = (await readFile(hostsPath(), 'utf8')) + '10.254.9.10\tnever.airlock.test\n';
    await writeFile(hostsPath(), withLine);
    await rejectsWith(execute(agent, p, p.auto_approval!.receipt), 'stale_approval', 'state_changed');
    assert.equal(await readFile(hostsPath(), 'utf8'), withLine, 'the line is still there');
    // Previewed again, it is a change, and a person decides.
    const now = await preview(agent, 'RemoveHostsEntry', gone);
    assert.equal(now.no_change, undefined);
    assert.equal(now.auto_approval, undefined);
    assert.ok(now.proposed_change.mechanism.length > 0);
  });

  test('the host changed after an approved change so that none is needed: stale too, the approval was for that change', async () => {
    const entry = { ip: '10.254.9.11', names: ['late.airlock.test'] };
    const p = await preview(agent, 'AddHostsEntry', entry);
    const g = await w.approve(human, p);
    await writeFile(hostsPath(), (await readFile(hostsPath(), 'utf8')) + '10.254.9.11\tlate.airlock.test\n');
    await rejectsWith(execute(agent, p, g.receipt), 'stale_approval', 'state_changed');
  });

  test('the CLI: `airlock run` of a no-op says "ok (no change)" and exits 0; --json has changed: false', async () => {
    const text = await airlockAs(agent.identity, w.d.socket, ['run', 'AddHostsEntry', '--params', JSON.stringify(ENTRY)]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^ok \(no change\) no change: \/etc\/hosts already has the line/m);
    assert.match(text.stderr, /no change\s+the desired state already holds: nothing would run/);
    assert.doesNotMatch(text.stderr, /mechanism \(no shell\)/);
    const json = await airlockAs(agent.identity, w.d.socket, ['run', 'AddHostsEntry', '--params', JSON.stringify(ENTRY), '--json']);
    assert.equal(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout) as { preview: Preview; result: ResultEnvelope };
    assert.equal(out.preview.no_change, true);
    assert.equal(out.result.changed, false);
    assert.equal(out.result.state, 'Succeeded');
  });
});
