/**
 * log-entry.json: docs/protocol.md §14. Three entries of one log, sealed with the seed-0x01
 * audit key at fixed times; the first two are the vector printed in §14.3. The invalid cases
 * are whole logs (rows as the store keeps them) that verification must report broken at
 * `first_broken_seq`.
 */
import { DOMAIN_CHECKPOINT } from '../../src/audit/domains.js';
import { entryHash, entryMessage, GENESIS_HASH, sealEntry, type EntryDraft, type LogEntry, type SealedEntry } from '../../src/audit/entry.js';
import { ed25519Sign } from '../../src/audit/keys.js';
import type { LogRow } from '../../src/audit/verify.js';
import { canonicalize } from '../../src/protocol/canonical.js';
import { flipAt, flipHex, header, hex, KEY, OTHER_KEY, type FixedKey } from './common.js';
import { opaqueDraft } from '../../test/support/opaque-draft.js';

type OpaqueFields = Parameters<typeof opaqueDraft>[0];

// Fixed entries, of the shapes they had when the vectors were made: a log keeps entries of earlier shapes.
const DRAFTS: [EntryDraft, string][] = ([
  [{ kind: 'daemon_started', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: { version: '0.1.0' } }, '2026-01-01T00:00:00.000Z'],
  [
    {
      kind: 'preview',
      transaction_id: 'tx_000000000000000000000001',
      action_name: 'HostInfo',
      risk: 'low',
      request_hash: 'd42699a682dee55db1d7f4a9baba2c177e24d3dcff463388683443e672e2c6ad',
      principal: { uid: 1001, user: 'agent', role: 'dev' },
      details: { preview_digest: '0'.repeat(64), summary: 'Read /usr/lib/os-release and uname', warnings: [] },
    },
    '2026-01-01T00:00:01.000Z',
  ],
  [
    {
      kind: 'approval_granted',
      transaction_id: 'tx_000000000000000000000001',
      action_name: 'HostInfo',
      risk: 'low',
      request_hash: 'd42699a682dee55db1d7f4a9baba2c177e24d3dcff463388683443e672e2c6ad',
      principal: { uid: 0, user: 'root', role: 'admin', person: 'zoë(uid 1003) via sudo', sudo_uid: 1003, login_uid: null },
      details: { preview_digest: '0'.repeat(64), receipt_commitment: '493f61e61a46dd83cd666d14f854eb7828e82d4856423ec0da5fb3f1f6f788de', executor: 'agent(uid 1001)', receipt_expires_at: '2026-01-01T00:15:00.000Z', second_factor: 'none', self_approval: false },
    },
    '2026-01-01T00:00:03.000Z',
  ],
] as [OpaqueFields, string][]).map(([d, at]) => [opaqueDraft(d), at] as [EntryDraft, string]);

/** The log the vectors share (checkpoint.json covers it too). */
export function sealedLog(k: FixedKey = KEY): { entries: LogEntry[]; sealed: SealedEntry[] } {
  const sealed: SealedEntry[] = [];
  let prev = GENESIS_HASH;
  DRAFTS.forEach(([d, ts], i) => {
    const e = sealEntry(k.key, d, i + 1, prev, new Date(ts));
    sealed.push(e);
    prev = e.hash;
  });
  return { entries: sealed.map((e) => JSON.parse(e.body) as LogEntry), sealed };
}

export const rowsOf = (sealed: SealedEntry[]): LogRow[] => sealed.map((e) => ({ seq: e.seq, body: e.body, sig: e.sig }));

/** A row whose body is signed by `k` under `message`, the way sealEntry would but with one thing wrong. */
const signedRow = (seq: number, body: string, message: Buffer, k: FixedKey = KEY): LogRow => ({ seq, body, sig: ed25519Sign(k.key, message).toString('hex') });

