/**
 * Signed checkpoints: (origin, log size, head hash, time) signed with the audit key
 * under their own domain, written to sinks the store cannot rewrite: an append-only
 * file (chattr +a where the filesystem allows) and the system log. A log shorter
 * than its latest checkpoint, or with a different hash at that size, was cut or
 * rewritten.
 *
 * A checkpoint is one line, the same in the file and in syslog:
 *
 *   airlock-checkpoint <origin> <size> <head_hash> <ts> <sig>
 *
 * The signature covers the checkpoint domain tag and the text between
 * "airlock-checkpoint " and " <sig>", byte for byte as stored. A verifier checks those
 * stored bytes first and only then reads fields out of them; it never rebuilds the text
 * from parsed fields, so no second encoding of a checkpoint exists to disagree about.
 * Each field has one spelling (decimal without leading zeros, lower-case hex,
 * Date.prototype.toISOString), so one checkpoint has exactly one text. Earlier versions
 * wrote JSON and re-canonicalized it to verify; those lines are reported, not read.
 */
import type { KeyObject } from 'node:crypto';
import { DOMAIN_CHECKPOINT } from './domains.js';
import { ed25519Sign, ed25519Verify, keyIdOf, rawPublicKey, SIGNATURE_HEX, type SigningKey } from './keys.js';

export interface Checkpoint {
  origin: string;
  size: number;
  head_hash: string;
  ts: string;
}

export interface SignedCheckpoint {
  checkpoint: Checkpoint;
  /** "<origin> <size> <head_hash> <ts>": what the signature covers after the domain tag, exactly as stored. */
  text: string;
  /** 128 lower-case hex digits. */
  sig: string;
}

/** What starts a checkpoint in a line of the file or of a syslog export. */
export const CHECKPOINT_TAG = 'airlock-checkpoint ';

/** "<host>/airlock/<log id>"; the host is lower case, [a-z0-9.-] only. */
const ORIGIN = /^([a-z0-9.-]{1,253})\/airlock\/([0-9a-f]{16})$/;
const SIZE = /^(0|[1-9][0-9]{0,15})$/;
const HASH = /^[0-9a-f]{64}$/;
const TS = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;

/**
 * The origin names the log a checkpoint is about, as the first line of a C2SP checkpoint
 * does: "<host>/airlock/<log id>". The log id is the key id of the log's first audit key
 * (kept in the state directory's `log-id`; it stays when the key rotates), and is what makes
 * the origin unambiguous: every log has its own first key, created with its store, and a
 * verifier derives the id itself from the key that signed entry 1, so a checkpoint of another
 * log never counts for this one. The
 * host name is for people and for the one case the key id cannot tell apart: a syslog
 * collector gathers checkpoints of many hosts, and a host cloned with its state directory
 * shares its key with the original, so an auditor who knows which host they audit can
 * require its origin exactly (`airlock audit verify --origin`).
 *
 * The host name is taken as the daemon starts. It is lower-cased (DNS names are
 * case-insensitive), and every character outside [a-z0-9.-] becomes "-": the line must
 * cross syslog relays byte for byte (they escape control and non-ASCII bytes), a space
 * would split the line's fields, and a "/" the origin's parts. Two host names that map
 * to the same text still differ by their key id.
 */
export function checkpointOrigin(hostName: string, logId: string): string {
  const host = hostName.toLowerCase().replace(/[^a-z0-9.-]/g, '-').slice(0, 253) || 'unnamed-host';
  const origin = `${host}/airlock/${logId}`;
  if (!ORIGIN.test(origin)) throw new RangeError(`not a log id: ${JSON.stringify(logId)}`);
  return origin;
}

/** What a checkpoint's signature covers: the checkpoint domain tag, then the stored text's bytes. */
export function checkpointMessage(text: string): Buffer {
  return Buffer.concat([DOMAIN_CHECKPOINT, Buffer.from(text, 'utf8')]);
}

/** The one text of a checkpoint; throws for a field that has none (the writer never emits a line the reader refuses). */
export function checkpointText(c: Checkpoint): string {
  const text = `${c.origin} ${c.size} ${c.head_hash} ${c.ts}`;
  const back = parseCheckpointText(text);
  if (!back || back.origin !== c.origin || back.size !== c.size || back.head_hash !== c.head_hash || back.ts !== c.ts) {
    throw new RangeError(`not a valid checkpoint: ${JSON.stringify(c)}`);
  }
  return text;
}

