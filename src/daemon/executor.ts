/**
 * Runs mechanism steps. Programs run by absolute path with an argv array: no
 * shell, a fixed minimal environment, stdin closed, their own process group, a
 * time limit that kills the whole group, and a cap on each output stream. File
 * steps go through safe-fs. Every file a step will change is captured first, so a
 * failure part-way restores it (automatic rollback). A path a program gets by name
 * (CommandStep.paths) passes the trusted-path rule right before the program starts, and a
 * file prepared for a program (CommandStep.file, .expect) is held by descriptor (job-files.ts).
 */
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { createHash } from 'node:crypto';
import { AirlockError } from '../protocol/errors.js';
import { fileBytes, fileText, refuseNotUtf8 } from '../protocol/file-text.js';
import type { CommandOutput } from '../catalogue/action.js';
import { RESOURCE_LOCKS, commandTexts, reversibleWhenDone, stepPaths, verdictProblems, type CommandStep, type ExclusiveResource, type FileScanStep, type Step } from '../catalogue/mechanism.js';
import type { ProgramTable } from './programs.js';
import { shellViolation } from '../catalogue/programs.js';
import { atomicWrite, checkAllowed, deleteFile, readRegularFile, restore, snapshot, type FileSnapshot } from './safe-fs.js';
import { native } from '../native/addon.js';
import { QUOTE_WINDOW, releaseOutput } from './output.js';
import { Slots } from './slots.js';
import { runContext } from './run-context.js';
import { checkTrustedPath } from './trusted-path.js';
import { JobFiles } from './job-files.js';
import type { KeptStep } from '../catalogue/change-record.js';
import type { OutputFeed } from './output-stream.js';
import { StringDecoder } from 'node:string_decoder';

export const DEFAULT_TIMEOUT_MS = 120_000;
/**
 * Programs run at once for reads (previews' state readers, read-only actions), all principals
 * together; more wait their turn. A read may run for minutes (VerifyJournal: 10), so reads
 * have their own budget and cannot hold the slots a change needs.
 */
export const READ_PROCESSES = 12;
/** A principal may hold at most half the read slots, so another principal's read always finds one. */
export const READ_PROCESSES_PER_PRINCIPAL = READ_PROCESSES / 2;
/**
 * Programs run at once for changes. Changes run one at a time (the change lock), each runs its
 * steps one after another, and its state readers run before them: 4 is room to spare.
 */
export const CHANGE_PROCESSES = 4;
/** Child processes the daemon runs at once for actions, both lanes together. */
export const MAX_PROCESSES = READ_PROCESSES + CHANGE_PROCESSES;
/** nobody:nogroup on Debian and Ubuntu. */
const NOBODY = 65534;
/** After a program exits, how long a grandchild may keep its output pipes open. */
const PIPE_GRACE_MS = 2_000;
export const MAX_STREAM_BYTES = 1024 * 1024;
const BASE_ENV = {
  PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  HOME: '/root',
  DEBIAN_FRONTEND: 'noninteractive',
  SYSTEMD_PAGER: '',
  SYSTEMD_COLORS: '0',
};

export interface ExecutorOptions {
  programs: ProgramTable;
}

export interface StepsOutcome {
  ok: boolean;
  output: string[];
  /** A stream hit its byte cap, so `output` is incomplete. */
  truncated: boolean;
  error?: AirlockError;
  rolledBack: boolean;
  /**
   * Of steps that all succeeded: reverses them (a plan's later step failed), in reverse order,
   * true when every undo ran; null when nothing can reverse them all (reversibleWhenDone: no
   * undo, a command that changed live state with none, or a file made for a program by
   * descriptor, which the job no longer holds).
   */
  undo?: (() => Promise<boolean>) | null;
  /**
   * Of a job that succeeded: what a later revert needs (src/catalogue/change-record.ts), or null
   * when nothing can reverse it all (as `undo`). A job that ran nothing keeps nothing.
   */
  kept?: KeptStep[] | null;
  /** Of a job that failed: each undo run, last step first, and whether it succeeded (for the signed log). */
  undone?: UndoneStep[];
}

