/** The one escaping function (src/protocol/escape-text.ts), its uses in output and errors, and the CLI renderer over raw text. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIDI_CONTROLS, LINE_SEPARATORS, escapeDeep, escapeText, hasUnsafeText, hasUnsafeTextDeep } from '../../src/protocol/escape-text.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { releaseOutput, MAX_LINE_LENGTH } from '../../src/daemon/output.js';
import { renderHistory, renderResult } from '../../src/cli/render.js';
import { renderPreview } from '../../src/client/render-preview.js';
import type { PreviewEnvelope, ResultEnvelope, TransactionView } from '../../src/protocol/messages.js';

const hex = (cp: number) => (cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`);
const C0 = Array.from({ length: 0x20 }, (_, i) => i);
const C1 = Array.from({ length: 0x20 }, (_, i) => 0x80 + i);
const DEL = 0x7f;
/** Everything a terminal could obey or that reorders what a person reads. */
const UNSAFE = [...C0, DEL, ...C1, ...BIDI_CONTROLS, ...LINE_SEPARATORS];

test('every C0 and C1 control, DEL, every bidirectional control and the line separators become visible escapes', () => {
  assert.equal(C0.length + C1.length + 1, 65);
  assert.deepEqual([...BIDI_CONTROLS].sort(), [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
  for (const cp of UNSAFE) {
    const ch = String.fromCharCode(cp);
    assert.equal(escapeText(`a${ch}b`), `a${hex(cp)}b`, `U+${cp.toString(16)} in line mode`);
    assert.ok(hasUnsafeText(ch), `U+${cp.toString(16)} is unsafe`);
    const kept = cp === 0x09 || cp === 0x0a;
    assert.equal(escapeText(`a${ch}b`, 'block'), kept ? `a${ch}b` : `a${hex(cp)}b`, `U+${cp.toString(16)} in block mode`);
    assert.equal(hasUnsafeText(ch, 'block'), !kept);
  }
  assert.equal(escapeText('\u001b[31mred\u009b0m'), '\\x1b[31mred\\x9b0m');
  assert.equal(escapeText('txt.\u202eexe'), 'txt.\\u202eexe');
});

test('invisible characters that make text look like other text are escaped too: soft hyphen, zero-width, joiners, BOM, tags', () => {
  for (const cp of [0xad, 0x200b, 0x200c, 0x200d, 0x2060, 0x2064, 0xfeff]) assert.equal(escapeText(`a${String.fromCharCode(cp)}b`), `a${cp <= 0xff ? '\\x' + cp.toString(16) : '\\u' + cp.toString(16)}b`);
  assert.equal(escapeText('root\u{e0041}\u{e007f}'), 'root\\u{e0041}\\u{e007f}');
  assert.equal(escapeText('😀'), '😀', 'an ordinary astral character stays');
});

test('everything else is left alone, backslashes included, so escaping twice is escaping once', () => {
  const plain = 'héllo wörld ✓ 日本 😀 \\x1b back\\slash ~!@#$%^&*()_+{}|:"<>?`-=[];\',./ \u00a0';
  assert.equal(escapeText(plain), plain);
  assert.equal(hasUnsafeText(plain), false);
  for (let cp = 0x20; cp < 0x7f; cp++) assert.equal(escapeText(String.fromCharCode(cp)), String.fromCharCode(cp));
  const all = UNSAFE.map((cp) => String.fromCharCode(cp)).join('x');
  for (const mode of ['line', 'block'] as const) {
    const once = escapeText(all, mode);
    assert.equal(escapeText(once, mode), once, `idempotent in ${mode} mode`);
    assert.equal(hasUnsafeText(once, mode), false);
  }
});

test('escapeDeep escapes every string of a JSON value, keys included; hasUnsafeTextDeep finds them', () => {
  const v = { 'k\u202e': ['a\u001b', { n: 1, b: true, z: null, s: 'x\u009by\nz\tw' }] };
  assert.deepEqual(escapeDeep(v), { 'k\\u202e': ['a\\x1b', { n: 1, b: true, z: null, s: 'x\\x9by\nz\tw' }] });
  assert.equal(hasUnsafeTextDeep(v), true);
  assert.equal(hasUnsafeTextDeep(escapeDeep(v)), false);
  assert.equal(hasUnsafeTextDeep({ key: 'multi\nline\ttext' }), false, 'newline and tab are allowed in block mode');
});

test('errors leave the daemon escaped: message and hint', () => {
  const wire = new AirlockError('validation', 'x', 'no action "\u001b[2J\u202eevil"', 'try \u009b1m').toWire();
  assert.equal(wire.message, 'no action "\\x1b[2J\\u202eevil"');
  assert.equal(wire.hint, 'try \\x9b1m');
  assert.equal(new AirlockError('validation', 'x', 'two\nlines').toWire().message, 'two\\x0alines', 'a message cannot forge a line of its own');
});

test('output lines keep tabs and are otherwise escaped; a long line is cut before it is escaped', async () => {
  const out = await releaseOutput(['a\tb\u001b[2Jc\r\n', 'd\u009b\u202ee\n']);
  assert.deepEqual(out.lines, ['a\tb\\x1b[2Jc\\x0d', 'd\\x9b\\u202ee']);
  assert.equal(out.truncated, false);
  const long = await releaseOutput(['\u001b'.repeat(MAX_LINE_LENGTH + 10)]);
  assert.equal(long.truncated, true);
  assert.equal(long.lines[0], '\\x1b'.repeat(MAX_LINE_LENGTH) + '…');
  // A cut never leaves half a surrogate pair.
  const emoji = await releaseOutput(['x'.repeat(MAX_LINE_LENGTH - 1) + '😀😀']);
  assert.equal(emoji.lines[0], 'x'.repeat(MAX_LINE_LENGTH - 1) + '…');
});

const RAW = 'raw\u001b[2J\u009b31m\u202e\u2066';
/** A preview as a daemon that forgot to escape (another version, a bug) would send it. */
function rawPreview(): PreviewEnvelope {
  return {
    transaction_id: 'tx_' + '0'.repeat(24),
    action_name: `A${RAW}`,
    params: { p: RAW },
    request_hash: '0'.repeat(64),
    summary: RAW,
    risk: 'medium',
    min_role: 'dev',
    current_state: { s: RAW, [RAW]: [RAW] },
    proposed_change: {
      change: RAW,
      mechanism: [
        { kind: 'command', program: 'ls', args: [RAW], env: { K: RAW }, undo: { kind: 'command', program: 'rm', args: [RAW] } },
        { kind: 'fileScan', path: RAW },
        { kind: 'fileWrite', path: RAW, mode: '0644', owner: null, parent: null, binds: 'content', bytes: 1, sha256: '0'.repeat(64), before: null, diff: { removed: [RAW], added: [RAW], not_shown: 0 } },
        { kind: 'fileWrite', path: RAW, mode: '0644', owner: { uid: 0, gid: 0 }, parent: null, binds: 'own_lines', sha256: '0'.repeat(64), diff: { removed: [RAW], added: [RAW], not_shown: 0 } },
        { kind: 'filePatch', path: RAW, sha256: '0'.repeat(64), diff: { removed: [RAW], added: [RAW], not_shown: 0 } },
        { kind: 'fileDelete', path: RAW, before: { bytes: 3, sha256: '0'.repeat(64) } },
      ],
      digest: '0'.repeat(64),
    },
    side_effects: [RAW],
    reboot_required: false,
    rollback_available: true,
    warnings: [RAW],
    requested_by: RAW,
    created_at: '2030-01-01T00:00:00Z',
    expires_at: '2030-01-01T00:15:00Z',
    preview_digest: '0'.repeat(64),
  };
}

test('the CLI renderer prints no raw control or bidirectional character, whatever the daemon sent (colour is off here: not a TTY)', () => {
  const result: ResultEnvelope = { transaction_id: RAW, action_name: RAW, request_hash: RAW, state: 'Failed', summary: RAW, needs_reboot: false, changed: true, rollback_ref: RAW, output: [RAW, `tab\there ${RAW}`], output_truncated: false };
  const row: TransactionView = { transaction_id: RAW, action_name: RAW, risk: 'low', state: 'Succeeded', request_hash: RAW, requested_by: RAW, approved_by: RAW, created_at: RAW, updated_at: RAW, expires_at: RAW, summary: RAW };
  for (const [what, text] of [['preview', renderPreview(rawPreview())], ['result', renderResult(result)], ['history', renderHistory([row])]] as const) {
    assert.equal(hasUnsafeText(text, 'block'), false, `${what}: ${JSON.stringify(text)}`);
    assert.ok(text.includes('\\x1b[2J\\x9b31m\\u202e\\u2066'), `${what} shows the escapes`);
  }
  const shown = renderPreview(rawPreview());
  assert.match(shown, /^ +\+raw\\x1b/m, 'file lines are shown diff-style');
  assert.match(shown, /^ +undo rm /m, 'undo commands are shown');
  const tabbed = rawPreview();
  tabbed.proposed_change.mechanism = [{ kind: 'filePatch', path: '/etc/x', sha256: '0'.repeat(64), diff: { removed: ['a\tb'], added: ['forged\n  warning nothing to see'], not_shown: 0 } }];
  const text = renderPreview(tabbed);
  assert.match(text, /^ +-a\tb$/m, 'a tab in a file line is shown as a tab');
  assert.match(text, /^ +\+forged\\x0a {2}warning nothing/m, 'a newline cannot start a line of its own');
});
