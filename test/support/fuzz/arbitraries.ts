/**
 * Generators of bad input for the fuzzers (test/integration/fuzz-*.test.ts):
 * text and JSON values with the characters parsers trip on, frame streams, parameter objects
 * shaped like a method's or an action's, policy files, checkpoint lines and notes.
 * Strings are bounded (MAX_TEXT): the masker is super-linear on some inputs (issue 23),
 * and a fuzzer that found that on every run would find nothing else.
 */
import fc from 'fast-check';
import { stringify as tomlStringify } from 'smol-toml';
import { MAX_FRAME } from '../../../src/protocol/framing.js';
import { PROTOCOL } from '../../../src/protocol/messages.js';
import { METHODS, METHOD_TABLE, type Method } from '../../../src/protocol/methods.js';
import { CATALOGUE } from '../../../src/catalogue/index.js';
import type { AnyAction } from '../../../src/catalogue/action.js';
import { paramNames } from '../../../src/catalogue/param-errors.js';
import { RISKS } from '../../../src/protocol/risk.js';
import { PSEUDONYM_CLASSES } from '../../../src/mask/pseudonyms.js';

/** The longest generated string: long enough to cross every parser's small limits, short of the masker's blow-up (issue 23). */
export const MAX_TEXT = 256;

const ACTION_NAMES = [...CATALOGUE.keys()];

/** Strings parsers treat specially: paths, options, prototypes, controls, bidi, lone surrogates, markers, numbers. */
const SPECIAL = [
  '', ' ', '-', '--', '-rf', '--help', '.', '..', '/', '/etc/passwd', '../../etc/shadow', '/srv/www/*', '*', '?', '~root',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'null', 'true', '0', '-0', '1e309', 'NaN', '0x10',
  '\u0000', '\n', '\r\n', '\t', '\u001b[31m', '\u202e', '\u2066', '\u200b', '\ufeff', '\u2028', '\ud800', '\udc00', '\ud83d\ude00',
  '⟦secret:password⟧', '⟦', 'password=hunter2', 'key=key=key=', 'Authorization: Bearer abc', '-----BEGIN PRIVATE KEY-----',
  'root', 'nobody', 'tx_000000000000000000000000', 'sha256:' + '0'.repeat(64), 'e'.repeat(MAX_TEXT),
];

/** One code point of any kind, or half of a surrogate pair (what UTF-8 cannot encode). */
const anyChar = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
);

/** Text: special strings, random characters, and pieces of both glued together. */
export const text = (pieces: readonly string[] = SPECIAL, maxLength = MAX_TEXT): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...pieces),
    fc.string({ unit: anyChar, maxLength: 24 }),
    fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ unit: anyChar, maxLength: 8 })), { maxLength: 12 }).map((p) => p.join('').slice(0, maxLength)),
  );

const number = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e21, 0.5, -0.000001, 7 * 24 * 60 + 1),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A JSON value (what the wire can carry): scalars of every kind, arrays and objects nested a few levels. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text(),
    number,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(text(), tie('value')), { maxLength: 4 }).map((e) => Object.fromEntries(e)),
  ),
})).value;

/**
 * An object with some of `names` as keys (and perhaps others), each a JSON value or one of
 * `hints`' values for it. Object.fromEntries makes "__proto__" an own key, as JSON.parse does.
 */
export const objectOf = (names: readonly string[], hints: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<Record<string, unknown>> => {
  const key = names.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: text() }) : text();
  const entry = key.chain((k) => fc.tuple(fc.constant(k), Object.hasOwn(hints, k) ? fc.oneof(hints[k]!, jsonValue) : jsonValue));
  return fc.array(entry, { maxLength: names.length + 2 }).map((e) => Object.fromEntries(e));
};

/** An action's parameters: its own names (from its schema), with values near and far from valid ones. */
export const actionParams = (a: AnyAction): fc.Arbitrary<unknown> => fc.oneof({ weight: 9, arbitrary: objectOf(paramNames(a.params)) }, { weight: 1, arbitrary: jsonValue });

