/**
 * The preview as a person reads it (src/cli/render.ts, src/cli/plan.ts), built from what the
 * daemon really binds (bindMechanism over a fixture host): a file edit is a unified diff that
 * `patch` applies to the old file to give exactly the new one; an SSH key carries the
 * fingerprint `ssh-keygen -lf` prints; state changes read `field: before -> after`; the raw
 * JSON only with verbose; the match code in every preview. And the output stream
 * (src/daemon/output-stream.ts): masked like the result, batched, bounded, and counting what
 * it could not send.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyAction } from '../../src/catalogue/action.js';
import type { Step } from '../../src/catalogue/mechanism.js';
import { bindMechanism } from '../../src/daemon/mechanism-binding.js';
import { OutputStream, STREAM_LINES_PER_NOTE, STREAM_MAX_CHARS, STREAM_WAITING_CHARS } from '../../src/daemon/output-stream.js';
import { releaseOutput } from '../../src/daemon/output.js';
import { renderResult } from '../../src/cli/render.js';
import { renderPreview } from '../../src/client/render-preview.js';
import type { OutputNotice, PreviewEnvelope, ResultEnvelope } from '../../src/protocol/messages.js';
import { fingerprintText, sshKeyFingerprint } from '../../src/protocol/ssh-fingerprint.js';
import { matchCode } from '../../src/protocol/match-code.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { FixtureHost } from './catalogue-fixture-host.js';

async function previewOf(steps: Step[], files: Record<string, string>, change: unknown = null): Promise<PreviewEnvelope> {
  const proposed = (await bindMechanism({ name: 'Test' } as unknown as AnyAction, change, steps, new FixtureHost(files))).proposed;
  return {
    transaction_id: 'tx_' + '0'.repeat(24),
    action_name: 'SetSshdOption',
    params: { option: 'MaxAuthTries', value: '3' },
    request_hash: 'a'.repeat(64),
    summary: 'Set sshd MaxAuthTries 3',
    risk: 'high',
    min_role: 'admin',
    current_state: { in_force: 'MaxAuthTries 6' },
    proposed_change: proposed,
    side_effects: [],
    reboot_required: false,
    rollback_available: true,
    warnings: [],
    requested_by: 'agent(uid 1001)',
    created_at: '2030-01-01T00:00:00.000Z',
    expires_at: '2030-01-01T00:15:00.000Z',
    preview_digest: 'b'.repeat(64),
  };
}

/** The unified diff of `path` as the preview prints it, unindented: from its `---` line to the next line that is not part of it. */
function printedDiff(text: string, path: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(`    --- ${path}`);
  assert.ok(start >= 0, `the preview has a --- ${path} header:\n${text}`);
  const body: string[] = [];
  for (let i = start; i < lines.length && /^    ([-+ @\\]|$)/.test(lines[i]!) && lines[i] !== ''; i++) body.push(lines[i]!.slice(4));
  return body.join('\n') + '\n';
}

/** A random text of short lines, sometimes without its final newline. */
function randomText(seed: number, base?: string[]): string {
  let x = seed;
  const rnd = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
  const lines = base ? [...base] : Array.from({ length: 5 + rnd(40) }, (_, i) => `line ${i} ${'abc'.slice(rnd(3))}`);
  if (base) {
    for (let k = 0, n = 1 + rnd(6); k < n; k++) {
      const at = rnd(lines.length + 1);
      const op = rnd(3);
      if (op === 0) lines.splice(at, 1);
      else if (op === 1) lines.splice(at, 0, `new ${seed} ${k}`);
      else if (at < lines.length) lines[at] = `changed ${seed} ${k}`;
    }
  }
  return lines.join('\n') + (rnd(5) === 0 ? '' : '\n');
}

