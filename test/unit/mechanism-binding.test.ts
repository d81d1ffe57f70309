/**
 * What an approval binds (src/daemon/mechanism-binding.ts): every field of every step
 * shape, the file a write replaces, and for a declared rebuild exactly the action's own
 * lines; the line diff behind it; the rebuild declarations over the whole catalogue;
 * stored previews read back through the schema (src/daemon/stored-preview.ts); and the
 * executor's check, right before a write, that the file is still the one bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyAction } from '../../src/catalogue/action.js';
import { CATALOGUE } from '../../src/catalogue/index.js';
import type { CommandStep, FileDeleteStep, FilePatchStep, FileScanStep, FileWriteStep, Step } from '../../src/catalogue/mechanism.js';
import { bindMechanism, MAX_OWN_LINES, MAX_SHOWN_DIFF_LINES } from '../../src/daemon/mechanism-binding.js';
import { lineDiff, splitLines } from '../../src/daemon/line-diff.js';
import { Executor } from '../../src/daemon/executor.js';
import { isUnattendedProposal, storedPreview } from '../../src/daemon/stored-preview.js';
import { canonicalize } from '../../src/protocol/canonical.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { fileText } from '../../src/protocol/file-text.js';
import type { FilePatchEntry, FileWriteEntry, PreviewEnvelope } from '../../src/protocol/messages.js';
import type { TxRecord } from '../../src/store/store.js';
import { FixtureHost } from './catalogue-fixture-host.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const plain = { name: 'Plain' } as unknown as AnyAction;
const rebuilding = { name: 'Rebuilding', rebuildsAtExecute: { files: ['/etc/shared.d/*'], showLine: (l: string) => `<${l.length} chars>` } } as unknown as AnyAction;
const bind = async (a: AnyAction, steps: Step[], files: Record<string, string> = {}, change: unknown = { c: 1 }) => (await bindMechanism(a, change, steps, new FixtureHost(files))).proposed;
const digest = async (a: AnyAction, steps: Step[], files: Record<string, string> = {}) => (await bind(a, steps, files)).digest;

// Every field of every shape: `Required` makes the compiler fail here when a shape gains a field.
const undo: CommandStep = { kind: 'command', program: 'rm', args: ['--', '/x'] };
const samples: { [K in Step['kind']]: Required<Extract<Step, { kind: K }>> } = {
  command: { kind: 'command', program: 'ls', args: ['-l', '--', '/etc'], okCodes: [0, 1], timeoutMs: 5000, resource: 'dpkg', env: { A: 'b' }, undo, unprivileged: false, paths: ['/etc'], file: { path: '/var/swap', create: { mode: 0o600 } }, expect: { path: '/var/swap', mode: 0o600 }, verdict: { success: 'Success, no errors or warnings detected', tolerated: ['[W] x'] }, noUndo: 'changes_nothing' },
  fileScan: { kind: 'fileScan', path: '/etc/scan' } satisfies Required<FileScanStep>,
  fileWrite: { kind: 'fileWrite', path: '/etc/own', content: 'one\ntwo\n', mode: 0o644, owner: { uid: 0, gid: 0 }, parent: { mode: 0o755, owner: { uid: 0, gid: 0 } }, contentShown: false } satisfies Required<FileWriteStep>,
  filePatch: { kind: 'filePatch', path: '/etc/patched', search: 'a = 1', replace: 'a = 2' } satisfies Required<FilePatchStep>,
  fileDelete: { kind: 'fileDelete', path: '/etc/gone', thenEmptyDirs: ['/etc/gone.d'] } satisfies Required<FileDeleteStep>,
};

/** Every way of changing one value a little: each must change the digest. */
function variants(v: unknown): unknown[] {
  if (typeof v === 'string') return [v + 'x', v.slice(1), v.toUpperCase() === v ? v.toLowerCase() : v.toUpperCase()].filter((x) => x !== v);
  if (typeof v === 'number') return [v + 1];
  if (typeof v === 'boolean') return [!v];
  if (Array.isArray(v)) return [[...v, v[0] ?? 'x'], v.slice(1), ...v.flatMap((x, i) => variants(x).map((y) => v.map((z, j) => (j === i ? y : z))))];
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return [{ ...o, extra: 1 }, ...Object.keys(o).flatMap((k) => variants(o[k]).map((y) => ({ ...o, [k]: y })))];
  }
  return [];
}

