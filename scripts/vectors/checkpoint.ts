/**
 * checkpoint.json: docs/protocol.md §15. Checkpoints of the log of log-entry.json (the same
 * rows are repeated here so the file stands alone), signed with the seed-0x01 audit key for
 * the host "host.example". Invalid lines must be refused one by one; `log_checks` are whole
 * verifications (rows and checkpoint text) with their outcome.
 */
import { DOMAIN_LOG_ENTRY } from '../../src/audit/domains.js';
import { checkpointMessage, checkpointOrigin, CHECKPOINT_TAG, formatCheckpointLine, signCheckpoint, type SignedCheckpoint } from '../../src/audit/checkpoint.js';
import { ed25519Sign } from '../../src/audit/keys.js';
import { canonicalize } from '../../src/protocol/canonical.js';
import { flipAt, flipChar, flipHex, header, hex, KEY, OTHER_KEY } from './common.js';
import { rowsOf, sealedLog } from './log-entry.js';

const HOST = 'host.example';
const ORIGIN = checkpointOrigin(HOST, KEY.key.keyId);

/** A line signed by the vector key over any text: how a verifier must treat a validly signed line it cannot read. */
const signedLine = (text: string, message = checkpointMessage(text), k = KEY) => `${CHECKPOINT_TAG}${text} ${ed25519Sign(k.key, message).toString('hex')}`;

