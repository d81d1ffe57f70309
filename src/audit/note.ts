/**
 * Signed notes (C2SP signed-note), the log's tree heads as C2SP tlog-checkpoint notes, and
 * witness cosignatures (C2SP tlog-cosignature, Ed25519 "cosignature/v1").
 *
 * A tree head leaves the host (file, syslog, witness, PostgreSQL) as text anyone's
 * transparency-log tooling can read, so every reader here treats the text as hostile:
 * one spelling per field (strict base64, decimal without leading zeros), a bound on size
 * and on the number of signature lines, and a signature line is trusted only when its
 * (name, key hash) pair belongs to a key the caller configured AND its signature verifies.
 * Lines of unknown keys are kept (a witness's cosignature rides along) but never trusted.
 */
import { createHash } from 'node:crypto';
import { AirlockError } from '../protocol/errors.js';
import { ed25519Sign, ed25519Verify, keyIdOf, publicKeyFromRaw, type SigningKey } from './keys.js';

/** Signature type bytes (signed-note "Signature types"). */
export const SIG_ED25519 = 0x01;
export const SIG_COSIGNATURE_V1 = 0x04;

/** A note, signatures included, is at most this many bytes (the spec asks verifiers for a bound). */
export const MAX_NOTE_BYTES = 32 * 1024;
/** At most this many signature lines; the spec asks verifiers to accept at least 16. */
export const MAX_SIGNATURES = 64;
/** A one-line tree head (treeHeadLine) longer than this is refused before it is decoded. */
export const MAX_TREE_HEAD_LINE = 64 * 1024;

const EM_DASH = '\u2014';
/** What begins the one-line form of a tree head (treeHeadLine), wherever such a line is read. */
export const TREE_HEAD_TAG = 'airlock-tree-head ';
const LINE_PREFIX = TREE_HEAD_TAG;
/** Key names: non-empty, no Unicode space, no "+", no control character (signed-note "Format"). */
const KEY_NAME = /^[^\s+\p{Cc}\p{Zs}]+$/u;
const DECIMAL = /^(?:0|[1-9][0-9]{0,15})$/;
/** A string that UTF-8 cannot encode (Node 20's lib has no String.isWellFormed). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Standard base64 (RFC 4648 section 4) in its one canonical spelling, or null. */
export function strictBase64(text: string): Buffer | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

