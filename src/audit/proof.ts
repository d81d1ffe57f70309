/**
 * Proof documents: what `airlock audit prove ID` and `airlock audit consistency OLD NEW` print,
 * and what `airlock audit verify --proof FILE --pubkey FILE` checks offline, with the public key
 * alone. Each is one JSON object holding everything its check needs, byte for byte as signed:
 *
 *   inclusion:   {"type":"airlock-inclusion-proof","version":1,"transaction_id":"tx_...",
 *                 "tree_head":"<signed note>","entries":[{"seq":5,"body":"...","sig":"...","proof":["<base64>",...]}]}
 *   consistency: {"type":"airlock-consistency-proof","version":1,
 *                 "old_head":"<signed note>","new_head":"<signed note>","proof":["<base64>",...]}
 *
 * The daemon that made a document is trusted for nothing: the tree heads must carry the log's
 * signature under a key the auditor holds, every entry its own signature, and the RFC 9162 proofs
 * must lead from the entries (or the old head) to the signed root.
 */
import { entrySignatureValid, type LogEntry } from './entry.js';
import { keyIdOf, publicKeyFromRaw } from './keys.js';
import { leafHash, verifyConsistency, verifyInclusion } from './merkle.js';
import { parseTreeHead, strictBase64, type TreeHead } from './note.js';
import type { ConsistencyProofDoc, InclusionProofDoc, ProvenEntry } from '../protocol/messages.js';

export type { ConsistencyProofDoc, InclusionProofDoc, ProvenEntry };

export const INCLUSION_TYPE = 'airlock-inclusion-proof' as const;
export const CONSISTENCY_TYPE = 'airlock-consistency-proof' as const;
export const PROOF_VERSION = 1 as const;
/** The longest proof a tree of 2^63 leaves needs; anything longer is not a proof. */
const MAX_PROOF_HASHES = 64;
/** One transaction has a handful of entries (preview, approval, consumed, started, outcome...). */
export const MAX_PROVEN_ENTRIES = 64;

export interface ProofCheck {
  status: 'valid' | 'invalid';
  /** What was proven, or why not, in one sentence. */
  summary: string;
  kind: 'inclusion' | 'consistency';
  origin: string | null;
  /** The tree head(s) the proof leads to: size, root (hex), time, the key that signed it. */
  heads: Array<{ size: number; root: string; time: string; key_id: string }>;
  /** For inclusion: the entries proven (seq, kind). */
  entries?: Array<{ seq: number; kind: string }>;
}

export const b64 = (hashes: readonly Buffer[]): string[] => hashes.map((h) => h.toString('base64'));

/**
 * Checks a proof document (parsed JSON of unknown shape) with the auditor's keys (`logKeys`: raw
 * public keys of the log's key chain) and, when given, the log id its heads must name.
 */
export function checkProof(doc: unknown, logKeys: readonly Buffer[], o: { origin?: string } = {}): ProofCheck {
  const d = doc as Record<string, unknown> | null;
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return invalid('inclusion', 'not a proof document (not a JSON object)');
  if (d.type === INCLUSION_TYPE) return checkInclusion(d, logKeys, o);
  if (d.type === CONSISTENCY_TYPE) return checkConsistency(d, logKeys, o);
  return invalid('inclusion', `not a proof document: type ${JSON.stringify(d.type)} (expected ${INCLUSION_TYPE} or ${CONSISTENCY_TYPE})`);
}

function invalid(kind: ProofCheck['kind'], summary: string, origin: string | null = null, heads: ProofCheck['heads'] = []): ProofCheck {
  return { status: 'invalid', summary, kind, origin, heads };
}

const headOut = (h: TreeHead) => ({ size: h.size, root: h.root.toString('hex'), time: h.time, key_id: h.logKeyId });

function readHashes(v: unknown): Buffer[] | string {
  if (!Array.isArray(v)) return 'the proof is not a list of hashes';
  if (v.length > MAX_PROOF_HASHES) return `the proof has ${v.length} hashes; no tree needs more than ${MAX_PROOF_HASHES}`;
  const out: Buffer[] = [];
  for (const h of v) {
    const raw = typeof h === 'string' ? strictBase64(h) : null;
    if (!raw || raw.length !== 32) return 'a proof hash is not base64 of 32 bytes';
    out.push(raw);
  }
  return out;
}

function versionProblem(d: Record<string, unknown>): string | null {
  return d.version === PROOF_VERSION ? null : `a proof of version ${JSON.stringify(d.version)}; this airlock reads version ${PROOF_VERSION}`;
}

