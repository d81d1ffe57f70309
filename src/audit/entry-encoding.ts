/**
 * How the SQLite store keeps text it must give back byte for byte (an entry's signed body, a
 * transaction's preview and result JSON) in fewer bytes. Encoding version 1 is a BLOB:
 *
 *   [1] [k] [k run lengths, in bytes] [the runs' bytes] [skeleton length, LEB128] [copy ops]
 *
 * The runs are the text's runs of 16 to 510 lower-case hex digits of even length (digests, ids,
 * keys), packed two digits a byte. The skeleton is the text with each run replaced by NUL, which
 * canonical JSON never holds bare, as UTF-8. It is stored as ops against DICTIONARY_V1, typical
 * stored text: a byte c < 0x80 is a literal run of c + 1 bytes that follow; c >= 0x80 copies
 * (c & 0x7f) + 4 bytes of the dictionary from the 16-bit offset that follows. An entry's body
 * also leaves out its prev_hash, the previous row's hash column (or the log base's hash):
 * decoding puts it back.
 *
 * Why not deflate with that dictionary (the first try, measured in the daemon): a text stored
 * here is a few hundred bytes, and zlib sets up its state and loads the dictionary for each one
 * (about 100 us a text in the daemon, 0.7 ms of a read lifecycle's 6.8 on its main thread; and
 * its inflate made the offline verifier 30 % slower over a million entries). Copies from a fixed
 * dictionary take 3 us to encode and 1 to decode, for about 10 % more bytes than deflate.
 *
 * What is stored plainly stays a TEXT value, read as it is: rows from before this encoding, text
 * longer than MAX_ENCODED (an agent's megabyte is not worth the event loop's time), and any text
 * that does not come back exactly (every encoding is decoded and compared before it is stored),
 * so nothing depends on the encoder being right. The dictionary is part of the format: fixed
 * forever for version 1 (old stores need it; a test pins its SHA-256). A better one is a new
 * version byte, never an edit.
 */
import { AirlockError } from '../protocol/errors.js';

/** The first byte of an encoded value: the format above. */
const ENCODING_V1 = 1;
/**
 * The longest text encoded, in UTF-8 bytes, and so the most a decode may produce: longer ones
 * are stored plainly. A read's stored texts are well under a kilobyte; a long one is a file's
 * diff or an agent's parameter, rare and not worth encoding on the daemon's main thread.
 */
const MAX_ENCODED = 64 * 1024;
/** Runs of hex digits packed to bytes: long enough to gain, short enough that a byte holds the length. */
const HEX_RUN = /[0-9a-f]{16,}/g;
const MAX_RUN_BYTES = 255;
const MARK = '\0';

/**
 * Typical stored text, with NUL where runs of hex go: a read's preview and result, then a read
 * lifecycle's five entries. Its bytes are the format (copies name offsets into it): never edited.
 */