export function checkpointVectors(): unknown {
  const { sealed } = sealedLog();
  const rows = rowsOf(sealed);
  const at2 = signCheckpoint(KEY.key, ORIGIN, 2, sealed[1]!.hash, new Date('2026-01-01T00:00:02.000Z'));
  const at3 = signCheckpoint(KEY.key, ORIGIN, 3, sealed[2]!.hash, new Date('2026-01-01T00:00:04.000Z'));
  const validCase = (name: string, c: SignedCheckpoint) => ({ name, checkpoint: c.checkpoint, signed_text_utf8: c.text, signed_message_hex: hex(checkpointMessage(c.text)), signature_hex: c.sig, line: formatCheckpointLine(c) });
  const line = formatCheckpointLine(at3);
  const { origin, size, head_hash, ts } = at3.checkpoint;
  const sig = at3.sig;
  const refuse = (name: string, why: string, l: string, extra: { expected_origin?: string } = {}) => ({ name, why, line: l, ...extra });
  const invalid = [
    refuse('a bit flipped in the signature', 'the signature no longer verifies', `${CHECKPOINT_TAG}${at3.text} ${flipHex(sig, 0)}`),
    refuse('a bit flipped in the size', 'size 3 became 2: the signed bytes changed', `${CHECKPOINT_TAG}${origin} ${flipChar(String(size), 0)} ${head_hash} ${ts} ${sig}`),
    refuse('a bit flipped in the head hash', 'the signed bytes changed', `${CHECKPOINT_TAG}${origin} ${size} ${flipChar(head_hash, -1)} ${ts} ${sig}`),
    refuse('a bit flipped in the time', 'the signed bytes changed', `${CHECKPOINT_TAG}${origin} ${size} ${head_hash} ${flipAt(ts, '4.000Z')} ${sig}`),
    refuse('a bit flipped in the origin', 'the signed bytes changed', `${CHECKPOINT_TAG}${flipChar(origin, 0)} ${size} ${head_hash} ${ts} ${sig}`),
    refuse('fields reordered', 'the signature covers the stored text; fields have fixed places', `${CHECKPOINT_TAG}${size} ${origin} ${head_hash} ${ts} ${sig}`),
    refuse('two spaces between fields', 'the signature covers the stored text, whitespace included', `${CHECKPOINT_TAG}${origin}  ${size} ${head_hash} ${ts} ${sig}`),
    refuse('a tab between fields', 'the signature covers the stored text', `${CHECKPOINT_TAG}${origin}\t${size} ${head_hash} ${ts} ${sig}`),
    refuse('a space after the signature', 'the line ends with the signature', `${line} `),
    refuse('the same fields as canonical JSON (the format of earlier versions)', 'a checkpoint is checked over its stored bytes, never over fields re-encoded', `${CHECKPOINT_TAG}${canonicalize({ checkpoint: at3.checkpoint, sig })}`),
    refuse('the same fields as JSON in another member order', 'no re-canonicalization: another encoding of the same fields is not the signed text', `${CHECKPOINT_TAG}${JSON.stringify({ sig, checkpoint: { ts, size, origin, head_hash } })}`),
    refuse('signed under the log-entry domain', 'domain separation: an entry signature never verifies as a checkpoint', signedLine(at3.text, Buffer.concat([DOMAIN_LOG_ENTRY, Buffer.from(at3.text)]))),
    refuse('signed without a domain tag', 'the tag is part of the signed message', signedLine(at3.text, Buffer.from(at3.text))),
    refuse('signed by another key', 'only the audit key of this log signs its checkpoints', signedLine(at3.text, checkpointMessage(at3.text), OTHER_KEY)),
    refuse('validly signed, naming the log of another key', 'the origin must name the log of the verifying key', formatCheckpointLine(signCheckpoint(KEY.key, checkpointOrigin(HOST, OTHER_KEY.key.keyId), size, head_hash, new Date(ts)))),
    refuse('validly signed, naming another host, when the verifier expects host.example', 'an auditor who says which log they audit counts only its checkpoints', formatCheckpointLine(signCheckpoint(KEY.key, checkpointOrigin('other.example', KEY.key.keyId), size, head_hash, new Date(ts))), { expected_origin: ORIGIN }),
    refuse('validly signed, size with a leading zero', 'each field has one spelling', signedLine(`${origin} 03 ${head_hash} ${ts}`)),
    refuse('validly signed, head hash in upper case', 'each field has one spelling', signedLine(`${origin} ${size} ${head_hash.toUpperCase()} ${ts}`)),
    refuse('validly signed, time without milliseconds', 'each field has one spelling (Date.prototype.toISOString)', signedLine(`${origin} ${size} ${head_hash} 2026-01-01T00:00:04Z`)),
    refuse('validly signed, a date that does not exist', '2026-02-30 is not a time', signedLine(`${origin} ${size} ${head_hash} 2026-02-30T00:00:04.000Z`)),
    refuse('validly signed, a fifth field', 'exactly origin, size, head hash and time', signedLine(`${at3.text} extra`)),
    refuse('validly signed, an origin with an upper-case host', 'the host part is lower case', signedLine(`Host.example/airlock/${KEY.key.keyId} ${size} ${head_hash} ${ts}`)),
  ];
  const rewritten = formatCheckpointLine(signCheckpoint(KEY.key, ORIGIN, 2, flipHex(sealed[1]!.hash, 31), new Date('2026-01-01T00:00:02.000Z')));
  const otherHost = formatCheckpointLine(signCheckpoint(KEY.key, checkpointOrigin('other.example', KEY.key.keyId), 9, flipHex(sealed[2]!.hash, 0), new Date('2026-01-01T00:00:09.000Z')));
  const both = `${formatCheckpointLine(at2)}\n${line}\n`;
  const check = (name: string, why: string, r: typeof rows, checkpoints: string, expect: { status: 'intact' | 'broken'; first_broken_seq?: number; checkpoint_size: number | null }, extra: { expected_origin?: string } = {}) => ({ name, why, rows: r, checkpoints, ...extra, expect });
  const log_checks = [
    check('the log and its checkpoints', 'both checkpoints agree with the log; the latest covers all of it', rows, both, { status: 'intact', checkpoint_size: 3 }),
    check('the checkpoints in a syslog export', 'a line counts from "airlock-checkpoint " to its end: the prefix syslog adds is not signed', rows, `Jan  1 00:00:02 host airlock[812]: ${formatCheckpointLine(at2)}\nJan  1 00:00:04 host airlock[812]: ${line}\n`, { status: 'intact', checkpoint_size: 3 }),
    check('a cut tail', 'the log has 2 entries but a checkpoint covers 3', rows.slice(0, 2), both, { status: 'broken', first_broken_seq: 3, checkpoint_size: 3 }),
    check('a rewritten history', 'a validly signed checkpoint of size 2 names another head than entry 2', rows, `${rewritten}\n${line}\n`, { status: 'broken', first_broken_seq: 2, checkpoint_size: 3 }),
    check('a checkpoint of another log', 'it says nothing about this log: ignored, neither breaking nor vouching', rows, `${otherHost}\n${line}\n`, { status: 'intact', checkpoint_size: 3 }, { expected_origin: ORIGIN }),
  ];
  return {
    ...header('checkpoint', '#15-checkpoints'),
    key: KEY.json,
    other_key: OTHER_KEY.json,
    formula: 'text = origin " " size " " head_hash " " ts; sig = hex(Ed25519(audit_key, "airlock/v1/checkpoint" 0x00 || UTF8(text))); line = "airlock-checkpoint " text " " sig; origin = host "/airlock/" key_id',
    origins: [HOST, 'Web_1.Example', 'db 2', ''].map((host_name) => ({ host_name, key_id: KEY.key.keyId, origin: checkpointOrigin(host_name, KEY.key.keyId) })),
    valid: [validCase('a checkpoint of the first two entries (the vector of docs/protocol.md §15)', at2), validCase('a checkpoint of all three entries', at3)],
    invalid,
    log_checks,
  };
}
