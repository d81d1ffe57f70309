/** Signed notes, tree heads and cosignatures: C2SP vectors, round trips, and every tampering refused. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, sign } from 'node:crypto';
import { signingKeyFromSeed, ed25519Verify, publicKeyFromRaw, keyIdOf } from '../../src/audit/keys.js';
import {
  cosign,
  cosignatureValid,
  formatVkey,
  formatWitnessVkey,
  keyHash,
  parseNote,
  parseTreeHead,
  parseVkey,
  readTreeHeadLines,
  signTreeHead,
  treeHeadLine,
  verifyCheckpoint,
  MAX_TREE_HEAD_LINE,
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
} from '../../src/audit/note.js';

const logKey = signingKeyFromSeed(Buffer.alloc(32, 1));
const otherKey = signingKeyFromSeed(Buffer.alloc(32, 2));
const witnessKey = signingKeyFromSeed(Buffer.alloc(32, 3));
const origin = 'airlock.example/host-a';
const root = createHash('sha256').update('root').digest();
const now = new Date('2026-12-01T23:10:00.123Z');
const head = signTreeHead(logKey, origin, 42, root, now);
/** The log key signing any body, to build notes signTreeHead would not. */
const ed25519Sign = (text: string): Buffer => sign(null, Buffer.from(text), logKey.privateKey);