test('a file edit is shown as a unified diff with ---/+++ headers and @@ hunks that patch(1) applies to the old file, giving the new one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-diff-'));
  try {
    for (let seed = 1; seed <= 40; seed++) {
      const old = randomText(seed);
      const neu = randomText(seed + 1000, old.replace(/\n$/, '').split('\n'));
      if (old === neu) continue;
      const p = await previewOf([{ kind: 'fileWrite', path: '/etc/ssh/sshd_config', content: neu, mode: 0o644 }], { '/etc/ssh/sshd_config': old });
      const shown = renderPreview(p);
      const diff = printedDiff(shown, '/etc/ssh/sshd_config');
      assert.match(diff, /^--- \/etc\/ssh\/sshd_config\n\+\+\+ \/etc\/ssh\/sshd_config\n@@ -\d+(,\d+)? \+\d+(,\d+)? @@\n/);
      writeFileSync(join(dir, 'old'), old);
      writeFileSync(join(dir, 'diff'), diff);
      const r = spawnSync('/usr/bin/patch', ['--quiet', '--force', '-o', join(dir, 'new'), join(dir, 'old'), join(dir, 'diff')], { encoding: 'utf8' });
      assert.equal(r.status, 0, `patch applies the shown diff (seed ${seed}): ${r.stdout}${r.stderr}\n${diff}`);
      assert.equal(readFileSync(join(dir, 'new'), 'utf8'), neu, `the shown diff gives exactly the new content (seed ${seed})`);
      rmSync(join(dir, 'new'));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('context: a change deep in a file shows 3 unchanged lines around it and the hunk header diff -u prints', async () => {
  const old = Array.from({ length: 30 }, (_, i) => `Option${i} value`).join('\n') + '\n';
  const neu = old.replace('Option15 value', 'Option15 changed');
  const shown = renderPreview(await previewOf([{ kind: 'fileWrite', path: '/etc/ssh/sshd_config', content: neu, mode: 0o644 }], { '/etc/ssh/sshd_config': old }));
  const dir = mkdtempSync(join(tmpdir(), 'airlock-diff-'));
  try {
    writeFileSync(join(dir, 'a'), old);
    writeFileSync(join(dir, 'b'), neu);
    const r = spawnSync('/usr/bin/diff', ['-u', join(dir, 'a'), join(dir, 'b')], { encoding: 'utf8' });
    const body = r.stdout.split('\n').slice(2).join('\n');
    assert.equal(printedDiff(shown, '/etc/ssh/sshd_config').split('\n').slice(2).join('\n'), body, 'the hunks are the ones diff -u prints');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const created = renderPreview(await previewOf([{ kind: 'fileWrite', path: '/etc/new.conf', content: 'a\n', mode: 0o644 }], {}));
  assert.match(created, /^ {4}--- \/dev\/null\n {4}\+\+\+ \/etc\/new\.conf\n {4}@@ -0,0 \+1 @@|^ {4}--- \/dev\/null\n {4}\+\+\+ \/etc\/new\.conf\n {4}@@ -0,0 \+1,1 @@/m, 'a new file is diffed against /dev/null');
});

test('an SSH key is shown with the fingerprint ssh-keygen -lf prints for it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-key-'));
  try {
    for (const [type, bits] of [['ed25519', ''], ['rsa', '3072'], ['ecdsa', '384']] as const) {
      const file = join(dir, type);
      execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', bits] : []), '-N', '', '-C', `deploy@laptop`, '-f', file]);
      const key = readFileSync(`${file}.pub`, 'utf8').trim();
      const expected = execFileSync('/usr/bin/ssh-keygen', ['-lf', `${file}.pub`], { encoding: 'utf8' }).trim();
      assert.equal(fingerprintText(sshKeyFingerprint(key)!), expected, `${type}: the same line as ssh-keygen -lf`);
      const shown = renderPreview(await previewOf([], {}, { file: '/home/deploy/.ssh/authorized_keys', append_line: key, creates_file: true }));
      assert.ok(shown.includes(`key ${expected}`), `${type}: the preview shows ${expected}:\n${shown}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(sshKeyFingerprint('ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 x'), null, 'a blob of another type is no ed25519 key');
});

test('state changes read field: before -> after; the raw JSON of params, current state and change only with verbose', async () => {
  const p = await previewOf([{ kind: 'command', program: 'systemctl', args: ['restart', '--', 'nginx.service'] }], {}, { unit: 'nginx.service', state: { from: 'active, running, PID 812', to: 'active' }, text: 'stops and starts nginx.service', dependents: [] });
  const shown = renderPreview(p);
  assert.match(shown, /^Set sshd MaxAuthTries 3\n {2}SetSshdOption, high risk, needs admin /, 'one line says what, the next which action, its risk and the role it needs');
  assert.match(shown, /^ {4}unit nginx\.service: active, running, PID 812 -> active$/m, 'what it is to, and its state before and after');
  assert.match(shown, /^ {4}run systemctl restart -- nginx\.service$/m, 'the mechanism stays visible');
  assert.doesNotMatch(shown, /dependents/, 'an empty field is left out');
  for (const raw of ['"in_force"', '"option"', '"from"']) assert.ok(!shown.includes(raw), `no raw JSON (${raw}) without verbose`);
  const verbose = renderPreview(p, { verbose: true });
  for (const raw of ['"in_force": "MaxAuthTries 6"', '"option": "MaxAuthTries"', '"from": "active, running, PID 812"', p.proposed_change.digest, p.request_hash]) assert.ok(verbose.includes(raw), `verbose shows ${raw}`);
});

test('the match code: in every preview, a plan too, equal to matchCode(preview_digest); none for an unattended proposal; a malformed digest refused', async () => {
  const p = await previewOf([{ kind: 'command', program: 'systemctl', args: ['restart', '--', 'nginx.service'] }], {});
  const digest = createHash('sha256').update('a preview').digest('hex');
  const code = matchCode(digest);
  const line = `  match code: ${code} (the requester's preview and the approver's prompt show the same code)`;
  for (const verbose of [false, true]) assert.ok(renderPreview({ ...p, preview_digest: digest }, { verbose }).split('\n').includes(line), `verbose ${verbose}: the line, as the approver and the requester read it`);
  const plan: PreviewEnvelope = { ...p, action_name: 'Plan', preview_digest: digest, plan: { steps: [], reboot_required: false, services_interrupted: [], computed_at_execution: [], digest: 'c'.repeat(64) } };
  assert.ok(renderPreview(plan).split('\n').includes(line), 'a plan shows the code of its one approval');
  assert.notEqual(matchCode('b'.repeat(64)), code, "another preview's digest, another code");
  assert.doesNotMatch(renderPreview({ ...p, preview_digest: digest, unattended: true }), /match code/, 'nobody approves this preview: `airlock inbox run` previews it again, with a code of its own');
  assert.throws(() => renderPreview({ ...p, preview_digest: `sha256:${digest}` }), (e: unknown) => e instanceof AirlockError && e.code === 'preview_digest');
});

test('a result whose output was streamed is not printed twice', () => {
  const r: ResultEnvelope = { transaction_id: 'tx_1', action_name: 'A', request_hash: 'h', state: 'Succeeded', summary: 'did it', needs_reboot: false, changed: true, rollback_ref: null, output: ['line one'], output_truncated: false };
  assert.match(renderResult(r), /line one/);
  assert.doesNotMatch(renderResult(r, { outputShown: true }), /line one/);
});

/** An OutputStream whose notices are collected; `room` says whether the connection takes one. */
function stream(room: () => boolean = () => true) {
  const notices: Array<Omit<OutputNotice, 'type' | 'request_id' | 'event'>> = [];
  const s = new OutputStream('tx_1', (n, last) => {
    if (!last && !room()) return false;
    notices.push(n);
    return true;
  });
  return { s, notices, lines: () => notices.flatMap((n) => n.lines) };
}

test('streamed output is masked, cut and escaped exactly like the result, across chunk boundaries', async () => {
  const pieces = ['first line\npassword=hunter2 and more\n', 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789\n\x1b[2Jrepaint\nlast without newline', 'x'.repeat(5000) + '\n'];
  const { s, lines, notices } = stream();
  // Each piece in chunks of 7 characters, as a pipe may deliver it.
  for (const p of pieces) {
    for (let i = 0; i < p.length; i += 7) s.chunk(p.slice(i, i + 7));
    s.endPiece();
  }
  await s.finish();
  assert.deepEqual(lines(), (await releaseOutput(pieces)).lines, 'the same lines as the result');
  assert.ok(!lines().join('\n').includes('hunter2'), 'masked');
  assert.equal(notices.at(-1)!.last, true, 'the last notice says so');
});

test(`output that comes faster than it is masked waits up to STREAM_WAITING_CHARS (${STREAM_WAITING_CHARS}); past it nothing more is streamed, and every line is streamed or counted`, async () => {
  const line = `${'z'.repeat(99)}\n`;
  const s = stream();
  const total = Math.ceil((STREAM_WAITING_CHARS * 1.5) / line.length);
  // Chunks handed over at once, as a fast program's pipe does while the mask is busy.
  for (let i = 0; i < total; i += 640) s.s.chunk(line.repeat(Math.min(640, total - i)));
  s.s.endPiece();
  await s.s.finish();
  const notStreamed = s.notices.reduce((n, x) => n + x.not_streamed, 0);
  assert.ok(s.s.overflowed, 'what could not wait was not kept');
  assert.ok(notStreamed > 0, 'some output was not streamed');
  assert.equal(s.lines().length + notStreamed, total, 'every line is streamed or counted');
});

test('streamed output is batched and bounded: lines per notice, characters per transaction, and a client that takes nothing gets nothing queued', async () => {
  const many = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const a = stream();
  a.s.chunk(many);
  a.s.endPiece();
  await a.s.finish();
  assert.equal(a.lines().length, 1000);
  assert.ok(a.notices.every((n) => n.lines.length <= STREAM_LINES_PER_NOTE), 'at most STREAM_LINES_PER_NOTE lines per notice');
  // Long lines of escaped control characters: each notice stays small enough for a frame.
  const wide = stream();
  wide.s.chunk(Array.from({ length: 300 }, () => '\x01'.repeat(5000)).join('\n') + '\n');
  await wide.s.finish();
  assert.equal(wide.lines().length + wide.notices.reduce((n, x) => n + x.not_streamed, 0), 300, 'streamed up to the cap, the rest counted');
  assert.ok(wide.notices.every((n) => JSON.stringify(n).length < 256 * 1024), 'every notice far below a frame');

  const huge = Array.from({ length: 20_000 }, (_, i) => `${i} ${'y'.repeat(60)}`).join('\n') + '\n';
  const b = stream();
  b.s.chunk(huge);
  await b.s.finish();
  const chars = b.lines().reduce((n, l) => n + l.length + 1, 0);
  assert.ok(chars <= STREAM_MAX_CHARS + 100, `at most STREAM_MAX_CHARS streamed (${chars})`);
  assert.equal(b.lines().length + b.notices.reduce((n, x) => n + x.not_streamed, 0), 20_000, 'every line is streamed or counted');

  let open = true;
  const c = stream(() => open);
  c.s.chunk(many.slice(0, many.length / 2));
  open = false; // the client stops reading
  c.s.chunk(many.slice(many.length / 2));
  c.s.endPiece();
  await c.s.finish();
  const last = c.notices.at(-1)!;
  assert.equal(last.last, true);
  assert.ok(last.not_streamed > 0, 'the last notice counts the lines dropped while the client was behind');
  assert.equal(c.lines().length + c.notices.reduce((n, x) => n + x.not_streamed, 0), 1000, 'every line is streamed or counted');
});