/** A decimal with no leading zero, within the safe integers (a bigger size is refused, not rounded). */
export function strictDecimal(text: string): number | null {
  if (!DECIMAL.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** SHA-256(name || "\n" || type || public key)[:4]: the key hash every signature line starts with. */
export function keyHash(name: string, type: number, publicRaw: Buffer): Buffer {
  return createHash('sha256').update(Buffer.concat([Buffer.from(name + '\n', 'utf8'), Buffer.from([type]), publicRaw])).digest().subarray(0, 4);
}

/**
 * Building a KeyObject from raw bytes costs about as much as a verify; a reader checks many
 * notes against the same few keys. Bounded: cleared when full.
 */
const keyObjects = new Map<string, ReturnType<typeof publicKeyFromRaw>>();
function keyObject(raw: Buffer): ReturnType<typeof publicKeyFromRaw> {
  const id = raw.toString('hex');
  let k = keyObjects.get(id);
  if (!k) {
    if (keyObjects.size >= 64) keyObjects.clear();
    k = publicKeyFromRaw(raw);
    keyObjects.set(id, k);
  }
  return k;
}

// ---------------------------------------------------------------------------------------------
// Verifier keys: "<name>+<hex key hash>+<base64(type || public key)>"

export interface Vkey {
  name: string;
  type: number;
  keyHash: Buffer;
  publicRaw: Buffer;
}

/** The vkey of a log key (type 0x01, the default) or of a witness key (SIG_COSIGNATURE_V1). */
export function formatVkey(name: string, publicRaw: Buffer, type: number = SIG_ED25519): string {
  if (!KEY_NAME.test(name)) throw new AirlockError('validation', 'bad_key_name', `key name ${JSON.stringify(name)} is empty or holds a space or "+"`);
  if (publicRaw.length !== 32) throw new AirlockError('validation', 'bad_pubkey', 'an Ed25519 public key is exactly 32 bytes');
  return `${name}+${keyHash(name, type, publicRaw).toString('hex')}+${Buffer.concat([Buffer.from([type]), publicRaw]).toString('base64')}`;
}

/** A witness's vkey: its Ed25519 key under the cosignature/v1 type byte. */
export const formatWitnessVkey = (name: string, publicRaw: Buffer): string => formatVkey(name, publicRaw, SIG_COSIGNATURE_V1);

/**
 * Parses a vkey of an Ed25519 key (type 0x01 or 0x04; `types` narrows it). The key hash in
 * the text must be the one the name and key give: a vkey whose parts disagree is a typo or a
 * forgery, and is refused either way.
 */
export function parseVkey(text: string, types: readonly number[] = [SIG_ED25519, SIG_COSIGNATURE_V1]): Vkey {
  const bad = (why: string) => new AirlockError('validation', 'bad_vkey', `verifier key ${JSON.stringify(text.slice(0, 200))}: ${why}`, 'a vkey reads "<name>+<8 hex>+<base64>"; print it with `airlock witness key` or `airlock audit pubkey`');
  const parts = text.trim().split('+');
  // base64 may itself hold "+": the name and the hash take the first two parts, the rest is the key.
  if (parts.length < 3) throw bad('it has fewer than three "+"-separated parts');
  const [name, hashHex] = parts as [string, string];
  const material = strictBase64(parts.slice(2).join('+'));
  if (!KEY_NAME.test(name)) throw bad('the name is empty or holds a space');
  if (!/^[0-9a-f]{8}$/.test(hashHex)) throw bad('the key hash is not 8 lower-case hex digits');
  if (!material || material.length !== 33) throw bad('the key is not base64 of a type byte and 32 bytes');
  const type = material[0]!;
  if (!types.includes(type)) throw bad(`signature type 0x${type.toString(16).padStart(2, '0')} is not one accepted here`);
  const publicRaw = Buffer.from(material.subarray(1));
  publicKeyFromRaw(publicRaw);
  const expected = keyHash(name, type, publicRaw);
  if (!expected.equals(Buffer.from(hashHex, 'hex'))) throw bad('the key hash does not match the name and key');
  return { name, type, keyHash: expected, publicRaw };
}

// ---------------------------------------------------------------------------------------------
// Signed notes

export interface SignatureLine {
  name: string;
  keyHash: Buffer;
  /** The bytes after the key hash. */
  sig: Buffer;
  /** The line as it was, without its newline. */
  line: string;
}

export interface Note {
  /** The text signed: every line up to the separating blank line, its final newline included. */
  body: string;
  signatures: SignatureLine[];
}

/**
 * Splits a signed note into body and signature lines, checking only the form: nothing here
 * is verified. Returns a reason string when the note is malformed.
 */
export function parseNote(text: string): Note | string {
  if (Buffer.byteLength(text, 'utf8') > MAX_NOTE_BYTES) return `the note is over ${MAX_NOTE_BYTES} bytes`;
  if (LONE_SURROGATE.test(text)) return 'the note is not valid UTF-8';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(text)) return 'the note holds a control character other than newline';
  if (!text.endsWith('\n')) return 'the note does not end in a newline';
  const split = text.lastIndexOf('\n\n');
  if (split < 0) return 'the note has no blank line before its signatures';
  const body = text.slice(0, split + 1);
  const sigLines = text.slice(split + 2, -1).split('\n');
  if (sigLines.length > MAX_SIGNATURES) return `the note has over ${MAX_SIGNATURES} signature lines`;
  const signatures: SignatureLine[] = [];
  const seen = new Set<string>();
  for (const line of sigLines) {
    const s = parseSignatureLine(line);
    if (typeof s === 'string') return s;
    // Two lines of one key would let a reader pick the one it likes; a note has one of each.
    const id = `${s.name}+${s.keyHash.toString('hex')}`;
    if (seen.has(id)) return `key ${s.name} signs the note twice`;
    seen.add(id);
    signatures.push(s);
  }
  return { body, signatures };
}

/** One "— <name> <base64(key hash || signature)>" line, without its newline. */
export function parseSignatureLine(line: string): SignatureLine | string {
  const m = /^\u2014 ([^ ]+) ([^ ]+)$/u.exec(line);
  if (!m) return `line ${JSON.stringify(line.slice(0, 80))} is not a signature line`;
  const name = m[1]!;
  const raw = strictBase64(m[2]!);
  if (!KEY_NAME.test(name)) return `signature line of ${JSON.stringify(name.slice(0, 80))}: the key name holds a space or "+"`;
  if (!raw || raw.length < 5) return `signature line of ${name}: the signature is not base64 of a key hash and a signature`;
  return { name, keyHash: Buffer.from(raw.subarray(0, 4)), sig: Buffer.from(raw.subarray(4)), line };
}

export const signatureLine = (name: string, hash: Buffer, sig: Buffer): string => `${EM_DASH} ${name} ${Buffer.concat([hash, sig]).toString('base64')}\n`;

// ---------------------------------------------------------------------------------------------
// tlog-checkpoint

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  extensions: string[];
}

