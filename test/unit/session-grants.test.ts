/**
 * The "this session" lane's registry (src/daemon/session-grants.ts) on a clock the test moves:
 * a grant matches only the same requester's same request at its risk or lower and never High,
 * ends at its time, by revocation or by a reload (clear); the bounds per approver and in all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_GRANTS, MAX_GRANTS_PER_APPROVER, SessionGrants, type SessionGrant } from '../../src/daemon/session-grants.js';
import { AirlockError } from '../../src/protocol/errors.js';

let now = 1_000_000;
const clock = () => now;
const grant = (over: Partial<SessionGrant> = {}): Omit<SessionGrant, 'uses'> => ({
  id: SessionGrants.newId(),
  approver: 'alice(uid 1001)',
  approverKey: 'alice(uid 1001)',
  requester: 'agent(uid 1002)',
  actionName: 'ListAuthorizedKeys',
  requestHash: 'a'.repeat(64),
  risk: 'medium',
  shownParams: { user: 'root' },
  firstTransaction: 'tx_' + '0'.repeat(24),
  grantedAt: now,
  expiresAt: now + 60_000,
  ...over,
});

test('a grant matches the same requester and request at its risk or lower, never another, never High', () => {
  const g = new SessionGrants(clock);
  const added = g.add(grant());
  assert.equal(g.match('agent(uid 1002)', 'a'.repeat(64), 'medium')?.id, added.id);
  assert.equal(g.match('agent(uid 1002)', 'a'.repeat(64), 'low')?.id, added.id);
  assert.equal(g.match('agent(uid 1002)', 'a'.repeat(64), 'high'), undefined, 'a reload that raised the risk stops it');
  assert.equal(g.match('other(uid 1003)', 'a'.repeat(64), 'medium'), undefined);
  assert.equal(g.match('agent(uid 1002)', 'b'.repeat(64), 'medium'), undefined);
  const high = new SessionGrants(clock);
  high.add(grant({ risk: 'high' }));
  assert.equal(high.match('agent(uid 1002)', 'a'.repeat(64), 'high'), undefined, 'never High, even if one were stored');
});

test('a grant ends at its time, when revoked, and on clear', () => {
  const g = new SessionGrants(clock);
  const a = g.add(grant());
  now += 59_999;
  assert.ok(g.match('agent(uid 1002)', 'a'.repeat(64), 'medium'));
  now += 1;
  assert.equal(g.match('agent(uid 1002)', 'a'.repeat(64), 'medium'), undefined);
  assert.equal(g.revoke(a.id), undefined, 'an expired grant is not in force to revoke');
  const b = g.add(grant({ expiresAt: now + 60_000 }));
  assert.equal(g.revoke(b.id)?.id, b.id);
  assert.equal(g.active().length, 0);
  g.add(grant({ expiresAt: now + 60_000 }));
  assert.equal(g.clear(), 1);
  assert.equal(g.active().length, 0);
});

test('at most MAX_GRANTS_PER_APPROVER per approver and MAX_GRANTS in all', () => {
  const g = new SessionGrants(clock);
  for (let i = 0; i < MAX_GRANTS_PER_APPROVER; i++) g.add(grant({ expiresAt: now + 60_000 }));
  assert.throws(() => g.refuseIfFull('alice(uid 1001)'), (e) => e instanceof AirlockError && e.code === 'too_many_sessions');
  g.refuseIfFull('bob(uid 1004)');
  for (let i = 0; i < MAX_GRANTS - MAX_GRANTS_PER_APPROVER; i++) g.add(grant({ approverKey: `p${i}`, expiresAt: now + 60_000 }));
  assert.throws(() => g.refuseIfFull('bob(uid 1004)'), (e) => e instanceof AirlockError && e.code === 'too_many_sessions');
  now += 60_000;
  g.refuseIfFull('alice(uid 1001)'); // all expired: room again
});

test('grants started at once pass the bound one at a time: the last has no room, and nothing of it is written', async () => {
  const g = new SessionGrants(clock);
  for (let i = 0; i < MAX_GRANTS_PER_APPROVER - 1; i++) g.add(grant({ expiresAt: now + 60_000 }));
  const written: string[] = [];
  const write = (id: string) => async () => {
    await new Promise((r) => setTimeout(r, 5)); // the store's append, with the event loop free meanwhile
    written.push(id);
  };
  const [a, b] = [grant({ expiresAt: now + 60_000 }), grant({ expiresAt: now + 60_000 })];
  const [ra, rb] = await Promise.all([g.start(a, write(a.id)), g.start(b, write(b.id))]);
  assert.equal(ra?.id, a.id);
  assert.equal(rb, undefined);
  assert.deepEqual(written, [a.id]);
  // A failed write starts nothing and does not block the next start.
  const c = new SessionGrants(clock);
  await assert.rejects(c.start(grant({ expiresAt: now + 60_000 }), async () => { throw new Error('disk full'); }), /disk full/);
  assert.ok(await c.start(grant({ expiresAt: now + 60_000 }), async () => {}));
});