test('every byte of every field of every step shape is bound: any change changes the digest', async () => {
  const files = { '/etc/own': 'old\n', '/etc/gone': 'bye\n' };
  for (const sample of Object.values(samples)) {
    const base = await digest(plain, [sample as Step], files);
    for (const [key, value] of Object.entries(sample)) {
      if (key === 'kind') continue;
      for (const changed of variants(value)) {
        const d = await digest(plain, [{ ...sample, [key]: changed } as Step], files);
        assert.notEqual(d, base, `${sample.kind}.${key} changed to ${JSON.stringify(changed)} but the digest did not`);
      }
    }
  }
  // The change the action states, the order and the number of steps are bound too.
  const two = [samples.command, samples.fileScan];
  assert.notEqual((await bind(plain, two, {}, { c: 1 })).digest, (await bind(plain, two, {}, { c: 2 })).digest);
  assert.notEqual(await digest(plain, two), await digest(plain, [...two].reverse()));
  assert.notEqual(await digest(plain, two), await digest(plain, [...two, samples.fileScan]));
});

test('a content-bound write also binds the file it replaces, and a delete the file it deletes', async () => {
  for (const step of [samples.fileWrite, samples.fileDelete]) {
    const d1 = await digest(plain, [step], { [step.path]: 'state one\n' });
    assert.notEqual(d1, await digest(plain, [step], { [step.path]: 'state two\n' }), step.kind);
    assert.notEqual(d1, await digest(plain, [step], {}), `${step.kind}: absent is not present`);
  }
});

test('a content-bound write shows the sha256 sum of its bytes, its size, mode, owner, parent and its diff against the file now', async () => {
  const { contentShown: _, ...shownWrite } = samples.fileWrite;
  const { mechanism } = await bind(plain, [shownWrite], { '/etc/own': 'one\nold\n' });
  const e = mechanism[0] as FileWriteEntry;
  assert.deepEqual(e, {
    kind: 'fileWrite',
    path: '/etc/own',
    mode: '0644',
    owner: { uid: 0, gid: 0 },
    parent: { mode: '0755', owner: { uid: 0, gid: 0 } },
    binds: 'content',
    bytes: 8,
    sha256: sha256('one\ntwo\n'),
    before: { bytes: 8, sha256: sha256('one\nold\n') },
    diff: { removed: ['old'], added: ['two'], not_shown: 0, hunks: [{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines: [' one', '-old', '+two'] }] },
  });
  // A long new file is shown in part; the rest is counted, and covered by the digest.
  const long = Array.from({ length: MAX_SHOWN_DIFF_LINES + 50 }, (_, i) => `line ${i}\n`).join('');
  const big = (await bind(plain, [{ ...shownWrite, content: long }])).mechanism[0] as FileWriteEntry;
  assert.ok(big.binds === 'content' && big.diff);
  assert.equal(big.diff.added.length, MAX_SHOWN_DIFF_LINES);
  assert.equal(big.diff.not_shown, 50);
  assert.equal(big.diff.hunks, undefined, 'no hunks when they would be longer than the view');
  // A write whose content is not to be shown (a revert's, of a file whose deletion showed only its digest): its size and digest, no line.
  const hidden = (await bind(plain, [samples.fileWrite])).mechanism[0] as FileWriteEntry;
  assert.ok(hidden.binds === 'content');
  assert.equal(hidden.diff, null);
  assert.equal(hidden.sha256, sha256('one\ntwo\n'));
  assert.doesNotMatch(JSON.stringify(hidden), /two/);
});