/** The note text of a checkpoint: origin, size, root hash, then non-empty extension lines. */
export function parseCheckpointBody(body: string): Checkpoint | string {
  const lines = body.split('\n');
  if (lines.pop() !== '') return 'the checkpoint text does not end in a newline';
  if (lines.length < 3) return 'a checkpoint has an origin, a size and a root hash line';
  const [origin, sizeText, rootText, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin === '') return 'the origin line is empty';
  const size = strictDecimal(sizeText);
  if (size === null) return `size ${JSON.stringify(sizeText.slice(0, 40))} is not a decimal with no leading zero`;
  const root = strictBase64(rootText);
  if (!root || root.length !== 32) return 'the root hash is not base64 of 32 bytes';
  if (extensions.some((e) => e === '')) return 'an extension line is empty';
  return { origin, size, root, extensions };
}

export function checkpointBody(origin: string, size: number, root: Buffer, extensions: readonly string[] = []): string {
  if (origin === '' || /[\n\s+]/.test(origin)) throw new AirlockError('validation', 'bad_origin', `origin ${JSON.stringify(origin)} is empty or holds a space or "+"`);
  if (!Number.isSafeInteger(size) || size < 0) throw new AirlockError('validation', 'bad_size', `tree size ${size} is not a non-negative integer`);
  if (root.length !== 32) throw new AirlockError('validation', 'bad_root', 'a root hash is 32 bytes');
  return [origin, String(size), root.toString('base64'), ...extensions].join('\n') + '\n';
}

/**
 * The log's signed tree head: a checkpoint with one extension line, `time <ISO 8601 ms Z>`,
 * when the daemon signed it, and the log's signature line under the origin as its key name.
 */
export function signTreeHead(key: SigningKey, origin: string, size: number, root: Buffer, now: Date): string {
  const body = checkpointBody(origin, size, root, [`time ${now.toISOString()}`]);
  return `${body}\n${signatureLine(origin, keyHash(origin, SIG_ED25519, key.publicRaw), ed25519Sign(key, Buffer.from(body, 'utf8')))}`;
}

export interface Cosignature {
  name: string;
  keyHash: Buffer;
  timestamp: number;
  sig: Buffer;
}

export interface TreeHead {
  origin: string;
  size: number;
  root: Buffer;
  /** The `time` extension: when the daemon signed it. */
  time: string;
  body: string;
  /** keyIdOf (keys.ts) of the log key whose signature verified. */
  logKeyId: string;
  /** Signature lines shaped like cosignature/v1 ones: NOT verified, see cosignatureValid. */
  cosignatures: Cosignature[];
  /** Any other signature line of a key not configured: kept, not trusted. */
  otherSignatures: SignatureLine[];
}

