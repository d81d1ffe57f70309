/**
 * HeldReceipts' bounds: per requester first (a requester's flood costs its own oldest), then all
 * together (the requester holding most loses its oldest), so a requester holding few keeps them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeldReceipts, MAX_HELD_PER_REQUESTER, MAX_HELD_RECEIPTS } from '../../src/daemon/verbs/held-receipts.js';

const user = (uid: number) => ({ requesterUid: uid, requesterPersonUid: uid });
const rootOf = (person: number | null) => ({ requesterUid: 0, requesterPersonUid: person });

test("one requester's flood evicts its own oldest, never another's", () => {
  const h = new HeldReceipts();
  h.hold('victim', user(1001), 'r-victim', 10);
  h.hold('root-alice', rootOf(1001), 'r-root-alice', 10);
  for (let i = 0; i < MAX_HELD_PER_REQUESTER + 5; i++) h.hold(`f${i}`, user(1002), `r${i}`, 10);
  assert.equal(h.get('victim', 0), 'r-victim');
  assert.equal(h.get('root-alice', 0), 'r-root-alice');
  assert.equal(h.get('f0', 0), undefined, "the flooder's oldest went");
  assert.equal(h.get(`f${MAX_HELD_PER_REQUESTER + 4}`, 0), `r${MAX_HELD_PER_REQUESTER + 4}`);
});

test('past the bound for all, the requester holding most loses its oldest', () => {
  const h = new HeldReceipts();
  h.hold('victim', rootOf(null), 'r-victim', 10);
  let n = 0;
  for (let uid = 2000; n < MAX_HELD_RECEIPTS + 10; uid++) for (let i = 0; i < MAX_HELD_PER_REQUESTER && n < MAX_HELD_RECEIPTS + 10; i++, n++) h.hold(`t${n}`, user(uid), `r${n}`, 10);
  assert.equal(h.get('victim', 0), 'r-victim');
  assert.equal(h.get('t0', 0), undefined);
  h.drop('victim');
  h.dropExpired(10);
  assert.equal(h.get(`t${n - 1}`, 0), undefined, 'expired ones are dropped');
});
