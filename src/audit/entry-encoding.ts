/**
 * How the SQLite store keeps text it must give back byte for byte (an entry's signed body, a
 * transaction's preview and result JSON) in fewer bytes. Encoding version 1 is a BLOB:
 *
 *   [1] [k] [k run lengths, in bytes] [the runs' bytes] [deflate-raw of the skeleton, DICTIONARY_V1]
 *
 * The runs are the text's runs of 16 to 510 lower-case hex digits of even length (digests, ids,
 * keys), packed two digits a byte: deflate stores a short text's hex at nearly a byte a digit.
 * The skeleton is the text with each run replaced by NUL, which canonical JSON never holds bare.
 * An entry's body also leaves out its prev_hash, the previous row's hash column (or the log
 * base's hash): decoding puts it back.
 *
 * What is stored plainly stays a TEXT value, read as it is: rows from before this encoding, and
 * any text that does not come back exactly (every encoding is decoded and compared before it is
 * stored), so nothing depends on the encoder being right. The dictionary is part of the format:
 * fixed forever for version 1 (old stores need it; a test pins its SHA-256). A better one is a
 * new version byte, never an edit.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { AirlockError } from '../protocol/errors.js';

/** The first byte of an encoded value: the format above. */
const ENCODING_V1 = 1;
/** The longest text encoded, and so the most a decode may produce: longer ones are stored plainly. */
const MAX_DECODED = 16 * 1024 * 1024;
/** Runs of hex digits packed to bytes: long enough to gain, short enough that a byte holds the length. */
const HEX_RUN = /[0-9a-f]{16,}/g;
const MAX_RUN_BYTES = 255;
const MARK = '\0';

/**
 * Typical stored text, with NUL where runs of hex go: a read's preview and result, then a read
 * lifecycle's five entries (the most common, last: deflate reaches them at the shortest distances).
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

/** zlib's output buffer: most texts stored here fit one; a longer one takes several (zlib's smallest is 64 B). */
const CHUNK = 1024;

/**
 * How this code deflates (inflate reads the stream whatever these were): a window of 8 KiB
 * reaches the whole dictionary (3.9 KiB) and most texts stored here, and a state smaller than
 * zlib's default is several times faster to set up, which is most of the cost for texts this short.
 */
const DEFLATE = { dictionary: DICTIONARY_V1, level: 9, windowBits: 13, memLevel: 4, chunkSize: CHUNK };
/** Inflate likewise: a verifier decodes every entry of a log, and allocating zlib's default 16 KiB output chunk was about 40 % of each (7.9 -> 4.6 us here). */
const INFLATE = { dictionary: DICTIONARY_V1, maxOutputLength: MAX_DECODED, chunkSize: CHUNK };

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
  if (text.includes(MARK) || text.length > MAX_DECODED) return null;
  const runs: Buffer[] = [];
  const skeleton = text.replace(HEX_RUN, (run) => {
    if (run.length % 2 !== 0 || run.length / 2 > MAX_RUN_BYTES || runs.length === MAX_RUN_BYTES) return run;
    runs.push(Buffer.from(run, 'hex'));
    return MARK;
  });
  const header = Buffer.from([ENCODING_V1, runs.length, ...runs.map((r) => r.length)]);
  return Buffer.concat([header, ...runs, deflateRawSync(skeleton, DEFLATE)]);
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
  let skeleton: string;
  try {
    skeleton = inflateRawSync(b.subarray(at), INFLATE).toString('utf8');
  } catch (e) {
    throw undecodable((e as Error).message);
  }
  const parts = skeleton.split(MARK);
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