test('C2SP signed-note example: the vkey parses and verifies the example note', () => {
  const vkey = parseVkey('example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k');
  assert.equal(vkey.name, 'example.com/foo');
  assert.equal(vkey.type, SIG_ED25519);
  assert.equal(vkey.keyHash.toString('hex'), '530d903a');
  assert.equal(formatVkey(vkey.name, vkey.publicRaw), 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k');
  const note = parseNote('This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n');
  assert.ok(typeof note !== 'string', String(note));
  assert.equal(note.body, 'This is an example message.\n');
  const [s] = note.signatures;
  assert.ok(s && s.keyHash.equals(vkey.keyHash));
  assert.equal(ed25519Verify(publicKeyFromRaw(vkey.publicRaw), Buffer.from(note.body), s.sig), true);
});

test('C2SP example notes parse: the checkpoint and the cosigned checkpoint of tlog-cosignature', () => {
  const text =
    'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n' +
    '\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n' +
    '\u2014 witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n';
  const note = parseNote(text);
  assert.ok(typeof note !== 'string', String(note));
  assert.equal(note.signatures.length, 2);
  // The cosignature's bytes: key hash, then the timestamp the spec's message shows (1679315147).
  assert.equal(note.signatures[1]!.sig.readBigUInt64BE(0), 1679315147n);
  assert.equal(note.signatures[1]!.sig.length, 72);
});

test('vkeys round-trip for log (0x01) and witness (0x04) keys, and a vkey whose parts disagree is refused', () => {
  const v = formatVkey(origin, logKey.publicRaw);
  assert.deepEqual(parseVkey(v), { name: origin, type: SIG_ED25519, keyHash: keyHash(origin, SIG_ED25519, logKey.publicRaw), publicRaw: logKey.publicRaw });
  const w = formatWitnessVkey('witness.example/w1', witnessKey.publicRaw);
  assert.equal(parseVkey(w).type, SIG_COSIGNATURE_V1);
  assert.throws(() => parseVkey(w, [SIG_ED25519]), /signature type 0x04/);
  const [name, hash, b64] = v.split(/\+(?=[0-9a-f]{8}\+)|(?<=\+[0-9a-f]{8})\+/);
  assert.ok(name && hash && b64);
  assert.throws(() => parseVkey(`${name}x+${hash}+${b64}`), /key hash does not match/);
  assert.throws(() => parseVkey(`${name}+00000000+${b64}`), /key hash does not match/);
  assert.throws(() => parseVkey(`${name}+${hash.toUpperCase()}+${b64}`), /8 lower-case hex/);
  const typed = Buffer.from(b64, 'base64');
  typed[0] = 0x04; // same key, other type byte: the hash no longer matches
  assert.throws(() => parseVkey(`${name}+${hash}+${typed.toString('base64')}`), /key hash does not match/);
  assert.throws(() => parseVkey(`${name}+${hash}+${b64.slice(0, -4)}`), /type byte and 32 bytes/);
  assert.throws(() => parseVkey(`a b+${hash}+${b64}`), /name/);
  assert.throws(() => parseVkey('nothing'), /three/);
});

test('a tree head round-trips: origin, size, root, time, key id', () => {
  assert.match(head, /^airlock\.example\/host-a\n42\n[A-Za-z0-9+/]{43}=\ntime 2026-12-01T23:10:00\.123Z\n\n\u2014 airlock\.example\/host-a [A-Za-z0-9+/]{91}=\n$/);
  const t = parseTreeHead(head, [otherKey.publicRaw, logKey.publicRaw], origin);
  assert.ok(typeof t !== 'string', String(t));
  assert.equal(t.origin, origin);
  assert.equal(t.size, 42);
  assert.ok(t.root.equals(root));
  assert.equal(t.time, now.toISOString());
  assert.equal(t.logKeyId, keyIdOf(logKey.publicRaw));
  assert.deepEqual(t.cosignatures, []);
  assert.equal(signTreeHead(logKey, origin, 0, createHash('sha256').digest(), now).split('\n')[1], '0');
});

test('cosignature/v1: made, carried in the note, verified; the log signature still verifies beside it', () => {
  const t = parseTreeHead(head, [logKey.publicRaw]);
  assert.ok(typeof t !== 'string');
  const line = cosign(witnessKey, 'witness.example/w1', t.body, now);
  assert.match(line, /^\u2014 witness\.example\/w1 [A-Za-z0-9+/]{102}==\n$/);
  const cosigned = head + line;
  assert.deepEqual(cosignatureValid(cosigned, 'witness.example/w1', witnessKey.publicRaw), { timestamp: Math.floor(now.getTime() / 1000) });
  const t2 = parseTreeHead(cosigned, [logKey.publicRaw]);
  assert.ok(typeof t2 !== 'string', String(t2));
  assert.equal(t2.cosignatures.length, 1);
  assert.equal(t2.cosignatures[0]!.name, 'witness.example/w1');
  assert.equal(t2.cosignatures[0]!.timestamp, Math.floor(now.getTime() / 1000));
  // The message is exactly the spec's: header, time line, then the checkpoint body.
  const msg = Buffer.from(`cosignature/v1\ntime ${t2.cosignatures[0]!.timestamp}\n${t.body}`);
  assert.equal(ed25519Verify(witnessKey.publicKey, msg, t2.cosignatures[0]!.sig), true);
  // Wrong witness key, wrong name, other body: none counts.
  assert.equal(cosignatureValid(cosigned, 'witness.example/w1', otherKey.publicRaw), null);
  assert.equal(cosignatureValid(cosigned, 'witness.example/w2', witnessKey.publicRaw), null);
  assert.equal(cosignatureValid(signTreeHead(logKey, origin, 43, root, now) + line, 'witness.example/w1', witnessKey.publicRaw), null);
  // A log-type (0x01) signature by the witness key is not a cosignature.
  assert.equal(cosignatureValid(head.replace(/\n$/, '\n') + line.replace(/ [^ ]+\n$/, ' ' + Buffer.concat([keyHash('witness.example/w1', SIG_ED25519, witnessKey.publicRaw), Buffer.alloc(72)]).toString('base64') + '\n'), 'witness.example/w1', witnessKey.publicRaw), null);
  // The timestamp is signed: a line with another timestamp fails.
  const raw = Buffer.from(line.split(' ')[2]!.trim(), 'base64');
  raw.writeBigUInt64BE(raw.readBigUInt64BE(4) + 1n, 4);
  assert.equal(cosignatureValid(head + `\u2014 witness.example/w1 ${raw.toString('base64')}\n`, 'witness.example/w1', witnessKey.publicRaw), null);
});

/** Refused for a reason (a string), never a tree head. */
function refused(text: string, keys = [logKey.publicRaw], o?: string): string {
  const r = parseTreeHead(text, keys, o);
  assert.equal(typeof r, 'string', `accepted: ${JSON.stringify(text)}`);
  return r as string;
}

test('every tampering of a tree head is refused', () => {
  const [body, sig] = head.split('\n\n') as [string, string];
  // Each byte of the body, flipped.
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    const flipped = body.slice(0, i) + String.fromCharCode(c === 0x30 ? 0x31 : c === 0x0a ? 0x41 : c ^ 1) + body.slice(i + 1);
    refused(`${flipped}\n\n${sig}`);
  }
  assert.match(refused(head.replace('\n42\n', '\n43\n')), /does not verify/);
  assert.match(refused(head.replace('\n42\n', '\n042\n')), /leading zero/);
  assert.match(refused(head.replace(root.toString('base64'), Buffer.alloc(32).toString('base64'))), /does not verify/);
  assert.match(refused(head.replaceAll(origin, 'airlock.example/host-b')), /no signature of a known log key/);
  assert.match(refused(head, [logKey.publicRaw], 'airlock.example/host-b'), /not of airlock.example\/host-b/);
  // Signature bytes flipped, or another key's signature under the right name.
  const raw = Buffer.from(sig.split(' ')[2]!.trim(), 'base64');
  raw[10]! ^= 1;
  assert.match(refused(`${body}\n\n\u2014 ${origin} ${raw.toString('base64')}\n`), /does not verify/);
  assert.match(refused(signTreeHead(otherKey, origin, 42, root, now)), /no signature of a known log key/);
  assert.match(refused(head, [otherKey.publicRaw]), /no signature of a known log key/);
  // A known key whose line fails refuses the note even when another good line is there.
  const other = signTreeHead(otherKey, origin, 42, root, now).split('\n\n')[1]!;
  assert.match(refused(`${body}\n\n${other}\u2014 ${origin} ${raw.toString('base64')}\n`, [otherKey.publicRaw, logKey.publicRaw]), /does not verify/);
  // Form: the blank line, the final newline, duplicate lines, control characters, time line.
  assert.match(refused(head.replace('\n\n', '\n')), /no blank line|not a signature line/);
  assert.match(refused(head.slice(0, -1)), /newline/);
  assert.match(refused(head + sig.replace(/\n$/, '') + '\n'), /twice/);
  assert.match(refused(head.replace('\ntime', '\ntime 2026-12-01T23:10:00.123Z\ntime')), /does not verify|one extension/);
  assert.match(refused(head.replace('\n42\n', '\n42\r\n')), /control character/);
  assert.match(refused(head.replace('host-a', 'host-\ud800')), /UTF-8/);
  assert.match(refused(head.replace('—', '-')), /not a signature line/);
  assert.match(refused(head + 'garbage\n'), /not a signature line/);
  assert.match(refused(head.replace(/=\n$/, '\n')), /base64/);
  assert.match(refused(head.replace(/\n\n/, '\n\n\n')), /extension line is empty/);
  assert.match(refused(head + '\u2014 x ' + 'A'.repeat(40_000) + '\n'), /over/);
  // An Airlock head without its time line, though validly signed, is not an Airlock tree head.
  const bare = `${origin}\n42\n${root.toString('base64')}\n`;
  const bareNote = `${bare}\n\u2014 ${origin} ${Buffer.concat([keyHash(origin, 1, logKey.publicRaw), ed25519Sign(bare)]).toString('base64')}\n`;
  assert.ok(typeof verifyCheckpoint(bareNote, [logKey.publicRaw]) !== 'string');
  assert.match(refused(bareNote), /one extension line/);
});

