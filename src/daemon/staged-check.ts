/**
 * Host.checkStaged: a configuration text checked before it is written anywhere (issue 29). A
 * program checker gets a staged copy in a fresh root-only directory under the daemon's state
 * directory (named like the target, so systemd-analyze sees the unit's suffix), written through
 * descriptors, run through the executor like Host.run (no shell, its slots, a time limit, an
 * output cap), and removed after; a parser runs in a worker thread (config-parse.ts). What the
 * check says is bounded and quotes only what locates a problem in the text itself
 * (checker-output.ts locatedDiagnostics).
 */
import { promises as fsp } from 'node:fs';
import { basename, join } from 'node:path';
import { AirlockError } from '../protocol/errors.js';
import { fileBytes, notUtf8Bytes } from '../protocol/file-text.js';
import { CHECKER, CHECKERS, MAX_CHECKED_BYTES, MAX_PROBLEMS, PROBLEM_CHARS, type CheckerName, type StagedRun } from '../catalogue/lib/config-checkers.js';
import { locatedDiagnostics, type LocatedName } from '../catalogue/lib/checker-output.js';
import type { CommandStep } from '../catalogue/mechanism.js';
import { atomicWrite } from './safe-fs.js';
import type { Executor } from './executor.js';
import { ConfigParsers } from './config-parse.js';
import { runContext } from './run-context.js';

export type CheckResult = { ok: true } | { ok: false; problems: string[] };

/** How long a checker program may run on a staged copy (nginx -t on a large site takes well under a second). */
export const STAGED_CHECK_TIMEOUT_MS = 30_000;
/** The staging directories' prefix inside the checks directory. */
const STAGE_PREFIX = 'check-';

export class StagedChecks {
  private prepared: Promise<void> | null = null;
  constructor(
    /** A directory only the daemon's user can reach (the state directory's `checks`), made here when missing. */
    private readonly dir: string,
    private readonly executor: Executor,
    private readonly parsers = new ConfigParsers(),
  ) {}

  async check(name: CheckerName, target: string, content: string): Promise<CheckResult> {
    if (!(CHECKERS as readonly string[]).includes(name)) throw new AirlockError('validation', 'unknown_checker', `no configuration checker is named ${JSON.stringify(name)}`);
    const checker = CHECKER[name];
    refuseBadTarget(target);
    let bytes: Buffer;
    try {
      bytes = fileBytes(content);
    } catch {
      throw new AirlockError('validation', 'bad_text', 'the text holds a character that stands for no byte');
    }
    if (bytes.length > MAX_CHECKED_BYTES) throw new AirlockError('validation', 'too_large', `the text is ${bytes.length} bytes: at most ${MAX_CHECKED_BYTES} are checked`);
    if (!checker.staged(target)) {
      throw new AirlockError('validation', 'not_staged', `${checker.describe} cannot check ${target} before it is written: it is checked live once written, and restored on failure`);
    }
    // A check whose program acts on what the text names (nginx: an OpenSSL engine is code, as root) runs only on approved text.
    if (!checker.beforeApproval && runContext().lane !== 'change') {
      throw new AirlockError('authorization', 'check_after_approval', `${checker.describe} runs on a staged copy only once the change is approved: run as root, it acts on what the text names`);
    }
    if (checker.parser) {
      const notUtf8 = checker.parser === 'ini' ? 0 : notUtf8Bytes(content);
      if (notUtf8 > 0) return { ok: false, problems: [`${notUtf8} bytes are not UTF-8, which ${checker.parser.toUpperCase()} requires`] };
      const problems = await this.parsers.parse(checker.parser, content);
      return problems.length ? { ok: false, problems } : { ok: true };
    }
    const stage = await this.stage();
    try {
      const staged = join(stage, basename(target));
      const run = checker.stagedRun!(target, staged, stage);
      if (run.beside.some((f) => f.name === basename(target))) throw new AirlockError('validation', 'bad_path', `${target} has the name of the file ${checker.describe} is wrapped in`);
      const step: CommandStep = { kind: 'command', program: run.program, args: run.args, timeoutMs: STAGED_CHECK_TIMEOUT_MS, noUndo: 'changes_nothing' };
      this.refuseMissing(name, step);
      // sudo reads a sudoers file only when it is 0440; the others are root's alone.
      await atomicWrite(staged, bytes, { mode: name === 'sudoers' ? 0o440 : 0o600 });
      for (const f of run.beside) await atomicWrite(join(stage, f.name), fileBytes(f.text), { mode: 0o600 });
      const r = await this.executor.run(step);
      if (r.timedOut) return { ok: false, problems: [`${checker.describe} did not finish within ${STAGED_CHECK_TIMEOUT_MS / 1000} s and was stopped`] };
      if (r.code === 0) return { ok: true };
      return { ok: false, problems: this.problems(name, target, stage, staged, run, r) };
    } finally {
      await fsp.rm(stage, { recursive: true, force: true });
    }
  }