export function logEntryVectors(): unknown {
  const { entries, sealed } = sealedLog();
  const rows = rowsOf(sealed);
  const valid = sealed.map((e, i) => ({ entry: entries[i], body_utf8: e.body, signed_message_hex: hex(entryMessage(e.body)), signature_hex: e.sig, entry_hash: e.hash }));
  const e1 = entries[0]!;
  const e2 = entries[1]!;
  const replace = (i: number, row: LogRow) => rows.map((r, j) => (j === i ? row : r));
  const broken = (name: string, why: string, log: LogRow[], seq: number) => ({ name, why, rows: log, first_broken_seq: seq });
  // Entry 1 in another member order: JSON.stringify keeps insertion order (the draft's), JCS sorts.
  const unsorted = JSON.stringify({ seq: e1.seq, ts: e1.ts, key_id: e1.key_id, prev_hash: e1.prev_hash, kind: e1.kind, transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: e1.details });
  const spaced = JSON.stringify(JSON.parse(sealed[0]!.body), null, 1);
  const otherKey = canonicalize({ ...e1, key_id: OTHER_KEY.key.keyId });
  const e2Unchained = canonicalize({ ...e2, prev_hash: flipHex(e2.prev_hash, 31) });
  const unknownKind = canonicalize({ ...e1, kind: 'daemon_restarted' });
  const invalid = [
    broken('a bit flipped in the signature of entry 2', 'the signature no longer verifies', replace(1, { ...rows[1]!, sig: flipHex(rows[1]!.sig, 0) }), 2),
    broken('a bit flipped in the body of entry 2', '"agent" became "agenu": the signed bytes changed', replace(1, { ...rows[1]!, body: flipAt(rows[1]!.body, 't"},"request_hash"') }), 2),
    broken('entry 1 with its members in another order', 'a body is stored in JCS; the same fields in another order are another text, and the signature is over the text', replace(0, { ...rows[0]!, body: unsorted }), 1),
    broken('entry 1 with whitespace', 'not canonical: edited', replace(0, { ...rows[0]!, body: spaced }), 1),
    broken('entry 2 chained to a hash with one bit flipped', 'validly signed, but its prev_hash is not the hash of entry 1', replace(1, signedRow(2, e2Unchained, entryMessage(e2Unchained))), 2),
    broken('entry 1 signed under the checkpoint domain', 'domain separation: a checkpoint signature never verifies as an entry', replace(0, signedRow(1, rows[0]!.body, Buffer.concat([DOMAIN_CHECKPOINT, Buffer.from(rows[0]!.body)]))), 1),
    broken('entry 1 signed without a domain tag', 'the tag is part of the signed message', replace(0, signedRow(1, rows[0]!.body, Buffer.from(rows[0]!.body))), 1),
    broken('entry 1 signed by another key, which it names', 'its key_id is not the id of the verifying key', replace(0, signedRow(1, otherKey, entryMessage(otherKey), OTHER_KEY)), 1),
    broken('entry 1 signed by another key, naming this one', 'the signature does not verify with this key', replace(0, signedRow(1, rows[0]!.body, entryMessage(rows[0]!.body), OTHER_KEY)), 1),
    broken('entry 1 of an unknown kind', 'validly signed, but not a kind this version knows', replace(0, signedRow(1, unknownKind, entryMessage(unknownKind))), 1),
    broken('entry 1 with its signature in upper-case hex', 'a signature has one spelling: 128 lower-case hex digits', replace(0, { ...rows[0]!, sig: rows[0]!.sig.toUpperCase() }), 1),
    broken('entry 2 deleted', 'sequence numbers have no gaps', [rows[0]!, rows[2]!], 3),
    broken('entries 2 and 3 swapped', 'the row at 2 holds the entry that claims seq 3', [rows[0]!, { ...rows[2]!, seq: 2 }, { ...rows[1]!, seq: 3 }], 2),
  ];
  return {
    ...header('audit log entry', '#14-audit-log-entries'),
    key: KEY.json,
    other_key: OTHER_KEY.json,
    formula: 'body = UTF8(JCS(entry)); sig = hex(Ed25519(audit_key, "airlock/v1/log-entry" 0x00 || body)); entry_hash = hex(SHA-256(body)); entry[1].prev_hash = 64 zeros, entry[n].prev_hash = entry_hash of entry[n-1]',
    genesis_hash: GENESIS_HASH,
    valid,
    log: { rows, entries: rows.length, head_hash: entryHash(rows.at(-1)!.body) },
    invalid,
  };
}