export const DICTIONARY_V1 = Buffer.from(
  [
  '{"params":{},"summary":"Read /proc/uptime and /proc/loadavg","risk":"low","min_role":"observer","current_state":null,"proposed_change":{"change":null,"mechanism":[{"kind":"fileScan","path":"/proc/uptime"},{"kind":"fileScan","path":"/proc/loadavg"}],"digest":"\0"},"side_effects":[],"reboot_required":false,"rollback_available":false,"warnings":[],"requested_by":"agent(uid 1000)","created_at":"2026-01-01T00:00:00.000Z","expires_at":"2026-01-01T00:00:00.000Z"}',
  '{"state":"Succeeded","summary":"Read /proc/uptime and /proc/loadavg","needs_reboot":false,"changed":false,"rollback_ref":null,"error":null}',
  '{"params":{},"summary":"Read memory and swap usage (free)","risk":"low","min_role":"observer","current_state":null,"proposed_change":{"change":null,"mechanism":[{"kind":"command","program":"free","args":["-b","-w"]}],"digest":"\0"},"side_effects":[],"reboot_required":false,"rollback_available":false,"warnings":[],"requested_by":"agent(uid 1000)","created_at":"2026-01-01T00:00:00.000Z","expires_at":"2026-01-01T00:00:00.000Z"}',
  '{"state":"Succeeded","summary":"Read memory and swap usage (free)","needs_reboot":false,"changed":false,"rollback_ref":null,"error":null}',
  '{"params":{},"summary":"Read file system usage (df)","risk":"low","min_role":"observer","current_state":null,"proposed_change":{"change":null,"mechanism":[{"kind":"command","program":"df","args":["-hPT"]}],"digest":"\0"},"side_effects":[],"reboot_required":false,"rollback_available":false,"warnings":[],"requested_by":"agent(uid 1000)","created_at":"2026-01-01T00:00:00.000Z","expires_at":"2026-01-01T00:00:00.000Z"}',
  '{"state":"Succeeded","summary":"Read file system usage (df)","needs_reboot":false,"changed":false,"rollback_ref":null,"error":null}',
  '{"params":{},"summary":"List mounts (findmnt)","risk":"low","min_role":"observer","current_state":null,"proposed_change":{"change":null,"mechanism":[{"kind":"command","program":"findmnt","args":["-J","-l"]}],"digest":"\0"},"side_effects":[],"reboot_required":false,"rollback_available":false,"warnings":[],"requested_by":"agent(uid 1000)","created_at":"2026-01-01T00:00:00.000Z","expires_at":"2026-01-01T00:00:00.000Z"}',
  '{"state":"Succeeded","summary":"List mounts (findmnt)","needs_reboot":false,"changed":false,"rollback_ref":null,"error":null}',
  '{"action_name":"Uptime","details":{"masked":[],"preview_digest":"\0","summary":"Read /proc/uptime and /proc/loadavg","warnings":[]},"key_id":"\0","kind":"preview","prev_hash":"\0","principal":{"role":"observer","uid":1000,"user":"agent"},"request_hash":"\0","risk":"low","seq":1,"transaction_id":"tx_\0","ts":"2026-01-01T00:00:00.000Z"}',
  '{"action_name":"Uptime","details":{"executor":"agent(uid 1000)","policy_digest":"sha256:\0","preview_digest":"\0","receipt_commitment":"\0","receipt_expires_at":"2026-01-01T00:00:00.000Z","rule_id":"reads","second_factor":"none","self_approval":false},"key_id":"\0","kind":"approval_granted","prev_hash":"\0","principal":null,"request_hash":"\0","risk":"low","seq":1,"transaction_id":"tx_\0","ts":"2026-01-01T00:00:00.000Z"}',
  '{"action_name":"Uptime","details":{"preview_digest":"\0","receipt_commitment":"\0"},"key_id":"\0","kind":"approval_consumed","prev_hash":"\0","principal":{"role":"observer","uid":1000,"user":"agent"},"request_hash":"\0","risk":"low","seq":1,"transaction_id":"tx_\0","ts":"2026-01-01T00:00:00.000Z"}',
  '{"action_name":"Uptime","details":{"steps":2},"key_id":"\0","kind":"execution_started","prev_hash":"\0","principal":{"role":"observer","uid":1000,"user":"agent"},"request_hash":"\0","risk":"low","seq":1,"transaction_id":"tx_\0","ts":"2026-01-01T00:00:00.000Z"}',
  '{"action_name":"Uptime","details":{"changed":false,"error_category":null,"error_code":null,"masked":[],"output_lines":2,"rolled_back":false,"state":"Succeeded"},"key_id":"\0","kind":"outcome","prev_hash":"\0","principal":{"role":"observer","uid":1000,"user":"agent"},"request_hash":"\0","risk":"low","seq":1,"transaction_id":"tx_\0","ts":"2026-01-01T00:00:00.000Z"}',
  ].join('\n'),
  'utf8',
);

