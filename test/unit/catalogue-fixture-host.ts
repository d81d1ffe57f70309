/** A Host for catalogue unit tests: an in-memory file tree and scripted program answers. Nothing real is touched. */
import assert from 'node:assert/strict';
import type { AnyAction, CommandOutput, Host, Platform, Unchanged } from '../../src/catalogue/action.js';
import { AirlockError } from '../../src/protocol/errors.js';
import type { FinishedChange } from '../../src/catalogue/change-record.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import type { CheckerName } from '../../src/catalogue/lib/config-checkers.js';
import { parseGroup, parsePasswd } from '../../src/protocol/account-files.js';
import { componentsOf, judgePath, untrustedPathError } from '../../src/catalogue/lib/trusted-path.js';

/** A file's text, a link, a directory (owned by root, 0755, unless said otherwise), a file with its mode, or a device node. */
export type Node = string | { link: string } | { dir: true; uid?: number; mode?: number } | { file: string; mode: number } | { device: true };

export class FixtureHost implements Host {
  readonly calls: Array<[ProgramName, string[]]> = [];
  constructor(
    private readonly tree: Record<string, Node>,
    private readonly programs: (program: ProgramName, args: string[]) => CommandOutput = () => ({ code: 127, stdout: '', stderr: 'not scripted' }),
    /** The distribution the daemon detected; actions that differ per distribution read it. */
    readonly platform: Platform | null = 'debian',
    /** Hard-link counts of files that have more than one name (default 1). */
    private readonly links: Record<string, number> = {},
    /** What checkStaged answers (default: every text passes); the calls are kept in `checked`. */
    private readonly checker: (checker: CheckerName, target: string, content: string) => { ok: true } | { ok: false; problems: string[] } = () => ({ ok: true }),
  ) {}

  readonly checked: Array<[CheckerName, string, string]> = [];
  async checkStaged(checker: CheckerName, target: string, content: string) {
    this.checked.push([checker, target, content]);
    return this.checker(checker, target, content);
  }

  /** Finished changes a revert may read (none unless a test scripts them). */
  readonly finished = new Map<string, FinishedChange>();
  async finishedChange(id: string): Promise<FinishedChange | null> {
    return this.finished.get(id) ?? null;
  }

  async readFile(path: string): Promise<string | null> {
    const n = this.tree[path];
    if (n === undefined) return null;
    if (typeof n === 'string') return n;
    if ('file' in n) return n.file;
    throw new Error(`${path} is not a regular file`);
  }

  async stat(path: string) {
    const n = this.tree[path] ?? (Object.keys(this.tree).some((p) => p.startsWith(path + '/')) ? { dir: true as const } : undefined);
    if (n === undefined) return null;
    const kind = typeof n === 'string' ? 'file' : 'link' in n ? 'link' : 'dir' in n ? 'dir' : 'device' in n ? 'device' : 'file';
    const mode = typeof n === 'object' && 'mode' in n && n.mode !== undefined ? n.mode : kind === 'dir' ? 0o755 : kind === 'link' ? 0o777 : kind === 'device' ? 0o660 : 0o644;
    const size = typeof n === 'string' ? n.length : 'file' in n ? n.file.length : 0;
    const uid = typeof n === 'object' && 'uid' in n ? (n.uid ?? 0) : 0;
    return { mode, uid, gid: 0, size, isFile: kind === 'file', isDir: kind === 'dir', isSymlink: kind === 'link' };
  }

  /** The daemon's rule over this tree (a link in the middle of a path is seen as the link, as lstat walking down sees it). */
  async trustedPath(path: string): Promise<void> {
    const states = await Promise.all(componentsOf(path).map(async ({ component }) => (component === '/' ? { isDir: true, isSymlink: false, uid: 0, gid: 0, mode: 0o755 } : await this.stat(component))));
    const bad = judgePath(path, states);
    if (bad) throw untrustedPathError(path, bad);
  }

  async fileHead(path: string, bytes: number) {
    const n = this.tree[path];
    if (n === undefined || (typeof n === 'object' && !('file' in n))) return null;
    const text = typeof n === 'string' ? n : n.file;
    return { head: Buffer.from(text, 'latin1').subarray(0, bytes), links: this.links[path] ?? 1 };
  }

  async run(program: ProgramName, args: string[]): Promise<CommandOutput> {
    this.calls.push([program, args]);
    if (program === 'readlink' && args[0] === '--') {
      const n = this.tree[args[1]!];
      if (typeof n === 'object' && 'link' in n) return { code: 0, stdout: `${n.link}\n`, stderr: '' };
      return { code: 1, stdout: '', stderr: '' };
    }
    return this.programs(program, args);
  }

  async users() {
    return parsePasswd((await this.readFile('/etc/passwd')) ?? '');
  }

  async groups() {
    return parseGroup((await this.readFile('/etc/group')) ?? '');
  }
}

/**
 * Actions the Debian test bed cannot run (Debian is not among their platforms: SELinux):
 * test/unit/catalogue-rhel.test.ts asserts their argv on Fedora and RHEL instead of a
 * scenario executing them, and fails when one of them has no case there.
 */
export const argvOnly = (a: AnyAction) => !a.platforms.includes('debian');

/** Strings every free-text parameter must refuse. */
export const INJECTIONS = ['; rm -rf /', '$(id)', '`id`', '-rf', '--help', '../etc', 'a\u0000b', 'a\nb', 'x'.repeat(5000), '', 'a b', 'a|b', 'a&b', "a'b", 'a"b', 'a>b'];

/** What a test sees when an action's check finds the desired state already holds (the daemon previews "no change"). */
export class NoChange extends Error {}

/** An action's check as the daemon reads it (src/daemon/plan.ts): a refusal throws, and here a no-change throws NoChange. */
export function checked<P extends Record<string, unknown>, S>(a: { check?: (p: P, cur: S) => Unchanged | void }, p: P, cur: S): void {
  const held = a.check?.(p, cur);
  if (held) throw new NoChange(held.unchanged);
}

/** Asserts that `fn` ends in a no-change whose reason matches. */
export async function assertNoChange(fn: Promise<unknown> | (() => unknown), reason: RegExp): Promise<void> {
  await assert.rejects(typeof fn === 'function' ? async () => fn() : fn, (e: unknown) => {
    assert.ok(e instanceof NoChange, `expected no change, got ${String(e)}`);
    assert.match(e.message, reason);
    return true;
  });
}

/** Runs an action's declaration against a fixture host the way the daemon does: parse, read, check, build. */
export function actionRunner(actions: AnyAction[]) {
  const byName = (n: string) => actions.find((a) => a.name === n)!;
  async function run(name: string, params: Record<string, unknown>, host: FixtureHost) {
    const a = byName(name);
    const p = a.params.parse(params);
    const cur = await a.current(p, host);
    checked(a, p, cur);
    return { steps: a.mechanism(p, cur), preview: a.preview(p, cur), cur, shown: a.shown ? a.shown(cur) : cur };
  }
  /** Asserts that the action refuses with this code (and category, when given). */
  async function refused(name: string, params: Record<string, unknown>, host: FixtureHost, code: string, category?: string) {
    await assert.rejects(run(name, params, host), (e: unknown) => {
      assert.ok(e instanceof AirlockError, String(e));
      assert.equal(e.code, code, e.message);
      if (category) assert.equal(e.category, category, e.message);
      return true;
    });
  }
  return { run, refused };
}