/** Any action, and parameters for it. */
export const actionCall: fc.Arbitrary<{ action: AnyAction; params: unknown }> = fc
  .constantFrom(...CATALOGUE.values())
  .chain((action) => actionParams(action).map((params) => ({ action, params })));

/** Lower-case hex digits. */
const hex = (o: { minLength?: number; maxLength?: number }) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), ...o });

const txId = fc.oneof(hex({ minLength: 24, maxLength: 24 }).map((h) => `tx_${h}`), text());

/** Values that get past a method's first checks, so the fuzz reaches further in. */
const METHOD_HINTS: Record<string, fc.Arbitrary<unknown>> = {
  action_name: fc.constantFrom(...ACTION_NAMES),
  action: fc.constantFrom(...ACTION_NAMES),
  transaction_id: txId,
  preview_digest: hex({ minLength: 64, maxLength: 64 }).map((h) => `sha256:${h}`),
  receipt: text(),
  state: fc.constantFrom('Previewed', 'Approved', 'Denied', 'Running', 'Succeeded', 'Failed', 'Cancelled', 'Expired'),
  since: fc.constantFrom('2026-01-01T00:00:00.000Z', '1h', '-1', 'yesterday'),
  limit: number,
  after_seq: number,
  offset: number,
  size: number,
  old_size: number,
  new_size: number,
  timeout_ms: fc.integer({ min: -10, max: 200 }),
  code: fc.stringMatching(/^[0-9]{6}$/),
  current_code: fc.stringMatching(/^[0-9]{6}$/),
  totp_code: fc.stringMatching(/^[0-9]{6}$/),
  user: fc.constantFrom('root', 'nobody', 'alice', '-r', ''),
  unmask: fc.boolean(),
  // Never a valid key name: a generated case must not rotate the daemon's keys.
  key: fc.constantFrom('Audit', 'approval ', '', 'audit\u0000'),
  // A preview's or execute's parameters: shaped like some action's (not always the one named).
  params: fc.constantFrom(...CATALOGUE.values()).chain((a) => actionParams(a)),
};

/** A method's parameters: some of its own names with values near and far from valid ones. */
export const methodParams = (m: Method): fc.Arbitrary<Record<string, unknown>> => objectOf(Object.keys(METHOD_TABLE[m].params), METHOD_HINTS);

/** A method (mostly a real one) and parameters for it; a third of them previews of an action with parameters shaped like its own. */
export const methodCall: fc.Arbitrary<{ method: string; params: unknown }> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...METHODS).chain((method) => methodParams(method).map((params) => ({ method, params }))) },
  { weight: 4, arbitrary: fc.constantFrom(...CATALOGUE.values()).chain((a) => actionParams(a).map((params) => ({ method: 'preview', params: { action_name: a.name, params } }))) },
  { weight: 1, arbitrary: fc.record({ method: text([...METHODS, ...SPECIAL]), params: jsonValue }) },
);

// --- frames ------------------------------------------------------------------

/** A message the daemon may be sent: a request (mostly of a real method), a hello, or any JSON. */
export const message: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('request'), id: fc.oneof(hex({ maxLength: 12 }), text()), method: fc.constant(''), params: fc.constant({}) }).chain((r) => methodCall.map((c) => ({ ...r, ...c }))) },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('hello', 'request', 'Hello'), protocol: fc.constantFrom(PROTOCOL, 'lacs/0.0', ''), token: text() }, { requiredKeys: ['type'] }) },
  { weight: 2, arbitrary: jsonValue },
);

const utf8 = (s: string) => Buffer.from(s, 'utf8');

/** A frame body: JSON of a message, that JSON cut or with bytes changed, deep nesting, bad UTF-8, random bytes. */
export const frameBody: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 5, arbitrary: message.map((m) => utf8(JSON.stringify(m) ?? 'null')) },
  {
    weight: 2,
    arbitrary: fc.tuple(message, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([m, at, bytes]) => {
      const b = utf8(JSON.stringify(m) ?? 'null');
      const i = at % (b.length + 1);
      return Buffer.concat([b.subarray(0, i), Buffer.from(bytes), b.subarray(i + (at & 1))]);
    }),
  },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 2000 }), fc.constantFrom('[', '{"a":')).map(([n, open]) => utf8(open.repeat(n))) },
  { weight: 1, arbitrary: fc.constantFrom([0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xff], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]).map((b) => Buffer.concat([utf8('{"type":"'), Buffer.from(b), utf8('"}')])) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b)) },
);