/** One undo of an automatic rollback: the step it reverses (1-based) and what it did. */
export interface UndoneStep {
  step: number;
  undo: string;
  ok: boolean;
}

/** A daemon started for tests only may make a job fail after its last step, to show its rollback (docs/TESTING.md). */
export interface RunOptions {
  failAfterLast?: boolean;
}

export class Executor {
  private readonly busy = new Set<ExclusiveResource>();
  private readonly readSlots = new Slots(READ_PROCESSES, READ_PROCESSES_PER_PRINCIPAL);
  private readonly changeSlots = new Slots(CHANGE_PROCESSES);
  constructor(private readonly opts: ExecutorOptions) {}

  programPath(step: CommandStep): string {
    // The catalogue never builds such a command (see test/unit/invariants.test.ts); refuse it anyway.
    const violation = shellViolation(step.program, step.args);
    if (violation) throw new AirlockError('execution', 'shell_refused', `refused to run: ${violation}`);
    const path = this.opts.programs[step.program];
    if (!path) {
      throw new AirlockError('unsupported_platform', 'program_missing', `this host has no trusted ${step.program} binary`, `install the package that provides ${step.program}`);
    }
    return path;
  }

  /** Refuses unless every path these steps (and their undos) act on by name passes the trusted-path rule: the preview's check. */
  async checkPaths(steps: Step[]): Promise<void> {
    for (const s of steps) if (s.kind === 'command') for (const c of [s, ...(s.undo ? [s.undo] : [])]) for (const p of stepPaths(c)) await checkTrustedPath(p);
  }

  /**
   * Runs one program. Right before it starts (after waiting for a process slot) its paths
   * are checked again and `verify` runs; `fd` becomes its descriptor 3.
   */
  async run(step: CommandStep, opts: { fd?: number; verify?: () => Promise<void>; feed?: OutputFeed } = {}): Promise<CommandOutput & { timedOut: boolean; truncated: boolean }> {
    const file = this.programPath(step);
    refuseNotUtf8(commandTexts(step), step.program);
    const { lane, principal } = runContext();
    const release = await (lane === 'change' ? this.changeSlots.take() : this.readSlots.take(principal));
    try {
      for (const p of stepPaths(step)) await checkTrustedPath(p);
      await opts.verify?.();
      return await this.spawnOne(file, step, opts.fd, opts.feed);
    } finally {
      release();
    }
  }