test('commands are shown with every field that runs, undo included', async () => {
  const { mechanism } = await bind(plain, [samples.command]);
  assert.deepEqual(mechanism[0], {
    kind: 'command',
    program: 'ls',
    args: ['-l', '--', '/etc'],
    ok_codes: [0, 1],
    timeout_ms: 5000,
    resource: 'dpkg',
    env: { A: 'b' },
    unprivileged: false,
    paths: ['/etc'],
    file: { path: '/var/swap', create: { mode: '0600' } },
    expect: { path: '/var/swap', mode: '0600' },
    verdict: { success: 'Success, no errors or warnings detected', tolerated: ['[W] x'] },
    undo: { kind: 'command', program: 'rm', args: ['--', '/x'] },
  });
});

test("a declared rebuild binds exactly the action's own lines, path, mode and owner: other lines may change, its own may not", async () => {
  const path = '/etc/shared.d/list';
  const write = (content: string, extra: Partial<FileWriteStep> = {}): FileWriteStep => ({ kind: 'fileWrite', path, content, mode: 0o644, ...extra });
  const preview = await bind(rebuilding, [write('a\nb\nmine\n')], { [path]: 'a\nb\n' });
  const e = preview.mechanism[0] as FileWriteEntry;
  assert.equal(e.binds, 'own_lines');
  const hunks = [{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 3, lines: [' <1 chars>', ' <1 chars>', '+<4 chars>'] }];
  assert.deepEqual(e.diff, { removed: [], added: ['<4 chars>'], not_shown: 0, hunks }, 'shown through the declared showLine, context lines too');
  // Another program added and changed lines meanwhile: the rebuilt content keeps them, and the approval still holds.
  assert.equal(await digest(rebuilding, [write('A\nb\ntheirs\nmine\n')], { [path]: 'A\nb\ntheirs\n' }), preview.digest);
  // Its own part differs: another line, a line it would also remove, another mode, owner or parent.
  for (const [content, before, extra] of [
    ['a\nb\nmime\n', 'a\nb\n', {}],
    ['a\nmine\n', 'a\nb\n', {}],
    ['a\nb\nmine\n', 'a\nb', {}],
    ['a\nb\nmine\n', 'a\nb\n', { mode: 0o600 }],
    ['a\nb\nmine\n', 'a\nb\n', { owner: { uid: 1, gid: 1 } }],
    ['a\nb\nmine\n', 'a\nb\n', { parent: { mode: 0o755 } }],
  ] as const) {
    assert.notEqual(await digest(rebuilding, [write(content, extra)], { [path]: before }), preview.digest, JSON.stringify([content, before, extra]));
  }
  // Two own lines that show alike are still told apart by the digest.
  assert.notEqual(await digest(rebuilding, [write('a\nb\nmin3\n')], { [path]: 'a\nb\n' }), preview.digest);
  // A file the action does not declare is bound whole, even for the same action.
  const other = (await bind(rebuilding, [{ ...write('x\n'), path: '/etc/other' }])).mechanism[0] as FileWriteEntry;
  assert.equal(other.binds, 'content');
  // An own part too large to read line by line is bound by the whole content instead.
  const many = Array.from({ length: MAX_OWN_LINES + 1 }, (_, i) => `n${i}\n`).join('');
  assert.equal(((await bind(rebuilding, [write(many)])).mechanism[0] as FileWriteEntry).binds, 'content');
});