  private problems(name: CheckerName, target: string, stage: string, staged: string, run: StagedRun, r: { code: number; stdout: string; stderr: string }): string[] {
    const checker = CHECKER[name];
    // Longest first: the staged copy and the wrapper are inside the staging directory.
    const names: LocatedName[] = [
      { text: staged, at: 'anywhere', shownAs: target },
      ...run.beside.map((f): LocatedName => ({ text: join(stage, f.name), at: 'anywhere', shownAs: `(${checker.describe}'s wrapper)` })),
      { text: stage, at: 'anywhere', shownAs: '(staging directory)' },
      // systemd-analyze names the unit it loaded by its name alone.
      ...(name === 'systemd-unit' ? [{ text: basename(target), at: 'start' as const, shownAs: basename(target) }] : []),
    ];
    const { lines, left } = locatedDiagnostics(`${r.stderr}\n${r.stdout}`, names, MAX_PROBLEMS - 1, PROBLEM_CHARS);
    const status = `${checker.describe} failed (exit status ${r.code})`;
    const unquoted = left > 0 ? `; ${left} line${left === 1 ? '' : 's'} of its output not quoted (they locate nothing in this text)` : '';
    return [...lines, `${status}${unquoted}`];
  }

  /** The program missing names the package to install, before anything is staged. */
  private refuseMissing(name: CheckerName, step: CommandStep): void {
    try {
      this.executor.programPath(step);
    } catch (e) {
      if (e instanceof AirlockError && e.code === 'program_missing') {
        const c = CHECKER[name];
        throw new AirlockError('unsupported_platform', 'program_missing', `this host has no trusted ${c.program} binary, so ${c.describe} cannot check the text`, `install the ${c.package} package`);
      }
      throw e;
    }
  }

  /** A fresh directory for one check: mkdtemp (O_EXCL, 0700) inside the checks directory, which must be the daemon's alone. */
  private async stage(): Promise<string> {
    this.prepared ??= this.prepare();
    await this.prepared;
    return fsp.mkdtemp(join(this.dir, STAGE_PREFIX));
  }

  /** Makes the checks directory (0700) or checks the one there; removes what a stopped daemon left in it. */
  private async prepare(): Promise<void> {
    await fsp.mkdir(this.dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    const st = await fsp.lstat(this.dir);
    const me = process.getuid?.() ?? 0;
    if (!st.isDirectory() || st.uid !== me || (st.mode & 0o077) !== 0) {
      this.prepared = null;
      throw new AirlockError('integrity', 'checks_dir', `${this.dir} must be a directory of the daemon's user with mode 0700`, `remove it; the daemon makes it again`);
    }
    for (const e of await fsp.readdir(this.dir)) if (e.startsWith(STAGE_PREFIX)) await fsp.rm(join(this.dir, e), { recursive: true, force: true });
  }
}

/** An absolute, normalised path with a file name: what an edit names, and what the staged copy is named after. */
function refuseBadTarget(target: string): void {
  const segs = target.split('/');
  if (!target.startsWith('/') || target.includes('\0') || segs.length < 2 || segs.slice(1).some((s) => s === '' || s === '.' || s === '..') || target.length > 4096) {
    throw new AirlockError('validation', 'bad_path', `refusing non-normalised path ${JSON.stringify(target.slice(0, 200))}`);
  }
}