  /** `feed`: gets standard output as it comes (what the cap keeps), for streaming; it must not throw. */
  private spawnOne(file: string, step: CommandStep, fd?: number, feed?: OutputFeed): Promise<CommandOutput & { timedOut: boolean; truncated: boolean }> {
    return new Promise((resolve, reject) => {
      const child = spawn(file, step.args, {
        env: { ...BASE_ENV, ...(step.env ?? {}) },
        // stdin closed; a prepared file, when there is one, as descriptor 3 (CommandStep.file).
        stdio: fd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', fd],
        detached: true, // own process group, so the time limit kills grandchildren too
        ...(step.unprivileged ? { uid: NOBODY, gid: NOBODY } : {}),
        shell: false,
        cwd: '/',
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      let truncated = false;
      let timedOut = false;
      const take = (sink: Buffer[], chunk: Buffer, size: number): number => {
        const room = MAX_STREAM_BYTES - size;
        if (room <= 0) {
          truncated = true;
          return size;
        }
        if (chunk.length > room) truncated = true;
        sink.push(chunk.subarray(0, room));
        return size + Math.min(room, chunk.length);
      };
      // A chunk may end inside a UTF-8 character: the decoder holds its first bytes for the next one.
      const live = feed ? new StringDecoder('utf8') : null;
      child.stdout!.on('data', (c: Buffer) => {
        const was = outBytes;
        outBytes = take(out, c, outBytes);
        if (live && outBytes > was) feed!.chunk(live.write(c.subarray(0, outBytes - was)));
      });
      child.stderr!.on('data', (c: Buffer) => (errBytes = take(err, c, errBytes)));
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {}
      }, step.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new AirlockError('execution', 'spawn_failed', `could not start ${file}: ${e.message}`));
      });
      let settled = false;
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (live) feed!.chunk(live.end());
        resolve({
          code: code ?? (signal ? 128 : 1),
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          timedOut,
          truncated,
        });
      };
      child.on('close', finish);
      // A grandchild that left the process group may hold the pipes open forever: the job ends when the program does.
      child.on('exit', (code, signal) => {
        setTimeout(() => {
          child.stdout!.destroy();
          child.stderr!.destroy();
          finish(code, signal);
        }, PIPE_GRACE_MS).unref();
      });
    });
  }

  /**
   * Everything that can be known to fail before the receipt is spent: every program
   * resolved, every exclusive resource free. Claims the resources; returns their release.
   */
  claim(steps: Step[]): () => void {
    for (const s of steps) if (s.kind === 'command') [s, ...(s.undo ? [s.undo] : [])].forEach((c) => this.programPath(c));
    const needed = [...new Set(steps.flatMap((s) => (s.kind === 'command' && s.resource ? [s.resource] : [])))];
    for (const r of needed) {
      if (this.busy.has(r)) throw conflict(r, 'another Airlock job holds it');
      for (const lock of RESOURCE_LOCKS[r]) {
        const holder = native().lockHolder(lock);
        if (holder !== 0) throw conflict(r, `${lock} is locked${holder > 0 ? ` by pid ${holder}` : ''}`);
      }
    }
    for (const r of needed) this.busy.add(r);
    return () => needed.forEach((r) => this.busy.delete(r));
  }

  /**
   * Runs the steps in order. On the first failure, reverses what ran: file snapshots restored, command undos run.
   * `filesAsRead` (path -> SHA-256 of the content the approved mechanism was checked against, null: absent):
   * the first write or delete of such a path refuses if the file is no longer that one.
   */
  async runSteps(steps: Step[], allowFiles: readonly string[], filesAsRead?: ReadonlyMap<string, string | null>, feed?: OutputFeed, opts: RunOptions = {}): Promise<StepsOutcome> {
    const output: string[] = [];
    const touched = new Set<string>();
    let truncated = false;
    const undo: Undo[] = [];
    const kept: KeptStep[] = [];
    const reads = new Map<number, Promise<Buffer | null>>();
    const files = new JobFiles();
    /** Steps that ran to their end: an event among them (a restart) has nothing to undo, and is still reversed. */
    let completed = 0;
    try {
      for (let i = 0; i < steps.length; i++, completed = i) {
        const step = steps[i]!;
        if (step.kind !== 'command') checkAllowed(step.path, allowFiles);
        switch (step.kind) {
          case 'command': {
            const fd = await heldFile(step, files);
            if (step.file?.create) {
              const path = step.file.path;
              undo.push({ step: i + 1, undo: `remove ${path}`, run: () => files.remove(path) });
            }
            const expect = step.expect;
            const r = await this.run(step, { ...(fd === undefined ? {} : { fd }), ...(expect ? { verify: () => files.expect(expect.path, expect.mode) } : {}), ...(feed ? { feed } : {}) });
            feed?.endPiece();
            if (r.stdout) output.push(r.stdout);
            truncated ||= r.truncated;
            if (r.timedOut) throw new AirlockError('execution', 'timeout', `${step.program} did not finish in time and was killed`);
            if (!(step.okCodes ?? [0]).includes(r.code)) {
              throw new AirlockError('execution', 'command_failed', `${step.program} exited with status ${r.code}: ${(await lastLine(r.stderr)) || 'no error text'}`);
            }
            const problems = step.verdict ? verdictProblems(step.verdict, r.stdout) : null;
            if (problems) throw new AirlockError('execution', 'check_failed', `${step.program} reported: ${await reported(problems)}`);
            if (step.undo) {
              const u = step.undo;
              // A file made here by descriptor is removed by its own undo above (by inode); the declared undo is for a later revert.
              if (!step.file?.create) undo.push({
                step: i + 1,
                undo: `run ${u.program}`, // its program only: the log is read by auditors, and an argument may be host text
                run: async () => {
                  // An undo that makes a file again gets it as a step does: made by the daemon, held by descriptor.
                  const ufd = await heldFile(u, files);
                  const ur = await this.run(u, ufd === undefined ? {} : { fd: ufd });
                  if (!(u.okCodes ?? [0]).includes(ur.code)) throw new Error(`undo ${u.program} exited with status ${ur.code}`);
                },
              });
              const { undo: _, ...redo } = step;
              kept.push({ kind: 'command', undo: u, redo });
            }
            break;
          }
          case 'fileScan': {
            // Consecutive reads change nothing: start them together, use them in order.
            for (let j = i; j < steps.length && steps[j]!.kind === 'fileScan' && !reads.has(j); j++) {
              const path = (steps[j] as FileScanStep).path;
              checkAllowed(path, allowFiles);
              const read = readRegularFile(path);
              read.catch(() => {}); // awaited below, in order; an earlier failure may leave it unawaited
              reads.set(j, read);
            }
            const content = await reads.get(i)!;
            if (content === null) throw new AirlockError('execution', 'not_found', `${step.path} does not exist`);
            output.push(content.toString('utf8'));
            feed?.chunk(content.toString('utf8'));
            feed?.endPiece();
            break;
          }
          case 'fileWrite':
          case 'filePatch':
          case 'fileDelete': {
            const snap = await snapshot(step.path);
            if (!touched.has(step.path) && step.kind !== 'filePatch') checkAsRead(snap, filesAsRead);
            touched.add(step.path);
            try {
              await this.applyFileStep(step, snap);
            } catch (e) {
              // File steps are atomic: a failed one left the file as it was, so only the
              // parent directories it created (if any) need undoing. Restoring an untouched
              // file could itself fail (an immutable file) and misreport the rollback.
              if (snap.createdDirs.length > 0) undo.push({ step: i + 1, undo: `remove the directories made for ${step.path}`, run: () => restore(snap) });
              throw e;
            }
            undo.push({ step: i + 1, undo: snap.existed ? `restore ${step.path}` : `remove ${step.path}`, run: () => restore(snap) });
            kept.push(snap.existed ? { kind: 'file', path: step.path, existed: true, content: fileText(snap.content!), mode: snap.mode!, owner: { uid: snap.uid!, gid: snap.gid! }, ...(step.kind === 'fileDelete' ? { deleted: true as const } : {}) } : { kind: 'file', path: step.path, existed: false, ...(snap.createdDirs.length ? { madeDirs: [...snap.createdDirs] } : {}) });
            break;
          }
        }
      }
      if (opts.failAfterLast && steps.length > 0) throw new AirlockError('execution', 'injected_failure', `a failure injected after step ${steps.length} (this daemon runs for tests: airlock daemon --test-fault-file)`);
      // Restoring the files of a job whose command changed live state (a firewall loaded, a daemon
      // reloaded) would leave that state changed while the job is said to be undone: it is not offered.
      const reversible = reversibleWhenDone(steps);
      return { ok: true, output, truncated, rolledBack: false, undo: undo.length === 0 || !reversible ? null : async () => (await undoAll(undo)).every((u) => u.ok), kept: reversible ? kept : null };
    } catch (e) {
      const error = e instanceof AirlockError ? e : new AirlockError('execution', 'step_failed', (e as Error).message);
      const undone = await undoAll(undo);
      // Reversed: an undo ran, or every step that finished needs none (an event leaves the state it found). The state probes then say whether it reads as before.
      // (A finished file step always registers an undo, so with none run every finished step is a command.)
      const reversed = undone.length > 0 || (completed > 0 && reversibleWhenDone(steps.slice(0, completed)));
      return { ok: false, output, truncated, error, rolledBack: reversed && undone.every((u) => u.ok), undone };
    } finally {
      await files.close();
    }
  }

  private async applyFileStep(step: Extract<Step, { kind: 'fileWrite' | 'filePatch' | 'fileDelete' }>, snap: FileSnapshot): Promise<void> {
    if (step.kind === 'fileWrite') {
      await atomicWrite(step.path, fileBytes(step.content), step, snap.createdDirs);
    } else if (step.kind === 'filePatch') {
      if (!snap.existed) throw new AirlockError('execution', 'not_found', `${step.path} does not exist`);
      // Lossless text: a byte that is not UTF-8 is found and written back as that byte (file-text.ts).
      const text = fileText(snap.content!);
      const at = text.indexOf(step.search);
      if (at < 0 || text.indexOf(step.search, at + 1) >= 0) {
        throw new AirlockError('conflict', 'patch_mismatch', `${step.path} changed since the preview: the text to replace is no longer there exactly once`, 'preview again');
      }
      const patched = text.slice(0, at) + step.replace + text.slice(at + step.search.length);
      await atomicWrite(step.path, fileBytes(patched), { mode: snap.mode! });
    } else {
      if (!snap.existed) throw new AirlockError('execution', 'not_found', `${step.path} does not exist`);
      await deleteFile(step.path);
      // rmdir never follows a final link and fails on anything not empty: safe by path.
      for (const d of step.thenEmptyDirs ?? []) await fsp.rmdir(d).catch(() => {});
    }
  }
}