/** Copies: at least MIN_COPY bytes (a copy op is 3), at most MIN_COPY + 127; DICTIONARY_V1 fits 16-bit offsets. */
const MIN_COPY = 4;
const MAX_COPY = MIN_COPY + 0x7f;
const MAX_LITERAL = 0x80;
/** Dictionary places tried for each position: the work per byte encoded is bounded by it. */
const CANDIDATES = 16;

/** Where each 4-byte sequence starts in the dictionary (its first CANDIDATES places), built once. */
const PLACES: ReadonlyMap<number, readonly number[]> = (() => {
  const places = new Map<number, number[]>();
  for (let i = 0; i + MIN_COPY <= DICTIONARY_V1.length; i++) {
    const key = DICTIONARY_V1.readUInt32LE(i);
    const list = places.get(key);
    if (!list) places.set(key, [i]);
    else if (list.length < CANDIDATES) list.push(i);
  }
  return places;
})();

/** The encoded form of `text`, or `text` itself when encoding does not pay or does not round-trip. */
export function encodeStored(text: string): Buffer | string {
  const encoded = pack(text);
  return encoded && encoded.length < Buffer.byteLength(text) && safeUnpack(encoded) === text ? encoded : text;
}

/** What encodeStored stored, back: a TEXT value as it is, an encoded one decoded (integrity/store_undecodable when it cannot be). */
export function decodeStored(stored: string | Buffer): string {
  return typeof stored === 'string' ? stored : unpack(stored);
}

const ELIDED = '"prev_hash":""';

/**
 * An entry's body as the store keeps it: encoded without its prev_hash (`prevHash`, the hash of
 * the entry before it), or the body itself when that does not pay or does not round-trip.
 */
export function encodeEntryBody(body: string, prevHash: string): Buffer | string {
  const field = `"prev_hash":"${prevHash}"`;
  const at = body.lastIndexOf(field);
  if (at < 0) return body;
  const elided = body.slice(0, at) + ELIDED + body.slice(at + field.length);
  // encodeStored gives back `elided` or what decodes to it: then decoding the entry is restorePrev(elided).
  if (restorePrev(elided, prevHash) !== body) return body;
  const encoded = encodeStored(elided);
  return typeof encoded === 'string' ? body : encoded;
}

/**
 * The signed body back from what the store holds. `prevHash`: the stored hash of the entry before
 * it, null when that entry is not there (a deleted row): the body then names no previous hash and
 * fails the verifier's chain check, as an entry after a deleted one must.
 */
export function decodeEntryBody(stored: string | Buffer, prevHash: string | null): string {
  if (typeof stored === 'string') return stored;
  const body = restorePrev(unpack(stored), prevHash ?? '');
  if (body === null) throw undecodable('it has no prev_hash');
  return body;
}

/** Puts the previous hash back where encodeEntryBody left it out: its last `"prev_hash":""`. */
function restorePrev(text: string, prevHash: string): string | null {
  const at = text.lastIndexOf(ELIDED);
  return at < 0 ? null : `${text.slice(0, at)}"prev_hash":"${prevHash}"${text.slice(at + ELIDED.length)}`;
}

function pack(text: string): Buffer | null {
  if (text.length > MAX_ENCODED || text.includes(MARK)) return null;
  const runs: Buffer[] = [];
  const skeleton = text.replace(HEX_RUN, (run) => {
    if (run.length % 2 !== 0 || run.length / 2 > MAX_RUN_BYTES || runs.length === MAX_RUN_BYTES) return run;
    runs.push(Buffer.from(run, 'hex'));
    return MARK;
  });
  const bytes = Buffer.from(skeleton, 'utf8');
  if (bytes.length > MAX_ENCODED) return null;
  const header = Buffer.from([ENCODING_V1, runs.length, ...runs.map((r) => r.length)]);
  return Buffer.concat([header, ...runs, Buffer.from(leb128(bytes.length)), copyOps(bytes)]);
}