/**
 * Verifies the log's signature of a checkpoint note against any of `logKeys` (raw Ed25519
 * public keys) under the checkpoint's origin as key name. Per signed-note, a line whose
 * name and key hash match a configured key MUST verify (one that fails refuses the note),
 * and at least one must. Returns the tree head, or a reason string.
 */
export function verifyCheckpoint(noteText: string, logKeys: readonly Buffer[], origin?: string): { note: Note; checkpoint: Checkpoint; keyIndex: number } | string {
  const note = parseNote(noteText);
  if (typeof note === 'string') return note;
  const checkpoint = parseCheckpointBody(note.body);
  if (typeof checkpoint === 'string') return checkpoint;
  if (origin !== undefined && checkpoint.origin !== origin) return `the tree head is of log ${JSON.stringify(checkpoint.origin.slice(0, 200))}, not of ${origin}`;
  let keyIndex = -1;
  for (const s of note.signatures) {
    if (s.name !== checkpoint.origin) continue;
    const i = logKeys.findIndex((k) => keyHash(checkpoint.origin, SIG_ED25519, k).equals(s.keyHash));
    if (i < 0) continue;
    if (!ed25519Verify(keyObject(logKeys[i]!), Buffer.from(note.body, 'utf8'), s.sig)) return `the log's signature by key ${keyIdOf(logKeys[i]!)} does not verify`;
    if (keyIndex < 0) keyIndex = i;
  }
  if (keyIndex < 0) return 'no signature of a known log key';
  return { note, checkpoint, keyIndex };
}

/** An Airlock tree head: a verified checkpoint with exactly its one `time` extension line. */
export function parseTreeHead(noteText: string, logPublicKeys: readonly Buffer[], origin?: string): TreeHead | string {
  const v = verifyCheckpoint(noteText, logPublicKeys, origin);
  if (typeof v === 'string') return v;
  const { note, checkpoint, keyIndex } = v;
  const ext = checkpoint.extensions;
  const time = ext.length === 1 && ext[0]!.startsWith('time ') ? ext[0]!.slice(5) : null;
  if (time === null || !ISO_MS.test(time) || Number.isNaN(Date.parse(time)) || new Date(time).toISOString() !== time) {
    return 'an Airlock tree head has exactly one extension line, "time <ISO 8601 with ms, Z>"';
  }
  const logLine = (s: SignatureLine) => s.name === checkpoint.origin && s.keyHash.equals(keyHash(checkpoint.origin, SIG_ED25519, logPublicKeys[keyIndex]!));
  const cosignatures: Cosignature[] = [];
  const otherSignatures: SignatureLine[] = [];
  for (const s of note.signatures) {
    if (logLine(s)) continue;
    const c = cosignatureOf(s);
    if (c) cosignatures.push(c);
    else otherSignatures.push(s);
  }
  return { origin: checkpoint.origin, size: checkpoint.size, root: checkpoint.root, time, body: note.body, logKeyId: keyIdOf(logPublicKeys[keyIndex]!), cosignatures, otherSignatures };
}

// ---------------------------------------------------------------------------------------------
// tlog-cosignature/v1 (Ed25519, type 0x04)

const MAX_TIMESTAMP = 2n ** 63n - 1n;