/** One frame as it crosses the socket: its header says its length, or lies (0, over the limit, any number). */
export const frame: fc.Arbitrary<{ bytes: Buffer; honest: boolean }> = fc.oneof(
  { weight: 8, arbitrary: frameBody.map((body) => ({ bytes: withHeader(body, body.length), honest: true })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(frameBody, fc.oneof(fc.constant(0), fc.constant(MAX_FRAME + 1), fc.constant(0xffffffff), fc.integer({ min: 1, max: 0xffffffff })))
      .map(([body, length]) => ({ bytes: withHeader(body, length), honest: length === body.length })),
  },
);

function withHeader(body: Buffer, length: number): Buffer {
  const h = Buffer.alloc(4);
  h.writeUInt32BE(length, 0);
  return Buffer.concat([h, body]);
}

/** Frames one after another, cut into chunks at arbitrary places (a chunk may end inside a header). */
export const frameStream: fc.Arbitrary<{ frames: Array<{ bytes: Buffer; honest: boolean }>; chunks: Buffer[] }> = fc
  .tuple(fc.array(frame, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }))
  .map(([frames, cuts]) => {
    const all = Buffer.concat(frames.map((f) => f.bytes));
    const at = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
    const chunks: Buffer[] = [];
    let from = 0;
    for (const c of [...at, all.length]) {
      chunks.push(all.subarray(from, c));
      from = c;
    }
    return { frames, chunks };
  });

// --- policy ------------------------------------------------------------------

const ruleParams = fc.constantFrom(...CATALOGUE.values()).chain((a) =>
  fc.array(fc.tuple(fc.oneof(fc.constantFrom(...paramNames(a.params), 'x'), text()), fc.oneof(text(['/srv/*', 'web?', '*', 'a/../b', '-x', ...SPECIAL]), number, fc.boolean())), { maxLength: 3 }).map((e) => ({ action: a.name, params: Object.fromEntries(e) })),
);

/** A TOML value of any kind (smol-toml writes these; null has no TOML spelling). */
const tomlValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, text(), number, fc.boolean(), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(text(), tie('v'), { maxKeys: 3 })),
})).v;

/** One value of a field: a likely one or anything. */
const near = <T>(likely: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: likely }, { weight: 1, arbitrary: tomlValue });

