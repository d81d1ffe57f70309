/**
 * The "this session" lane's registry (src/daemon/session-grants.ts) on a clock the test moves:
 * a grant matches only the same requester's same request at its risk or lower, never High, only
 * while its approver stands as one and when the repeat warns of nothing new; it ends at its time,
 * by revocation or by a reload (clear), and an approval begun before a reload starts none after
 * it. Places are reserved before an approval spends anything: the bounds hold for approvals at
 * once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_GRANTS, MAX_GRANTS_PER_APPROVER, SessionGrants, type SessionGrant } from '../../src/daemon/session-grants.js';
import { AirlockError } from '../../src/protocol/errors.js';

let now = 1_000_000;
const clock = () => now;
let standing = true;
const registry = () => new SessionGrants(clock, () => standing);
const HASH = 'a'.repeat(64);
const AGENT = 'agent(uid 1002)';
const grant = (over: Partial<SessionGrant> = {}): Omit<SessionGrant, 'uses'> => ({
  id: SessionGrants.newId(),
  approver: 'alice(uid 1001)',
  approverKey: 'alice(uid 1001)',
  approverUid: 1001,
  requester: AGENT,
  actionName: 'ListAuthorizedKeys',
  requestHash: HASH,
  risk: 'medium',
  warnings: ['the file is world-readable'],
  shownParams: { user: 'root' },
  firstTransaction: 'tx_' + '0'.repeat(24),
  grantedAt: now,
  expiresAt: now + 60_000,
  ...over,
});
/** A grant put in force the way approve.ts does: a place reserved, the entry written, then activated. */
async function start(g: SessionGrants, over: Partial<SessionGrant> = {}): Promise<SessionGrant> {
  const gr = grant(over);
  return (await g.activate(g.reserve(gr.approverKey), gr, async () => {}))!;
}
const tooMany = (e: unknown) => e instanceof AirlockError && e.code === 'too_many_sessions';

test('a grant matches the same requester and request at its risk or lower, never another, never High', async () => {
  const g = registry();
  const added = await start(g);
  assert.equal(g.match(AGENT, HASH, 'medium', [])?.id, added.id);
  assert.equal(g.match(AGENT, HASH, 'low', [])?.id, added.id);
  assert.equal(g.match(AGENT, HASH, 'high', []), undefined, 'a reload that raised the risk stops it');
  assert.equal(g.match('other(uid 1003)', HASH, 'medium', []), undefined);
  assert.equal(g.match(AGENT, 'b'.repeat(64), 'medium', []), undefined);
  const high = registry();
  await start(high, { risk: 'high' });
  assert.equal(high.match(AGENT, HASH, 'high', []), undefined, 'never High, even if one were stored');
});

test('a repeat that warns of something the first did not, or whose approver no longer stands as one, waits for a person', async () => {
  const g = registry();
  await start(g);
  assert.ok(g.match(AGENT, HASH, 'medium', ['the file is world-readable']), 'the warnings the person saw');
  assert.equal(g.match(AGENT, HASH, 'medium', ['the file is world-readable', 'the key has options']), undefined);
  standing = false;
  try {
    assert.equal(g.match(AGENT, HASH, 'medium', []), undefined, 'out of airlock-approvers, or below the role: no more');
  } finally {
    standing = true;
  }
});

test('a grant ends at its time, when revoked, and on clear; an approval begun before a clear starts none', async () => {
  const g = registry();
  const a = await start(g);
  now += 59_999;
  assert.ok(g.match(AGENT, HASH, 'medium', []));
  now += 1;
  assert.equal(g.match(AGENT, HASH, 'medium', []), undefined);
  assert.equal(g.revoke(a.id), undefined, 'an expired grant is not in force to revoke');
  const b = await start(g, { expiresAt: now + 60_000 });
  assert.equal(g.revoke(b.id)?.id, b.id);
  assert.equal(g.active().length, 0);
  await start(g, { expiresAt: now + 60_000 });
  assert.equal(g.clear(), 1);
  assert.equal(g.active().length, 0);
  // A reload between the reservation and the grant's start: nothing is written, nothing starts.
  const r = g.reserve('alice(uid 1001)');
  g.clear();
  let wrote = false;
  assert.equal(await g.activate(r, grant({ expiresAt: now + 60_000 }), async () => void (wrote = true)), undefined);
  assert.equal(wrote, false);
  // A reload during the write: the grant is not put in force.
  const r2 = g.reserve('alice(uid 1001)');
  assert.equal(await g.activate(r2, grant({ expiresAt: now + 60_000 }), async () => void g.clear()), undefined);
  assert.equal(g.active().length, 0);
});

test('places are reserved before anything is spent: MAX_GRANTS_PER_APPROVER per approver and MAX_GRANTS in all hold for approvals at once', async () => {
  const g = registry();
  for (let i = 0; i < MAX_GRANTS_PER_APPROVER - 1; i++) await start(g, { expiresAt: now + 60_000 });
  const held = g.reserve('alice(uid 1001)'); // an approval under way holds the last place
  assert.throws(() => g.reserve('alice(uid 1001)'), tooMany);
  g.release(held); // it failed: the place comes back
  const again = g.reserve('alice(uid 1001)');
  g.release(again);
  g.release(again); // idempotent
  for (let i = 0; i < MAX_GRANTS - MAX_GRANTS_PER_APPROVER + 1; i++) await start(g, { approverKey: `p${i}`, expiresAt: now + 60_000 });
  assert.throws(() => g.reserve('bob(uid 1004)'), tooMany);
  now += 60_000;
  g.release(g.reserve('alice(uid 1001)')); // all expired: room again
  // A failed write starts nothing and gives the place back.
  const c = registry();
  const r = c.reserve('alice(uid 1001)');
  await assert.rejects(c.activate(r, grant({ expiresAt: now + 60_000 }), async () => { throw new Error('disk full'); }), /disk full/);
  assert.equal(c.active().length, 0);
  for (let i = 0; i < MAX_GRANTS_PER_APPROVER; i++) c.reserve('alice(uid 1001)');
});