test('the line diff: minimal, exact to the byte (newlines included), in order', () => {
  assert.deepEqual(lineDiff('a\nb\n', 'a\nb\nc\n'), { removed: [], added: ['c\n'] });
  assert.deepEqual(lineDiff('a\nb', 'a\nb\nc\n'), { removed: ['b'], added: ['b\n', 'c\n'] }, 'a missing final newline is a change of that line');
  assert.deepEqual(lineDiff('a\nb\nc\n', 'a\nc\n'), { removed: ['b\n'], added: [] });
  assert.deepEqual(lineDiff('', ''), { removed: [], added: [] });
  assert.deepEqual(splitLines('x\ny'), ['x\n', 'y']);
  assert.equal(lineDiff('', 'a\n'.repeat(10), 5), null, 'more edits than allowed');
  // Random texts over a tiny alphabet: the edit is as short as the longest common subsequence allows.
  const lcs = (a: string[], b: string[]) => {
    const t = Array.from({ length: a.length + 1 }, () => Array<number>(b.length + 1).fill(0));
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) t[i]![j] = a[i - 1] === b[j - 1] ? t[i - 1]![j - 1]! + 1 : Math.max(t[i - 1]![j]!, t[i]![j - 1]!);
    return t[a.length]![b.length]!;
  };
  const subsequence = (s: string[], of: string[]) => s.reduce((at, x) => (at < 0 ? at : of.indexOf(x, at) < 0 ? -1 : of.indexOf(x, at) + 1), 0) >= 0;
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const text = () => Array.from({ length: rnd(9) }, () => 'abc'[rnd(3)] + (rnd(8) ? '\n' : '')).join('');
  for (let i = 0; i < 2000; i++) {
    const [x, y] = [text(), text()];
    const d = lineDiff(x, y)!;
    const [a, b] = [splitLines(x), splitLines(y)];
    const common = lcs(a, b);
    assert.equal(d.removed.length, a.length - common, JSON.stringify([x, y, d]));
    assert.equal(d.added.length, b.length - common, JSON.stringify([x, y, d]));
    assert.ok(subsequence(d.removed, a) && subsequence(d.added, b), JSON.stringify([x, y, d]));
  }
});

test('over the whole catalogue: a rebuild is declared on an action that changes the host, for files it lists, and alike by every action that changes that file', () => {
  const rebuilt = new Set<string>();
  for (const a of CATALOGUE.values()) {
    const r = a.rebuildsAtExecute;
    if (!r) continue;
    assert.equal(a.readOnly, false, `${a.name} declares a rebuild but changes nothing`);
    assert.ok(r.files.length > 0, `${a.name} declares a rebuild of no file`);
    for (const g of r.files) {
      assert.ok(a.files.includes(g), `${a.name} rebuilds ${g}, which is not among its files`);
      rebuilt.add(g);
    }
    if (r.showLine) assert.equal(typeof r.showLine('x'), 'string');
  }
  assert.ok(rebuilt.has('/etc/hosts') && rebuilt.has('/etc/fstab'), 'the shared configuration files are declared');
  // Every other file step is bound byte for byte (bindMechanism binds own lines only through the
  // declaration); a file some action rebuilds is rebuilt by every action that changes it.
  for (const a of CATALOGUE.values()) {
    if (a.readOnly) continue;
    for (const g of a.files) if (rebuilt.has(g)) assert.ok(a.rebuildsAtExecute?.files.includes(g), `${a.name} changes ${g}, which other actions rebuild at execution, without declaring it`);
  }
});

// ---------------------------------------------------------------- stored previews

async function storedTx(): Promise<TxRecord> {
  const proposed = await bind(plain, [samples.command, samples.fileWrite]);
  const body: Omit<PreviewEnvelope, 'preview_digest'> = {
    transaction_id: 'tx_' + 'a'.repeat(24),
    action_name: 'Plain',
    params: {},
    request_hash: 'b'.repeat(64),
    summary: 's',
    risk: 'medium',
    min_role: 'dev',
    current_state: null,
    proposed_change: proposed,
    side_effects: [],
    reboot_required: false,
    rollback_available: true,
    warnings: [],
    requested_by: 'agent(uid 1000)',
    created_at: '2030-01-01T00:00:00.000Z',
    expires_at: '2030-01-01T00:15:00.000Z',
  };
  const previewDigest = sha256(canonicalize(body));
  return { id: body.transaction_id, actionName: 'Plain', requestHash: body.request_hash, previewDigest, preview: { ...body, preview_digest: previewDigest } } as unknown as TxRecord;
}

const integrity = (e: unknown) => e instanceof AirlockError && e.category === 'integrity' && e.code === 'bad_stored_preview';