const policyObject = fc.record(
  {
    reads: near(fc.constantFrom('auto', 'ask', 'never')),
    unattended: near(fc.array(fc.constantFrom('agent', 'root', '-x', 'a b', 'ci-bot'), { maxLength: 3 })),
    approval: near(fc.record({ second_factor_from: near(fc.constantFrom('high', 'medium', 'low')) }, { requiredKeys: [] })),
    risk: near(fc.dictionary(fc.constantFrom(...ACTION_NAMES, 'NoSuchAction'), fc.constantFrom(...RISKS, 'none'), { maxKeys: 3 })),
    rule: near(
      fc.array(
        fc.record(
          {
            id: near(fc.constantFrom('r1', 'r2', 'reads', 'no-change', 'R', 'a'.repeat(41))),
            cooldown_minutes: near(fc.constantFrom(0, 5, -1, 10081, 1.5)),
            daily_cap: near(fc.constantFrom(1, 10, 0, 10001)),
            rp: ruleParams,
          },
          { requiredKeys: ['rp'] },
        ).map(({ rp, ...r }) => ({ ...r, ...rp })),
        { maxLength: 3 },
      ),
    ),
    masking: near(fc.record({ pseudonyms: near(fc.array(fc.constantFrom(...PSEUDONYM_CLASSES, 'phone'), { maxLength: 4 })) }, { requiredKeys: [] })),
    notify: near(fc.record({ command: near(fc.array(text(['/usr/bin/true', '']), { maxLength: 3 })), webhook: near(fc.constantFrom('https://h.example/x', 'ftp://h/', 'http://[::1]:99999/', 'not a url')) }, { requiredKeys: [] })),
    audit: near(
      fc.record(
        {
          checkpoint_interval_seconds: near(fc.constantFrom(1, 60, 0, 86401)),
          syslog: near(fc.constantFrom('tcp://127.0.0.1:514', 'tls://h:65536', 'udp://h:1', 'tcp://-h:1')),
          syslog_ca: near(fc.constantFrom('/etc/ca.pem', 'ca.pem', '/\u0001')),
          witnesses: near(fc.array(fc.record({ url: near(fc.constantFrom('https://w.example/add', 'file:///x')), key: near(text(['w+01234567+AQ==', 'w+deadbeef+' + 'A'.repeat(44)])) }), { maxLength: 2 })),
          postgres: near(fc.constantFrom('postgres://u@127.0.0.1/db', 'postgres://u:pw@h/db', 'mysql://x')),
        },
        { requiredKeys: [] },
      ),
    ),
    store: near(
      fc.record(
        {
          keep_details: near(fc.constantFrom('30d', '0s', '12h', '1y', '')),
          archive_segment_entries: near(fc.constantFrom(16, 15, 10_000_001)),
          archive_dir: near(fc.constantFrom('/var/lib/a', 'rel', '/\n')),
          min_free_mb: near(fc.constantFrom(1, 0, 1_048_577)),
          reserve_mb: near(fc.constantFrom(1, 0)),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

/** smol-toml's text of the object (it writes any object these generators make; a value it cannot write is the empty policy). */
const toml = (p: Record<string, unknown>): string => {
  try {
    return tomlStringify(p);
  } catch {
    return '';
  }
};

/** Policy text: a policy-shaped TOML document, the same cut or with characters changed, or any text. */
export const policyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: policyObject.map(toml) },
  {
    weight: 3,
    arbitrary: fc.tuple(policyObject, fc.nat(), text(['[', ']', '=', '"', "'''", '\n', '[[rule]]', '#', '{', '}', ',', '\\u0000'])).map(([p, at, s]) => {
      const t = toml(p);
      const i = at % (t.length + 1);
      return t.slice(0, i) + s + t.slice(i + (at % 3));
    }),
  },
  { weight: 1, arbitrary: text(['[rule]', '[[rule]]', 'reads = "auto"', '\n', '=', '"', 'a.b.c = 1', '[risk]', ...SPECIAL], 4096) },
);

// --- checkpoints and notes ---------------------------------------------------

/** `base` with a piece cut out and another put in at one place (a typo, a truncation, a splice). */
export const mutated = (base: fc.Arbitrary<string>, pieces: readonly string[] = SPECIAL): fc.Arbitrary<string> =>
  fc.tuple(base, fc.nat(), fc.nat({ max: 8 }), fc.oneof(fc.constant(''), text(pieces, 64))).map(([t, at, cut, put]) => {
    const i = at % (t.length + 1);
    return t.slice(0, i) + put + t.slice(i + cut);
  });

const CHECKPOINT_PIECES = ['airlock-checkpoint ', ' ', 'host/airlock/0123456789abcdef', 'HOST/airlock/x', '00', '9007199254740993', '0'.repeat(64), '2026-02-30T00:00:00.000Z', '2026-01-01T00:00:00Z', 'f'.repeat(128), '{"size":1}', '\r', '\n'];

/** Checkpoint text ("<origin> <size> <head_hash> <ts>"): fields from near-valid pools, or anything. */
export const checkpointText: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.oneof(fc.constantFrom('h/airlock/0123456789abcdef', 'a.b-c/airlock/fedcba9876543210', 'H/airlock/0123456789abcdef', '/airlock/0123456789abcdef'), text()),
      fc.oneof(fc.nat().map(String), fc.constantFrom('0', '01', '-1', '9007199254740993', '1e3', ' 1')),
      fc.oneof(hex({ minLength: 64, maxLength: 64 }), hex({ maxLength: 66 })),
      fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.constantFrom('2026-02-30T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '+012026-01-01T00:00:00.000Z')),
    )
    .map((f) => f.join(' ')),
  mutated(fc.constant('h/airlock/0123456789abcdef 1 ' + '0'.repeat(64) + ' 2026-01-01T00:00:00.000Z'), CHECKPOINT_PIECES),
  text(CHECKPOINT_PIECES),
);

/** A checkpoint file or syslog export: lines signed for real (`signed`), the same mutated, and other lines. */
export const checkpointFile = (signed: readonly string[]): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.array(fc.oneof(fc.constantFrom(...signed), mutated(fc.constantFrom(...signed), CHECKPOINT_PIECES), checkpointText.map((t) => `airlock-checkpoint ${t} ${'0'.repeat(128)}`), text(CHECKPOINT_PIECES)), { maxLength: 5 }),
      fc.constantFrom('\n', '\r\n'),
    )
    .map(([lines, eol]) => lines.join(eol));

const NOTE_PIECES = ['\n', '\n\n', '\u2014 ', ' ', '+', '=', 'time ', 'AAAA', 'A'.repeat(43) + '=', '\u0000', '\t', '\ud800'];

/** Signed-note text: notes signed for real (`signed`), the same mutated, notes assembled from pieces, anything. */
export const noteText = (signed: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...signed) },
    { weight: 5, arbitrary: mutated(fc.constantFrom(...signed), NOTE_PIECES) },
    { weight: 2, arbitrary: fc.array(text(NOTE_PIECES, 96), { maxLength: 6 }).map((l) => l.join('\n') + '\n') },
    { weight: 1, arbitrary: text(NOTE_PIECES) },
  );