test('tree head lines: round trip, a syslog header before the tag, and bad lines reported by number, not thrown', () => {
  const syslog = `<134>1 2026-12-01T23:10:00.123Z host-a airlock 4242 - - ${treeHeadLine(head)}\r`;
  const text = [treeHeadLine(head), '', 'other syslog message', 'airlock-tree-head !!!', 'airlock-tree-head ' + Buffer.from([0xff, 0xfe]).toString('base64'), 'airlock-tree-head ' + 'A'.repeat(MAX_TREE_HEAD_LINE), treeHeadLine(head + 'x'), syslog].join('\n') + '\n';
  const r = readTreeHeadLines(text);
  assert.deepEqual(r[0], { line: 1, note: head });
  assert.deepEqual(r.map((x) => x.line), [1, 4, 5, 6, 7, 8]);
  assert.match((r[1] as { reason: string }).reason, /not "airlock-tree-head/);
  assert.match((r[2] as { reason: string }).reason, /UTF-8/);
  assert.match((r[3] as { reason: string }).reason, /over 65536/);
  assert.deepEqual(r[5], { line: 8, note: head });
  // The line form carries the note; verifying it is the caller's step, and a tampered note fails there.
  assert.equal(typeof parseTreeHead((r[4] as { note: string }).note, [logKey.publicRaw]), 'string');
  assert.ok(typeof parseTreeHead((r[0] as { note: string }).note, [logKey.publicRaw]) !== 'string');
});