/** `bytes` as literal runs and copies from the dictionary: greedy, the longest of CANDIDATES places. */
function copyOps(bytes: Buffer): Buffer {
  // At most two bytes out for each byte in (a literal of one, its length byte), and never near it.
  const out = Buffer.allocUnsafe(2 * bytes.length + 2);
  let n = 0;
  let literalFrom = 0;
  const literals = (to: number) => {
    for (let i = literalFrom; i < to; i += MAX_LITERAL) {
      const len = Math.min(MAX_LITERAL, to - i);
      out[n++] = len - 1;
      n += bytes.copy(out, n, i, i + len);
    }
  };
  let i = 0;
  while (i < bytes.length) {
    let best = 0;
    let from = 0;
    const places = i + MIN_COPY <= bytes.length ? PLACES.get(bytes.readUInt32LE(i)) : undefined;
    for (const p of places ?? []) {
      let len = MIN_COPY;
      while (len < MAX_COPY && i + len < bytes.length && p + len < DICTIONARY_V1.length && bytes[i + len] === DICTIONARY_V1[p + len]) len++;
      if (len > best) (best = len), (from = p);
    }
    if (best < MIN_COPY) {
      i++;
      continue;
    }
    literals(i);
    out[n++] = 0x80 | (best - MIN_COPY);
    out.writeUInt16BE(from, n);
    n += 2;
    i += best;
    literalFrom = i;
  }
  literals(bytes.length);
  return out.subarray(0, n);
}

function leb128(n: number): number[] {
  const out = [];
  for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return out;
}

function unpack(b: Buffer): string {
  if (b.length < 2 || b[0] !== ENCODING_V1) throw undecodable(`encoding ${b[0] ?? 'none'} is not one this version reads`);
  const k = b[1]!;
  let at = 2 + k;
  if (b.length < at) throw undecodable('it is cut short');
  const runs: string[] = [];
  for (let i = 0; i < k; i++) {
    const n = b[2 + i]!;
    if (b.length < at + n) throw undecodable('it is cut short');
    runs.push(b.subarray(at, at + n).toString('hex'));
    at += n;
  }
  let size = 0;
  for (let shift = 0; ; shift += 7) {
    if (at >= b.length || shift > 21) throw undecodable('its length is cut short');
    const c = b[at++]!;
    size += (c & 0x7f) * 2 ** shift;
    if (c < 0x80) break;
  }
  if (size > MAX_ENCODED) throw undecodable(`it would decode to ${size} bytes, over ${MAX_ENCODED}`);
  const skeleton = Buffer.allocUnsafe(size);
  let n = 0;
  while (at < b.length) {
    const c = b[at++]!;
    if (c < 0x80) {
      const len = c + 1;
      if (at + len > b.length || n + len > size) throw undecodable('a literal runs past its end');
      n += b.copy(skeleton, n, at, at + len);
      at += len;
    } else {
      const len = (c & 0x7f) + MIN_COPY;
      if (at + 2 > b.length) throw undecodable('it is cut short');
      const from = b.readUInt16BE(at);
      at += 2;
      if (from + len > DICTIONARY_V1.length || n + len > size) throw undecodable('a copy runs past its end');
      n += DICTIONARY_V1.copy(skeleton, n, from, from + len);
    }
  }
  if (n !== size) throw undecodable(`it holds ${n} of its ${size} bytes`);
  const parts = skeleton.toString('utf8').split(MARK);
  if (parts.length !== k + 1) throw undecodable(`it has ${parts.length - 1} places for ${k} hex runs`);
  return parts.reduce((text, part, i) => text + runs[i - 1]! + part);
}

function safeUnpack(b: Buffer): string | null {
  try {
    return unpack(b);
  } catch {
    return null;
  }
}

const undecodable = (why: string) => new AirlockError('integrity', 'store_undecodable', `a stored value cannot be decoded: ${why}`);
