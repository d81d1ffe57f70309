/**
 * What an approval binds (invariant 4, LACS §5): the proposed change as the approver sees
 * it, and one digest over every byte that will run. Preview builds it from the host as it
 * is then; execution builds it again from the host as it is now, and runs only when the
 * digests are equal.
 *
 * Each step is bound whole: a command with every field (program, argv, environment, exit
 * codes, time limit, undo), a fileWrite with its full content, mode, owner and parent and
 * the digest of the file it replaces, a filePatch with its exact search and replace texts,
 * a fileDelete with the digest of the file it deletes. The one exception is declared on the
 * action (`rebuildsAtExecute`): such a fileWrite rebuilds its file from the current content
 * at execution, keeping lines other programs changed meanwhile, and is bound by exactly the
 * lines it removes and adds (computed here, by the daemon, against the file as it is) with
 * its path, mode and owner. The approver sees those lines; execution refuses when they differ.
 *
 * Files are bound as bytes. A file's text keeps each byte that is not UTF-8 as U+DC00 + byte
 * (protocol/file-text.ts): digests are taken over fileBytes, never over a UTF-8 encoding of the
 * text (which would turn every such byte into U+FFFD, so two files differing only there would
 * bind alike), and the approver is told which files hold such bytes (they show as \xNN).
 *
 * The entries returned are raw host and agent text: the service escapes them for display.
 */
import type { AnyAction, Host } from '../catalogue/action.js';
import { commandTexts, type CommandStep, type FileWriteStep, type Owner, type Step } from '../catalogue/mechanism.js';
import { matchesGlob } from '../catalogue/params.js';
import { canonicalize, isWellFormed } from '../protocol/canonical.js';
import { fileBytes, notUtf8Bytes, refuseNotUtf8 } from '../protocol/file-text.js';
import { sha256Hex } from '../protocol/hash.js';
import type { CommandEntry, FileFacts, FileWriteEntry, MechanismEntry, NewFileAttributes, ProposedChange, ShownDiff, ShownHunk } from '../protocol/messages.js';
import { hunks, lineEdits, type LineEdit } from './line-diff.js';

/** Lines of a content-bound write shown to the approver; the digest covers the rest. */
export const MAX_SHOWN_DIFF_LINES = 200;
/** A rebuild whose own part is larger than this many lines is bound by its whole content instead. */
export const MAX_OWN_LINES = 500;

const NO_NEWLINE = '\\ No newline at end of file';

export interface Binding {
  /** What the preview carries (raw text: the service escapes it). */
  proposed: ProposedChange;
  /**
   * SHA-256 of each file a file step changes, as read here (null: absent). The executor
   * checks the file is still this one right before it changes it (Executor.runSteps).
   */
  filesAsRead: ReadonlyMap<string, string | null>;
  /** Warnings for the approver: each file a step reads or writes that holds bytes that are not UTF-8. */
  notes: string[];
}

export async function bindMechanism(a: AnyAction, change: unknown, steps: Step[], host: Host): Promise<Binding> {
  const reads = new Map<string, Promise<string | null>>();
  // Every step sees the file as it was before the mechanism runs (a path is read once).
  const read = (path: string) => {
    if (!reads.has(path)) reads.set(path, host.readFile(path));
    return reads.get(path)!;
  };
  const bound: unknown[] = [];
  const mechanism: MechanismEntry[] = [];
  for (const step of steps) {
    const { record, entry } = await bindStep(a, step, read);
    bound.push(record);
    mechanism.push(entry);
  }
  const shownChange = jsonSafe(change ?? null);
  const filesAsRead = new Map<string, string | null>();
  // Files that hold bytes that are not UTF-8, as read or in a patch's texts: the approver is told.
  const notUtf8 = new Set<string>();
  for (const [path, read] of reads) {
    const text = await read;
    filesAsRead.set(path, digestOf(text));
    if (text !== null && notUtf8Bytes(text) > 0) notUtf8.add(path);
  }
  for (const e of mechanism) if (e.kind === 'filePatch' && e.not_utf8) notUtf8.add(e.path);
  const digest = recordDigest({ change: shownChange, steps: bound });
  const notes = [...notUtf8].map((p) => `${p} is not valid UTF-8: ${NOT_UTF8_SHOWN}`);
  return { proposed: { change: shownChange, mechanism, digest }, filesAsRead, notes };
}