function checkInclusion(d: Record<string, unknown>, logKeys: readonly Buffer[], o: { origin?: string }): ProofCheck {
  const v = versionProblem(d);
  if (v) return invalid('inclusion', v);
  if (typeof d.tree_head !== 'string') return invalid('inclusion', 'the proof has no tree head');
  const head = parseTreeHead(d.tree_head, logKeys, o.origin);
  if (typeof head === 'string') return invalid('inclusion', `the tree head does not verify: ${head}`);
  const heads = [headOut(head)];
  const fail = (why: string) => invalid('inclusion', why, head.origin, heads);
  if (typeof d.transaction_id !== 'string' || !Array.isArray(d.entries) || d.entries.length === 0) return fail('the proof names no transaction or holds no entry');
  if (d.entries.length > MAX_PROVEN_ENTRIES) return fail(`the proof holds ${d.entries.length} entries; a transaction has at most ${MAX_PROVEN_ENTRIES}`);
  const byId = new Map(logKeys.map((k) => [keyIdOf(k), k]));
  const proven: Array<{ seq: number; kind: string }> = [];
  for (const e of d.entries as unknown[]) {
    const r = e as Record<string, unknown>;
    if (r === null || typeof r !== 'object' || typeof r.seq !== 'number' || typeof r.body !== 'string' || typeof r.sig !== 'string') return fail('an entry needs seq, body and sig');
    const seq = r.seq;
    let entry: LogEntry;
    try {
      entry = JSON.parse(r.body) as LogEntry;
    } catch {
      return fail(`entry ${seq} is not JSON`);
    }
    if (entry.seq !== seq) return fail(`entry ${seq} claims seq ${entry.seq}`);
    if (entry.transaction_id !== d.transaction_id) return fail(`entry ${seq} is of transaction ${JSON.stringify(entry.transaction_id)}, not ${d.transaction_id}`);
    const key = byId.get(entry.key_id);
    if (!key) return fail(`entry ${seq} is signed by key ${JSON.stringify(entry.key_id)}, which is not among your keys`);
    if (!entrySignatureValid(publicKeyFromRaw(key), r.body, r.sig)) return fail(`entry ${seq}'s signature does not verify: it was altered`);
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > head.size) return fail(`entry ${seq} is not in the tree of size ${head.size}`);
    const proof = readHashes(r.proof);
    if (typeof proof === 'string') return fail(`entry ${seq}: ${proof}`);
    if (!verifyInclusion(seq - 1, head.size, leafHash(r.body), proof, head.root)) return fail(`entry ${seq}'s inclusion proof does not lead to the signed root of size ${head.size}: the entry is not in that log`);
    proven.push({ seq, kind: String(entry.kind) });
  }
  return {
    status: 'valid',
    summary: `${proven.length} entries of ${d.transaction_id} (seq ${proven.map((p) => p.seq).join(', ')}) are in the log ${head.origin} of size ${head.size}, as its tree head of ${head.time} signed by key ${head.logKeyId}`,
    kind: 'inclusion',
    origin: head.origin,
    heads,
    entries: proven,
  };
}

function checkConsistency(d: Record<string, unknown>, logKeys: readonly Buffer[], o: { origin?: string }): ProofCheck {
  const v = versionProblem(d);
  if (v) return invalid('consistency', v);
  if (typeof d.old_head !== 'string' || typeof d.new_head !== 'string') return invalid('consistency', 'the proof needs an old and a new tree head');
  const a = parseTreeHead(d.old_head, logKeys, o.origin);
  if (typeof a === 'string') return invalid('consistency', `the old tree head does not verify: ${a}`);
  const b = parseTreeHead(d.new_head, logKeys, o.origin);
  if (typeof b === 'string') return invalid('consistency', `the new tree head does not verify: ${b}`, a.origin, [headOut(a)]);
  const heads = [headOut(a), headOut(b)];
  const fail = (why: string) => invalid('consistency', why, a.origin, heads);
  if (a.origin !== b.origin) return fail(`the heads are of two logs (${a.origin} and ${b.origin})`);
  if (a.size > b.size) return fail(`the old head (size ${a.size}) is larger than the new one (size ${b.size})`);
  const proof = readHashes(d.proof);
  if (typeof proof === 'string') return fail(proof);
  if (!verifyConsistency(a.size, b.size, proof, a.root, b.root)) return fail(`the tree of size ${b.size} does not extend the tree of size ${a.size}: history between them was rewritten (or the proof is wrong)`);
  return {
    status: 'valid',
    summary: `the log ${a.origin} of size ${b.size} (tree head of ${b.time}) extends its tree of size ${a.size} (tree head of ${a.time}): nothing before entry ${a.size + 1} was changed`,
    kind: 'consistency',
    origin: a.origin,
    heads,
  };
}