test('a stored preview is read back through the schema and must still hash to its digest', async () => {
  const tx = await storedTx();
  assert.equal(storedPreview(tx).proposed_change.digest, (tx.preview.proposed_change as { digest: string }).digest);
  const altered = (f: (p: Record<string, any>) => void, t: Partial<TxRecord> = {}) => {
    const p = structuredClone(tx.preview) as Record<string, any>;
    f(p);
    return { ...tx, ...t, preview: p } as TxRecord;
  };
  const cases: Array<[string, TxRecord]> = [
    ['an unknown field', altered((p) => (p.extra = 1))],
    ['no mechanism digest (an older daemon)', altered((p) => delete p.proposed_change.digest)],
    ['an unknown step shape', altered((p) => p.proposed_change.mechanism.push({ kind: 'shell', line: 'id' }))],
    ['a step without its binding', altered((p) => delete p.proposed_change.mechanism[1].sha256)],
    ['a changed byte the digest does not cover', altered((p) => (p.summary = 't'))],
    ['another transaction', altered(() => {}, { id: 'tx_' + 'c'.repeat(24) })],
    ['another request', altered(() => {}, { requestHash: 'd'.repeat(64) })],
    ['not an object', { ...tx, preview: [] as unknown as Record<string, unknown> }],
  ];
  for (const [what, bad] of cases) assert.throws(() => storedPreview(bad), integrity, what);
  // The inbox reads only the unattended flag, typed too.
  assert.equal(isUnattendedProposal(tx), false);
  assert.equal(isUnattendedProposal(altered((p) => (p.unattended = true))), true);
  assert.throws(() => isUnattendedProposal(altered((p) => (p.unattended = 'yes'))), integrity);
});

// ---------------------------------------------------------------- the executor's last check

