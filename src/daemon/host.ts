/** The daemon's read-only view of the real machine, handed to catalogue actions. */
import { constants, promises as fsp } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { GroupEntry, Host, PasswdEntry, Platform } from '../catalogue/action.js';
import type { ProgramName } from '../catalogue/programs.js';
import { HeldDir, readRegularFile } from './safe-fs.js';
import { checkTrustedPath } from './trusted-path.js';
import type { Executor } from './executor.js';
import { parseGroup, parsePasswd } from '../protocol/account-files.js';
import { fileText } from '../protocol/file-text.js';
import { AirlockError } from '../protocol/errors.js';
import type { FinishedChange } from '../catalogue/change-record.js';
import type { Store } from '../store/store.js';
import { finishedChange } from './kept-change.js';
import type { CheckerName } from '../catalogue/lib/config-checkers.js';
import { StagedChecks, type CheckResult } from './staged-check.js';

export class RealHost implements Host {
  private store: Store | null = null;
  private readonly checks: StagedChecks | null;
  constructor(
    readonly platform: Platform | null,
    private readonly executor: Executor,
    /** checksDir: where staged copies are checked (the state directory's `checks`, stateFiles); none: checkStaged refuses. */
    opts: { checksDir?: string } = {},
  ) {
    this.checks = opts.checksDir ? new StagedChecks(opts.checksDir, executor) : null;
  }

  async checkStaged(checker: CheckerName, target: string, content: string): Promise<CheckResult> {
    if (!this.checks) throw new AirlockError('integrity', 'internal', 'this host has no directory to stage checks in');
    return this.checks.check(checker, target, content);
  }

  /** The store the daemon opened after this host: what a revert reads finished changes from. */
  useStore(store: Store): void {
    this.store = store;
  }

  async finishedChange(transactionId: string): Promise<FinishedChange | null> {
    if (!this.store) throw new AirlockError('integrity', 'internal', 'the host reads no store yet');
    return finishedChange(this.store, transactionId);
  }

  async readFile(path: string): Promise<string | null> {
    const b = await readRegularFile(path);
    return b === null ? null : fileText(b);
  }

  async stat(path: string) {
    try {
      const st = await fsp.lstat(path);
      return { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, size: st.size, isFile: st.isFile(), isDir: st.isDirectory(), isSymlink: st.isSymbolicLink() };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  trustedPath(path: string): Promise<void> {
    return checkTrustedPath(path);
  }

  async fileHead(path: string, bytes: number) {
    // The parent is held component by component with O_NOFOLLOW (a link anywhere refuses), the file opened without following.
    const dir = await HeldDir.open(dirname(path), path);
    if (!dir) return null;
    try {
      const fh = await fsp.open(dir.at(basename(path)), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return null;
        throw e;
      });
      if (!fh) return null;
      try {
        const st = await fh.stat();
        if (!st.isFile()) return null;
        const head = Buffer.alloc(Math.min(bytes, st.size));
        await fh.read(head, 0, head.length, 0);
        return { head, links: st.nlink };
      } finally {
        await fh.close();
      }
    } finally {
      await dir.close();
    }
  }

  async run(program: ProgramName, args: string[]) {
    const r = await this.executor.run({ kind: 'command', program, args, timeoutMs: 30_000 });
    return { code: r.code, stdout: r.stdout, stderr: r.stderr };
  }

  async users(): Promise<PasswdEntry[]> {
    return parsePasswd((await this.readFile('/etc/passwd')) ?? '');
  }

  async groups(): Promise<GroupEntry[]> {
    return parseGroup((await this.readFile('/etc/group')) ?? '');
  }
}