/**
 * The digest of what a record binds, over bytes: JCS cannot carry a lone surrogate, so a string
 * holding a byte that is not UTF-8 is bound as { bytes_base64 } of its exact bytes.
 */
const recordDigest = (record: unknown): string => sha256Hex(canonicalize(byteExact(record)));

function byteExact(v: unknown): unknown {
  const key = (k: string) => (isWellFormed(k) ? k : `bytes_base64:${fileBytes(k).toString('base64')}`);
  if (typeof v === 'string') return isWellFormed(v) ? v : { bytes_base64: fileBytes(v).toString('base64') };
  if (Array.isArray(v)) return v.map(byteExact);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [key(k), byteExact(x)]));
  return v;
}

const NOT_UTF8_SHOWN = 'the bytes that are not UTF-8 are shown as \\xNN and kept exactly as they are';

/** Whether the action declares that it rebuilds this file at execution. */
export const rebuildsFile = (a: AnyAction, path: string): boolean => a.rebuildsAtExecute?.files.some((g) => matchesGlob(path, g)) ?? false;

interface Bound {
  /** What the digest covers: raw, exact. */
  record: unknown;
  /** What the approver sees. */
  entry: MechanismEntry;
}

async function bindStep(a: AnyAction, step: Step, read: (path: string) => Promise<string | null>): Promise<Bound> {
  switch (step.kind) {
    case 'command':
      refuseNotUtf8(commandTexts(step), step.program); // at preview already, not first at execution
      return { record: jsonSafe(step), entry: commandEntry(step) };
    case 'fileScan':
      return { record: jsonSafe(step), entry: { kind: 'fileScan', path: step.path } };
    case 'fileDelete': {
      const before = await read(step.path);
      return { record: { ...jsonSafe(step), before: digestOf(before) }, entry: { kind: 'fileDelete', path: step.path, before: factsOf(before), ...(step.thenEmptyDirs ? { then_empty_dirs: step.thenEmptyDirs } : {}) } };
    }
    case 'filePatch': {
      const record = jsonSafe(step);
      const diff: ShownDiff = { removed: step.search.split('\n'), added: step.replace.split('\n'), not_shown: 0 };
      const entry = { kind: 'filePatch' as const, path: step.path, sha256: recordDigest(record), diff, ...notUtf8Of(step.search, step.replace) };
      return { record, entry };
    }
    case 'fileWrite':
      return bindWrite(a, step, await read(step.path));
  }
}

function bindWrite(a: AnyAction, step: FileWriteStep, before: string | null): Bound {
  const attributes = attributesOf(step);
  const edits = lineEdits(before ?? '', step.content, MAX_OWN_LINES);
  const own = edits && { removed: edits.filter((e) => e.op === '-').map((e) => e.line), added: edits.filter((e) => e.op === '+').map((e) => e.line) };
  if (rebuildsFile(a, step.path)) {
    if (own) {
      const { content: _content, ...rest } = step;
      const record = { ...jsonSafe(rest), removed: own.removed, added: own.added };
      const show = a.rebuildsAtExecute!.showLine;
      const entry: FileWriteEntry = {
        kind: 'fileWrite',
        path: step.path,
        ...attributes,
        binds: 'own_lines',
        sha256: recordDigest(record),
        diff: { removed: shownLines(own.removed, show), added: shownLines(own.added, show), not_shown: 0, ...shownHunks(edits!, show) },
        ...notUtf8Of(...own.removed, ...own.added),
      };
      return { record, entry };
    }
    // Too large a change to show line by line: bound by its whole content like any other write.
  }
  const entry: FileWriteEntry = {
    kind: 'fileWrite',
    path: step.path,
    ...attributes,
    binds: 'content',
    bytes: fileBytes(step.content).length,
    sha256: sha256Hex(fileBytes(step.content)),
    before: factsOf(before),
    diff: own && step.contentShown !== false ? { ...capped(shownLines(own.removed), shownLines(own.added)), ...shownHunks(edits!) } : null,
    ...notUtf8Of(step.content),
  };
  return { record: { ...jsonSafe(step), before: digestOf(before) }, entry };
}