/** A file of tree-head lines: `airlock-tree-head <base64 of a note>` for real notes and mutated ones, and other lines. */
export const treeHeadFile = (signedLines: readonly string[]): fc.Arbitrary<string> =>
  fc
    .array(fc.oneof(fc.constantFrom(...signedLines), mutated(fc.constantFrom(...signedLines), ['airlock-tree-head ', '=', '+', '/', '\r', '\n', '%'])), { maxLength: 4 })
    .map((l) => l.join('\n'));

/** A verifier key ("<name>+<8 hex>+<base64>"): real ones mutated, and assembled ones. */
export const vkeyText = (real: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    mutated(fc.constantFrom(...real), ['+', 'A', '=', ' ', '/']),
    fc.tuple(text(['w', 'a b', '']), hex({ maxLength: 9 }), fc.uint8Array({ maxLength: 34 })).map(([n, h, b]) => `${n}+${h}+${Buffer.from(b).toString('base64')}`),
  );

// --- the masker ----------------------------------------------------------------

const MASK_PIECES = [
  'key=', 'password', 'passwd: ', 'secret', 'token=', '=', ':', ' ', '\n', '\\n', '"', "'", '`', 'export ', '--password ', '-p',
  '-----BEGIN OPENSSH PRIVATE KEY-----\n', 'b3BlbnNzaC1rZXktdjE=\n', '-----END OPENSSH PRIVATE KEY-----', 'Authorization: Bearer ',
  'Basic dXNlcjpwYXNz', 'https://u:p@h.example/x', 'postgres://app:s3cr3t@db/app', 'AKIAIOSFODNN7EXAMPLE', 'ghp_' + 'a'.repeat(36),
  'IDENTIFIED BY ', "PASSWORD '", 'mysql -u root -phunter2', 'alice@example.com', '10.0.0.1', 'db.internal.example',
  '⟦secret:password⟧', '⟦', '⟧', '\u001b[36m', '\u001b[0m', '\u001b[', 'x'.repeat(40), '0123456789abcdef', '\r', '\t',
];

/** Text for the masker: secrets and the shapes detectors look for, glued together, bounded to MAX_TEXT (issue 23). */
export const maskInput: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...MASK_PIECES) }, { weight: 1, arbitrary: fc.string({ unit: anyChar, maxLength: 6 }) }), { maxLength: 24 }).map((p) => p.join('').slice(0, MAX_TEXT)) },
  { weight: 1, arbitrary: text(MASK_PIECES) },
);