/** Reads the fields out of a checkpoint text, or null unless it is exactly the one text of some checkpoint. */
export function parseCheckpointText(text: string): Checkpoint | null {
  const f = text.split(' ');
  if (f.length !== 4) return null;
  const [origin, size, head, ts] = f as [string, string, string, string];
  if (!ORIGIN.test(origin) || !SIZE.test(size) || !HASH.test(head) || !TS.test(ts)) return null;
  const n = Number(size);
  if (!Number.isSafeInteger(n)) return null;
  const when = new Date(ts);
  if (Number.isNaN(when.getTime()) || when.toISOString() !== ts) return null; // e.g. February 30th
  return { origin, size: n, head_hash: head, ts };
}

export function signCheckpoint(key: SigningKey, origin: string, size: number, headHash: string, now = new Date()): SignedCheckpoint {
  const checkpoint: Checkpoint = { origin, size, head_hash: headHash, ts: now.toISOString() };
  const text = checkpointText(checkpoint);
  return { checkpoint, text, sig: ed25519Sign(key, checkpointMessage(text)).toString('hex') };
}

/** One line of the checkpoint file (and the syslog message body). */
export function formatCheckpointLine(c: SignedCheckpoint): string {
  return `${CHECKPOINT_TAG}${c.text} ${c.sig}`;
}

export type ParsedCheckpoint = { ok: true; value: SignedCheckpoint } | { ok: false; line: number; reason: string };

/**
 * Reads every checkpoint line in a text (a file, or a syslog export: a line counts from
 * "airlock-checkpoint " to its end), checking each signature over the stored bytes with the
 * log's keys and that its origin names the log (and is `origin`, when given).
 *
 * `publicKey`: the log's key, or every key of its chain (a rotated log's checkpoints are signed
 * by the key current when each was written). `logId`: the log's id, the key id of its first
 * audit key, which every origin names; without it, the key id of the first key given.
 */
export function parseCheckpoints(text: string, publicKey: KeyObject | readonly KeyObject[], opts: { origin?: string; logId?: string } = {}): ParsedCheckpoint[] {
  const keys = Array.isArray(publicKey) ? (publicKey as readonly KeyObject[]) : [publicKey as KeyObject];
  if (keys.length === 0) throw new RangeError('no key to check checkpoints with');
  const logId = opts.logId ?? keyIdOf(rawPublicKey(keys[0]!));
  const out: ParsedCheckpoint[] = [];
  text.split('\n').forEach((raw, i) => {
    const at = raw.indexOf(CHECKPOINT_TAG);
    if (at < 0) return;
    const r = readLine(raw.slice(at + CHECKPOINT_TAG.length).replace(/\r$/, ''), keys, logId, opts.origin);
    out.push(typeof r === 'string' ? { ok: false, line: i + 1, reason: r } : { ok: true, value: r });
  });
  return out;
}

/** One checkpoint (the line after its tag), or why it does not count. */
function readLine(rest: string, keys: readonly KeyObject[], logId: string, origin: string | undefined): SignedCheckpoint | string {
  if (rest.startsWith('{')) return 'a JSON checkpoint of an earlier version (not signed over its stored bytes): not read; the next checkpoint covers the whole log';
  const sp = rest.lastIndexOf(' ');
  const text = rest.slice(0, Math.max(sp, 0));
  const sig = rest.slice(sp + 1);
  if (sp < 0 || !SIGNATURE_HEX.test(sig)) return 'malformed checkpoint: it does not end in a signature of 128 lower-case hex digits';
  const message = checkpointMessage(text);
  const sigBytes = Buffer.from(sig, 'hex');
  if (!keys.some((k) => ed25519Verify(k, message, sigBytes))) return `checkpoint signature does not verify with ${keys.length > 1 ? "any of the log's keys" : 'this public key'}`;
  const checkpoint = parseCheckpointText(text);
  if (!checkpoint) return 'malformed checkpoint: not "<origin> <size> <head_hash> <ts>" with each field in its one spelling';
  const names = ORIGIN.exec(checkpoint.origin)![2];
  if (names !== logId) return `checkpoint names another log (${checkpoint.origin}), not the log ${logId}`;
  if (origin !== undefined && checkpoint.origin !== origin) return `checkpoint names another log (${checkpoint.origin}), not ${origin}`;
  return { checkpoint, text, sig };
}
