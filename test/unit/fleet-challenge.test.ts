/**
 * What one passkey assertion signs to approve a fleet plan (src/protocol/passkey.ts
 * fleetChallenge): a known answer computed here from the documented bytes, independence from the
 * order the relay lists the entries in, every field of every entry covered, and the lists refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { AirlockError } from '../../src/protocol/errors.js';
import { approvalChallenge, fleetChallenge, MAX_FLEET_HOSTS, type FleetEntry } from '../../src/protocol/passkey.js';

const D1 = 'a'.repeat(64);
const D2 = 'b'.repeat(64);
const web1: FleetEntry = { host: 'web-1', tx: 'tx_000000000000000000000001', preview_digest: D1, expires_at: 1796688000000 };
const web2: FleetEntry = { host: 'web-2', tx: 'tx_000000000000000000000002', preview_digest: D2, expires_at: 1796688060000 };

test('the known answer: SHA-256 of the domain and the canonical JSON of the entries sorted by host, base64url', () => {
  // Written out by hand as docs/protocol.md says, so a change of the format fails here.
  const json =
    '[{"expires_at":1796688000000,"host":"web-1","preview_digest":"' + D1 + '","tx":"tx_000000000000000000000001"},' +
    '{"expires_at":1796688060000,"host":"web-2","preview_digest":"' + D2 + '","tx":"tx_000000000000000000000002"}]';
  const expected = createHash('sha256').update(`airlock-passkey-fleet-v1\0${json}`).digest('base64url');
  assert.equal(fleetChallenge([web1, web2]), expected);
  assert.equal(expected, 'CF5x9tD-TlmB8QXRlH_1zhmp6YFGmaF2YFjROytwvgY');
});

test('the order of the list does not matter; sorting is by code units (upper case before lower), as canonical JSON orders keys', () => {
  assert.equal(fleetChallenge([web2, web1]), fleetChallenge([web1, web2]));
  const many = Array.from({ length: 40 }, (_, i) => ({ host: i % 2 ? `h${i}` : `H${i}`, tx: `tx_${String(i).padStart(24, '0')}`, preview_digest: D1, expires_at: i }));
  const shuffled = [...many].sort(() => Math.random() - 0.5);
  assert.equal(fleetChallenge(shuffled), fleetChallenge(many));
});

test('every field of every entry is covered, and no list is another host set', () => {
  const base = fleetChallenge([web1, web2]);
  const variants: FleetEntry[][] = [
    [web1],
    [web2],
    [web1, { ...web2, host: 'web-3' }],
    [web1, { ...web2, tx: 'tx_000000000000000000000003' }],
    [web1, { ...web2, preview_digest: D1 }],
    [web1, { ...web2, expires_at: web2.expires_at + 1 }],
    [web1, web2, { host: 'web-3', tx: 'tx_000000000000000000000003', preview_digest: D1, expires_at: 1 }],
  ];
  const seen = new Set([base]);
  for (const v of variants) {
    const c = fleetChallenge(v);
    assert.ok(!seen.has(c), JSON.stringify(v));
    seen.add(c);
  }
  // Another domain than a single approval's: a fleet of one is not that transaction's approval.
  assert.notEqual(fleetChallenge([web1]), approvalChallenge(web1.tx, web1.preview_digest, web1.expires_at));
});

test('refused: no entries, too many, a host or a transaction twice, an entry of another shape', () => {
  const refused = (entries: unknown, why: RegExp) =>
    assert.throws(() => fleetChallenge(entries as FleetEntry[]), (e: unknown) => e instanceof AirlockError && e.category === 'validation' && e.code === 'bad_fleet' && why.test(e.message));
  refused([], /no entries/);
  const tooMany = Array.from({ length: MAX_FLEET_HOSTS + 1 }, (_, i) => ({ host: `h${i}`, tx: `tx_${String(i).padStart(24, '0')}`, preview_digest: D1, expires_at: 1 }));
  refused(tooMany, /more than 256/);
  assert.doesNotThrow(() => fleetChallenge(tooMany.slice(0, MAX_FLEET_HOSTS)));
  refused([web1, { ...web2, host: 'web-1' }], /host web-1 is named twice/);
  refused([web1, { ...web2, tx: web1.tx }], /named twice/);
  refused([web1, web1], /named twice/);
  refused([{ ...web1, extra: 1 }], /not \{host/);
  refused([{ host: 'web-1', tx: web1.tx, preview_digest: D1 }], /not \{host/);
  refused([{ ...web1, host: '-web' }], /host/);
  refused([{ ...web1, host: 'web 1' }], /host/);
  refused([{ ...web1, tx: 'tx_1' }], /transaction/);
  refused([{ ...web1, preview_digest: 'A'.repeat(64) }], /digest/);
  refused([{ ...web1, expires_at: '1796688000000' }], /expires_at/);
  refused([{ ...web1, expires_at: 1.5 }], /expires_at/);
  refused('web-1', /no entries/);
  refused([null], /not \{host/);
});