function cosignatureOf(s: SignatureLine): Cosignature | null {
  if (s.sig.length !== 8 + 64) return null;
  const ts = s.sig.readBigUInt64BE(0);
  if (ts > MAX_TIMESTAMP || ts > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return { name: s.name, keyHash: s.keyHash, timestamp: Number(ts), sig: Buffer.from(s.sig.subarray(8)) };
}

const cosignedMessage = (timestamp: number, body: string): Buffer => Buffer.from(`cosignature/v1\ntime ${timestamp}\n${body}`, 'utf8');

/**
 * The witness's cosignature of a checkpoint body: one signature line, newline included,
 * whose bytes are key hash (4) || timestamp (uint64 big-endian, unix seconds) || Ed25519 (64).
 */
export function cosign(witnessKey: SigningKey, witnessName: string, body: string, now: Date): string {
  if (!KEY_NAME.test(witnessName)) throw new AirlockError('validation', 'bad_key_name', `witness name ${JSON.stringify(witnessName)} is empty or holds a space or "+"`);
  const timestamp = Math.floor(now.getTime() / 1000);
  if (timestamp <= 0) throw new AirlockError('validation', 'bad_time', 'a cosignature timestamp is after 1970');
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64BE(BigInt(timestamp));
  const sig = ed25519Sign(witnessKey, cosignedMessage(timestamp, body));
  return signatureLine(witnessName, keyHash(witnessName, SIG_COSIGNATURE_V1, witnessKey.publicRaw), Buffer.concat([ts, sig]));
}

/**
 * Whether `note` carries a valid cosignature/v1 of the witness (name, raw public key) over
 * its body. Checks the cosignature only: the log's own signature is parseTreeHead's job.
 */
export function cosignatureValid(noteText: string, witnessName: string, witnessPubRaw: Buffer): { timestamp: number } | null {
  const note = parseNote(noteText);
  if (typeof note === 'string') return null;
  const hash = keyHash(witnessName, SIG_COSIGNATURE_V1, witnessPubRaw);
  const line = note.signatures.find((s) => s.name === witnessName && s.keyHash.equals(hash));
  const c = line && cosignatureOf(line);
  if (!c || c.timestamp === 0) return null;
  return ed25519Verify(keyObject(witnessPubRaw), cosignedMessage(c.timestamp, note.body), c.sig) ? { timestamp: c.timestamp } : null;
}

// ---------------------------------------------------------------------------------------------
// One-line form, for append-only files and syslog

/** `airlock-tree-head <base64 of the whole note>`, no newline. */
export const treeHeadLine = (note: string): string => LINE_PREFIX + Buffer.from(note, 'utf8').toString('base64');

/**
 * Every tree head of a file or a syslog export, by line number from 1. As for checkpoint
 * lines (checkpoint.ts), a tree head runs from "airlock-tree-head " to the end of its line
 * (a syslog header before it is fine; a final CR is dropped), and lines without the tag are
 * not read. Each is a note's text, NOT yet verified (pass it to parseTreeHead), or the
 * reason it was refused. A line over MAX_TREE_HEAD_LINE is refused before it is decoded.
 */
export function readTreeHeadLines(text: string): Array<{ line: number; note: string } | { line: number; reason: string }> {
  const out: Array<{ line: number; note: string } | { line: number; reason: string }> = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  // The next tag at or after `start`, found once: searching ahead from every line would be
  // quadratic in a large syslog export with one tag near its end.
  let nextAt = text.indexOf(LINE_PREFIX);
  for (let n = 1; start < text.length; n++) {
    const end = text.indexOf('\n', start);
    const stop = end < 0 ? text.length : end;
    if (nextAt >= 0 && nextAt < start) nextAt = text.indexOf(LINE_PREFIX, start);
    const at = nextAt;
    const from = start;
    start = stop + 1;
    if (at < 0 || at >= stop) continue;
    if (stop - from > MAX_TREE_HEAD_LINE) {
      out.push({ line: n, reason: `line over ${MAX_TREE_HEAD_LINE} bytes` });
      continue;
    }
    const bytes = strictBase64(text.slice(at + LINE_PREFIX.length, stop).replace(/\r$/, ''));
    if (!bytes) {
      out.push({ line: n, reason: `not "${LINE_PREFIX}<base64>"` });
      continue;
    }
    try {
      out.push({ line: n, note: decoder.decode(bytes) });
    } catch {
      out.push({ line: n, reason: 'the note is not valid UTF-8' });
    }
  }
  return out;
}