function commandEntry(s: CommandStep): CommandEntry {
  return {
    kind: 'command',
    program: s.program,
    args: [...s.args],
    ...(s.okCodes !== undefined ? { ok_codes: [...s.okCodes] } : {}),
    ...(s.timeoutMs !== undefined ? { timeout_ms: s.timeoutMs } : {}),
    ...(s.resource !== undefined ? { resource: s.resource } : {}),
    ...(s.env !== undefined ? { env: { ...s.env } } : {}),
    ...(s.unprivileged !== undefined ? { unprivileged: s.unprivileged } : {}),
    // What the trusted-path rule checks and how a file reaches the program (mechanism.ts).
    ...(s.paths !== undefined ? { paths: [...s.paths] } : {}),
    ...(s.file !== undefined ? { file: { path: s.file.path, ...(s.file.create ? { create: { mode: octal(s.file.create.mode) } } : {}) } } : {}),
    ...(s.expect !== undefined ? { expect: { path: s.expect.path, mode: octal(s.expect.mode) } } : {}),
    ...(s.verdict !== undefined ? { verdict: { success: s.verdict.success, ...(s.verdict.tolerated ? { tolerated: [...s.verdict.tolerated] } : {}) } } : {}),
    ...(s.undo !== undefined ? { undo: commandEntry(s.undo) } : {}),
  };
}

const octal = (mode: number) => mode.toString(8).padStart(4, '0');
const ownerOf = (o: Owner | undefined) => (o ? { uid: o.uid, gid: o.gid } : null);

function attributesOf(s: FileWriteStep): NewFileAttributes {
  return { mode: octal(s.mode), owner: ownerOf(s.owner), parent: s.parent ? { mode: octal(s.parent.mode), owner: ownerOf(s.parent.owner) } : null };
}

const digestOf = (text: string | null): string | null => (text === null ? null : sha256Hex(fileBytes(text)));
const factsOf = (text: string | null): FileFacts | null => {
  if (text === null) return null;
  const bytes = fileBytes(text);
  return { bytes: bytes.length, sha256: sha256Hex(bytes), ...notUtf8Of(text) };
};
/** { not_utf8: N } when the texts hold N bytes that are not UTF-8; nothing when they hold none. */
function notUtf8Of(...texts: string[]): { not_utf8?: number } {
  const n = texts.reduce((sum, t) => sum + notUtf8Bytes(t), 0);
  return n > 0 ? { not_utf8: n } : {};
}

/** Lines (each with its '\n') as a person reads them: without the newline, and diff's marker where one is missing. */
function shownLines(lines: string[], show?: (line: string) => string): string[] {
  return lines.flatMap((l) => {
    const text = l.endsWith('\n') ? l.slice(0, -1) : l;
    const shown = show && text.trim() !== '' ? show(text) : text;
    return l.endsWith('\n') ? [shown] : [shown, NO_NEWLINE];
  });
}

/** Lines of context around each change in `hunks`, as `diff -u` keeps them. */
export const DIFF_CONTEXT = 3;

/**
 * The change as `diff -u` hunks, each line shown as shownLines shows it (context lines of a
 * file whose lines may hold secrets go through `show` too); none when longer than the view's cap.
 */
function shownHunks(edits: LineEdit[], show?: (line: string) => string): { hunks?: ShownHunk[] } {
  const out: ShownHunk[] = [];
  let size = 0;
  for (const h of hunks(edits, DIFF_CONTEXT)) {
    const lines = h.edits.flatMap((e) => shownLines([e.line], show).map((l, i) => (i === 0 ? e.op + l : l)));
    size += lines.length;
    if (size > MAX_SHOWN_DIFF_LINES) return {};
    out.push({ old_start: h.oldStart, old_lines: h.oldLines, new_start: h.newStart, new_lines: h.newLines, lines });
  }
  return { hunks: out };
}

function capped(removed: string[], added: string[]): ShownDiff {
  const keepRemoved = Math.min(removed.length, MAX_SHOWN_DIFF_LINES);
  const keepAdded = Math.min(added.length, MAX_SHOWN_DIFF_LINES - keepRemoved);
  return { removed: removed.slice(0, keepRemoved), added: added.slice(0, keepAdded), not_shown: removed.length - keepRemoved + added.length - keepAdded };
}

function jsonSafe<T>(v: T): T {
  return v === undefined ? (null as T) : (JSON.parse(JSON.stringify(v)) as T);
}