test('the executor does not overwrite or delete a file that changed after the binding read it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-binding-'));
  try {
    const path = join(dir, 'conf');
    writeFileSync(path, 'as approved\n');
    const ex = new Executor({ programs: {} as never });
    const host = new FixtureHost({ [path]: 'as approved\n' });
    const steps: Step[] = [{ kind: 'fileWrite', path, content: 'new\n', mode: 0o644 }];
    const { filesAsRead } = await bindMechanism(plain, null, steps, host);
    assert.deepEqual([...filesAsRead], [[path, sha256('as approved\n')]]);
    writeFileSync(path, 'changed meanwhile\n');
    const refused = await ex.runSteps(steps, [path], filesAsRead);
    assert.equal(refused.ok, false);
    assert.equal(refused.error?.code, 'file_changed');
    assert.equal(readFileSync(path, 'utf8'), 'changed meanwhile\n');
    const del = await ex.runSteps([{ kind: 'fileDelete', path }], [path], filesAsRead);
    assert.equal(del.error?.code, 'file_changed');
    assert.equal(readFileSync(path, 'utf8'), 'changed meanwhile\n');
    // As read: it runs; a second step on the same path sees the first one's result, not the check.
    writeFileSync(path, 'as approved\n');
    const ok = await ex.runSteps([...steps, { kind: 'fileWrite', path, content: 'newer\n', mode: 0o644 }], [path], filesAsRead);
    assert.equal(ok.ok, true, ok.error?.message);
    assert.equal(readFileSync(path, 'utf8'), 'newer\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------- bytes that are not UTF-8

test('bytes that are not UTF-8 are bound as bytes: files differing only there bind apart, digests are of the bytes', async () => {
  const a = Buffer.from('k = caf\xe9\n', 'latin1');
  const b = Buffer.from('k = caf\xe8\n', 'latin1');
  const bytesSha = (x: Buffer) => createHash('sha256').update(x).digest('hex');
  const del: Step[] = [{ kind: 'fileDelete', path: '/etc/gone' }];
  const withA = await bindMechanism(plain, null, del, new FixtureHost({ '/etc/gone': fileText(a) }));
  const withB = await bindMechanism(plain, null, del, new FixtureHost({ '/etc/gone': fileText(b) }));
  assert.notEqual(withA.proposed.digest, withB.proposed.digest);
  assert.deepEqual(withA.proposed.mechanism[0], { kind: 'fileDelete', path: '/etc/gone', before: { bytes: a.length, sha256: bytesSha(a), not_utf8: 1 } });
  assert.deepEqual([...withA.filesAsRead], [['/etc/gone', bytesSha(a)]], 'what the executor compares with the bytes on disk');
  assert.deepEqual(withA.notes, ['/etc/gone is not valid UTF-8: the bytes that are not UTF-8 are shown as \\xNN and kept exactly as they are']);
  // A write of such text: its digest and size are of the bytes written.
  const write = (await bind(plain, [{ kind: 'fileWrite', path: '/etc/own', content: fileText(a), mode: 0o644 }])).mechanism[0] as FileWriteEntry;
  assert.ok(write.binds === 'content');
  assert.deepEqual([write.sha256, write.bytes, write.not_utf8], [bytesSha(a), a.length, 1]);
  // A patch whose search text differs only in such a byte.
  const patch = (t: Buffer): Step[] => [{ kind: 'filePatch', path: '/etc/patched', search: fileText(t), replace: 'k = 1\n' }];
  assert.notEqual(await digest(plain, patch(a)), await digest(plain, patch(b)));
  assert.equal(((await bind(plain, patch(a))).mechanism[0] as FilePatchEntry).not_utf8, 1);
  // Text without such bytes binds exactly as before (no not_utf8, no note).
  const clean = await bindMechanism(plain, null, del, new FixtureHost({ '/etc/gone': 'k = café\n' }));
  assert.deepEqual([clean.proposed.mechanism[0], clean.notes], [{ kind: 'fileDelete', path: '/etc/gone', before: { bytes: 10, sha256: sha256('k = café\n') } }, []]);
});

test('the executor patches and writes bytes that are not UTF-8 back as they were', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-binding-'));
  try {
    const path = join(dir, 'conf');
    const before = Buffer.concat([Buffer.from('# r\xe9sum\xe9\n', 'latin1'), Buffer.from('k = 1 # \xff\n', 'latin1')]);
    writeFileSync(path, before);
    const ex = new Executor({ programs: {} as never });
    const text = fileText(before);
    const patched = await ex.runSteps([{ kind: 'filePatch', path, search: 'k = 1', replace: 'k = 2' }], [path]);
    assert.equal(patched.ok, true, patched.error?.message);
    assert.deepEqual(readFileSync(path), Buffer.from(before.toString('latin1').replace('k = 1', 'k = 2'), 'latin1'));
    const steps: Step[] = [{ kind: 'fileWrite', path, content: text.replace('k = 1', 'k = 3'), mode: 0o644 }];
    const { filesAsRead } = await bindMechanism(plain, null, steps, new FixtureHost({ [path]: fileText(readFileSync(path)) }));
    const written = await ex.runSteps(steps, [path], filesAsRead);
    assert.equal(written.ok, true, written.error?.message);
    assert.deepEqual(readFileSync(path), Buffer.from(before.toString('latin1').replace('k = 1', 'k = 3'), 'latin1'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a byte that is not UTF-8 never reaches a program as U+FFFD: a command holding one is refused at preview and at execution', async () => {
  const name = fileText(Buffer.from('caf\xe9', 'latin1'));
  const steps: Step[] = [{ kind: 'command', program: 'ls', args: ['--', `/srv/${name}`] }];
  await assert.rejects(bindMechanism(plain, null, steps, new FixtureHost({})), (e: AirlockError) => e.code === 'not_utf8');
  const undone: Step[] = [{ kind: 'command', program: 'ls', args: ['/'], undo: { kind: 'command', program: 'ls', args: [name] } }];
  await assert.rejects(bindMechanism(plain, null, undone, new FixtureHost({})), (e: AirlockError) => e.code === 'not_utf8', 'its undo too');
  const ex = new Executor({ programs: { ls: '/usr/bin/ls' } as never });
  await assert.rejects(ex.run(steps[0] as CommandStep), (e: AirlockError) => e.code === 'not_utf8');
  assert.equal((await ex.run({ kind: 'command', program: 'ls', args: ['-d', '--', '/'] })).code, 0, 'UTF-8 arguments run');
});
