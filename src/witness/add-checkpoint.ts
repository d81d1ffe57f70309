/**
 * C2SP tlog-witness `add-checkpoint`: the request body, and the witness's decision on it.
 * The checks run in the spec's order and each has its status: 400 malformed, 404 unknown
 * origin, 403 no valid signature of the log's key, 409 old size not the size it last
 * cosigned (the body says that size), 422 a proof that does not verify or a same-size head
 * with another root. Only when all pass is the new head persisted, and then cosigned.
 */
import { cosign, keyHash, parseCheckpointBody, parseNote, strictBase64, strictDecimal, verifyCheckpoint, SIG_ED25519 } from '../audit/note.js';
import type { SigningKey } from '../audit/keys.js';
import { EMPTY_ROOT, verifyConsistency } from '../audit/merkle.js';
import type { WitnessConfig } from './config.js';
import type { WitnessState } from './state.js';

/** The client MUST NOT send more (tlog-witness): 63 hashes prove any tree of up to 2^63 leaves. */
export const MAX_PROOF_LINES = 63;

export interface AddCheckpointRequest {
  oldSize: number;
  proof: Buffer[];
  note: string;
}

/** "old <size>\n", proof lines (base64 of 32 bytes), "\n", then the checkpoint note. */
export function parseAddCheckpoint(body: string): AddCheckpointRequest | string {
  let at = 0;
  const next = (): string | null => {
    const end = body.indexOf('\n', at);
    if (end < 0) return null;
    const line = body.slice(at, end);
    at = end + 1;
    return line;
  };
  const first = next();
  const m = first === null ? null : /^old ([0-9]+)$/.exec(first);
  const oldSize = m ? strictDecimal(m[1]!) : null;
  if (oldSize === null) return 'the body does not start with "old <size>" (a decimal, no leading zero)';
  const proof: Buffer[] = [];
  for (;;) {
    const line = next();
    if (line === null) return 'no blank line between the proof and the checkpoint';
    if (line === '') break;
    if (proof.length === MAX_PROOF_LINES) return `over ${MAX_PROOF_LINES} consistency proof lines`;
    const hash = strictBase64(line);
    if (!hash || hash.length !== 32) return `proof line ${proof.length + 1} is not base64 of a 32-byte hash`;
    proof.push(hash);
  }
  return { oldSize, proof, note: body.slice(at) };
}

export interface WitnessAnswer {
  status: 200 | 400 | 403 | 404 | 409 | 422;
  contentType: string;
  body: string;
}

const answer = (status: WitnessAnswer['status'], body: string): WitnessAnswer => ({ status, contentType: 'text/plain; charset=utf-8', body: body + '\n' });

/** A lock per origin: a request's check and its commit happen with no other request of that log between. */
export class OriginLocks {
  private readonly tails = new Map<string, Promise<unknown>>();
  async run<T>(origin: string, f: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(origin) ?? Promise.resolve();
    const mine = prev.then(f, f);
    const tail = mine.catch(() => undefined);
    this.tails.set(origin, tail);
    try {
      return await mine;
    } finally {
      // The map holds only logs with requests in flight (bounded by the connections).
      if (this.tails.get(origin) === tail) this.tails.delete(origin);
    }
  }
}

export interface Witness {
  config: WitnessConfig;
  key: SigningKey;
  state: WitnessState;
  locks: OriginLocks;
  now?: () => Date;
}

export async function addCheckpoint(w: Witness, body: string): Promise<WitnessAnswer> {
  const req = parseAddCheckpoint(body);
  if (typeof req === 'string') return answer(400, req);
  const note = parseNote(req.note);
  if (typeof note === 'string') return answer(400, `the checkpoint: ${note}`);
  const cp = parseCheckpointBody(note.body);
  if (typeof cp === 'string') return answer(400, `the checkpoint: ${cp}`);
  const log = w.config.logs.get(cp.origin);
  if (!log) return answer(404, 'this witness does not witness that log (unknown origin)');
  const v = verifyCheckpoint(req.note, log.keys, log.origin);
  if (typeof v === 'string') return answer(403, v);
  if (req.oldSize > cp.size) return answer(400, `old size ${req.oldSize} is larger than the checkpoint's size ${cp.size}`);
  return w.locks.run(log.origin, async () => {
    const last = w.state.get(log.origin);
    const lastSize = last?.size ?? 0;
    if (req.oldSize !== lastSize) return { status: 409, contentType: 'text/x.tlog.size', body: `${lastSize}\n` };
    if (cp.size === 0 && !cp.root.equals(EMPTY_ROOT)) return answer(422, 'a checkpoint of size 0 has the root of the empty tree');
    if (req.oldSize === 0) {
      if (req.proof.length !== 0) return answer(422, 'old size 0 takes no consistency proof');
    } else if (req.oldSize === cp.size) {
      if (!cp.root.equals(last!.root) || req.proof.length !== 0) return answer(422, `the root at size ${cp.size} is not the one this witness cosigned: a fork`);
    } else if (!verifyConsistency(req.oldSize, cp.size, req.proof, last!.root, cp.root)) {
      return answer(422, `the consistency proof from size ${req.oldSize} to ${cp.size} does not verify: the log does not extend the head this witness cosigned`);
    }
    const now = (w.now ?? (() => new Date()))();
    const line = cosign(w.key, w.config.name, note.body, now);
    const logLine = note.signatures.find((s) => s.name === log.origin && s.keyHash.equals(keyHash(log.origin, SIG_ED25519, log.keys[v.keyIndex]!)))!;
    // Persisted before the answer: a restart must remember this head.
    await w.state.commit(log.origin, { size: cp.size, root: cp.root, note: `${note.body}\n${logLine.line}\n${line}` });
    return { status: 200, contentType: 'text/plain; charset=utf-8', body: line };
  });
}