/**
 * The descriptor a command gets as its fd 3 (CommandStep.file): a file made now by the daemon
 * (exclusively, after the trusted-path rule), or one this job made earlier; none without `file`.
 * Steps and undos get it the same way.
 */
async function heldFile(c: CommandStep, files: JobFiles): Promise<number | undefined> {
  if (c.file?.create) {
    await checkTrustedPath(c.file.path); // before anything is made there
    return files.create(c.file.path, c.file.create.mode);
  }
  return c.file ? files.fd(c.file.path) : undefined;
}

/** An undo a job registers as it goes: the step it reverses, what it does (for the log), and how. */
interface Undo {
  step: number;
  undo: string;
  run: () => Promise<void>;
}

/** Runs every undo, last first, each even when one before it failed; says how each went. */
async function undoAll(undo: readonly Undo[]): Promise<UndoneStep[]> {
  const done: UndoneStep[] = [];
  for (const u of [...undo].reverse()) {
    let ok = true;
    try {
      await u.run();
    } catch {
      ok = false;
    }
    done.push({ step: u.step, undo: u.undo, ok });
  }
  return done;
}

/** A file another program changed between the approval check and this step is not overwritten. */
function checkAsRead(snap: FileSnapshot, filesAsRead: ReadonlyMap<string, string | null> | undefined): void {
  if (!filesAsRead?.has(snap.path)) return;
  const now = snap.existed ? createHash('sha256').update(snap.content!).digest('hex') : null; // the bytes, as bound
  if (now !== filesAsRead.get(snap.path)) {
    throw new AirlockError('conflict', 'file_changed', `${snap.path} changed after the approved change was checked against it; it was not overwritten`, 'preview again and have the new preview approved');
  }
}

function conflict(r: ExclusiveResource, why: string): AirlockError {
  return new AirlockError('conflict', 'resource_busy', `the ${r} lock is busy: ${why}`, 'wait for the other package operation to finish, then execute again with the same receipt');
}

/**
 * The lines a check failed on (its warnings), masked and escaped, for the error message.
 * Each is cut to QUOTE_WINDOW before it is masked (the work stays bounded whatever a program
 * printed), then masked with the others as one output (a secret is recognised whole when it
 * starts in what is shown), then cut to what is shown.
 */
async function reported(lines: string[]): Promise<string> {
  const masked = await releaseOutput([lines.slice(0, 6).map((l) => l.slice(0, QUOTE_WINDOW)).join('\n')]);
  return masked.lines.map((l) => l.slice(0, 200)).join(' | ');
}

/** The last stderr line, for the error message; it leaves the daemon, so it is cut to a window, then masked like output (releaseOutput). */
async function lastLine(s: string): Promise<string> {
  const lines = s.trim().split('\n');
  return ((await releaseOutput([(lines[lines.length - 1] ?? '').slice(0, QUOTE_WINDOW)])).lines[0] ?? '').slice(0, 300);
}
