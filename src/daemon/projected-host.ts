/**
 * The host as a plan's earlier steps will leave it (docs/protocol.md section 6.21): the real
 * host with the effects those steps declare (src/catalogue/effects.ts) laid over it. A later
 * step is previewed against it as if the earlier ones had run: a file's new bytes, the account
 * files with the groups, users and memberships they add. What no declaration states cannot be
 * projected, and asking for it throws ComputedAfter naming the step after which it is known:
 * any program's output once a change is declared (a package's units, `systemctl show`), and
 * anything at all after a change that declares no effects. Read only, like the real host.
 */
import { dirname } from 'node:path';
import type { CommandOutput, GroupEntry, Host, PasswdEntry, Platform } from '../catalogue/action.js';
import type { Effect, FileEffect } from '../catalogue/effects.js';
import type { ProgramName } from '../catalogue/programs.js';
import { parseGroup, parsePasswd } from '../protocol/account-files.js';
import { fileBytes } from '../protocol/file-text.js';
import { CHECKER, type CheckerName } from '../catalogue/lib/config-checkers.js';

/** A read the projection cannot answer before step `step` (1-based) has run. */
export class ComputedAfter extends Error {
  constructor(readonly step: number) {
    super(`computed after step ${step}`);
  }
}

type Stat = NonNullable<Awaited<ReturnType<Host['stat']>>>;
const FIRST_ID = 1000;
const LAST_ID = 60000;

export class ProjectedHost implements Host {
  /** Paths whose content the earlier steps declare (null: deleted). */
  private readonly files = new Map<string, { content: string | null; stat: Stat | null }>();
  /** Directories the earlier steps create. */
  private readonly dirs = new Map<string, Stat>();
  /** The last change so far: program output after it is not projected. */
  private lastChange: number | null = null;
  /** The last change whose effects are unknown: nothing after it is projected. */
  private unknownAfter: number | null = null;

  constructor(private readonly real: Host) {}

  get platform(): Platform | null {
    return this.real.platform;
  }

  /** A finished transaction is in the store, not on the host a plan projects: read as it is. */
  finishedChange(transactionId: string) {
    return this.real.finishedChange(transactionId);
  }

  /** Lays step `step`'s declared effects over the projection; undefined: a change whose effects are unknown. */
  async apply(step: number, effects: Effect[] | undefined): Promise<void> {
    if (effects === undefined) {
      this.unknownAfter = step;
      this.lastChange = step;
      return;
    }
    if (effects.length > 0) this.lastChange = step;
    for (const e of effects) await this.applyOne(e);
  }

  private async applyOne(e: Effect): Promise<void> {
    switch (e.kind) {
      case 'file':
        return this.putFile(e);
      case 'group': {
        const groups = await this.groups();
        if (groups.some((g) => g.name === e.group)) return;
        return this.appendLine('/etc/group', `${e.group}:x:${nextFree(groups.map((g) => g.gid))}:`);
      }
      case 'member':
        return this.editMembers(e.group, (m) => (e.member ? (m.includes(e.user) ? m : [...m, e.user]) : m.filter((u) => u !== e.user)));
      case 'user': {
        const users = await this.users();
        if (users.some((u) => u.name === e.user)) return;
        const groups = await this.groups();
        // useradd: the next free uid; -U: a group of the same name, with the uid as its gid when that is free.
        const uid = nextFree(users.map((u) => u.uid));
        const gid = groups.some((g) => g.gid === uid) ? nextFree(groups.map((g) => g.gid)) : uid;
        await this.appendLine('/etc/passwd', `${e.user}:x:${uid}:${gid}:${e.comment}:${e.home}:${e.shell}`);
        await this.appendLine('/etc/group', `${e.user}:x:${gid}:`);
        for (const g of e.groups) await this.editMembers(g, (m) => (m.includes(e.user) ? m : [...m, e.user]));
        this.dirs.set(e.home, dirStat(0o700, { uid, gid }));
        return;
      }
      case 'package':
      case 'unit':
        return; // known only once the step has run: program output after it is not projected (lastChange)
    }
  }

  private putFile(e: FileEffect): void {
    if (e.parent && !this.dirs.has(dirname(e.path))) this.dirs.set(dirname(e.path), dirStat(e.parent.mode, e.parent.owner));
    const stat = e.content === null ? null : { mode: e.mode, uid: e.owner.uid, gid: e.owner.gid, size: fileBytes(e.content).length, isFile: true, isDir: false, isSymlink: false };
    this.files.set(e.path, { content: e.content, stat });
  }

  private async appendLine(path: string, line: string): Promise<void> {
    const text = (await this.readFile(path)) ?? '';
    const content = text === '' || text.endsWith('\n') ? `${text}${line}\n` : `${text}\n${line}\n`;
    const st = await this.stat(path);
    this.putFile({ kind: 'file', path, content, mode: st?.mode ?? 0o644, owner: { uid: st?.uid ?? 0, gid: st?.gid ?? 0 } });
  }

  private async editMembers(group: string, members: (m: string[]) => string[]): Promise<void> {
    const text = (await this.readFile('/etc/group')) ?? '';
    const lines = text.split('\n').map((l) => {
      const f = l.split(':');
      if (f.length < 4 || f[0] !== group) return l;
      return [...f.slice(0, 3), members(f[3] ? f[3].split(',').filter(Boolean) : []).join(','), ...f.slice(4)].join(':');
    });
    const st = await this.stat('/etc/group');
    this.putFile({ kind: 'file', path: '/etc/group', content: lines.join('\n'), mode: st?.mode ?? 0o644, owner: { uid: st?.uid ?? 0, gid: st?.gid ?? 0 } });
  }

  private known(): void {
    if (this.unknownAfter !== null) throw new ComputedAfter(this.unknownAfter);
  }

  async readFile(path: string): Promise<string | null> {
    this.known();
    const f = this.files.get(path);
    return f ? f.content : this.real.readFile(path);
  }

  async stat(path: string) {
    this.known();
    const f = this.files.get(path);
    if (f) return f.stat;
    return this.dirs.get(path) ?? this.real.stat(path);
  }

  trustedPath(path: string): Promise<void> {
    this.known();
    return this.real.trustedPath(path);
  }

  async fileHead(path: string, bytes: number) {
    this.known();
    const f = this.files.get(path);
    if (!f) return this.real.fileHead(path, bytes);
    return f.content === null ? null : { head: fileBytes(f.content).subarray(0, bytes), links: 1 };
  }

  async run(program: ProgramName, args: string[]): Promise<CommandOutput> {
    this.known();
    // A program's output after a change cannot be projected: it reads the host as the change leaves it.
    if (this.lastChange !== null) throw new ComputedAfter(this.lastChange);
    return this.real.run(program, args);
  }

  /** A parser reads only the text; a checker program reads the host too (the files the text includes), as run() does. */
  async checkStaged(checker: CheckerName, target: string, content: string) {
    this.known();
    if (CHECKER[checker]?.program && this.lastChange !== null) throw new ComputedAfter(this.lastChange);
    return this.real.checkStaged(checker, target, content);
  }

  async users(): Promise<PasswdEntry[]> {
    return parsePasswd((await this.readFile('/etc/passwd')) ?? '');
  }

  async groups(): Promise<GroupEntry[]> {
    return parseGroup((await this.readFile('/etc/group')) ?? '');
  }
}

/** The next id after the highest in useradd's and groupadd's range (1000 when none is). */
function nextFree(ids: number[]): number {
  const used = ids.filter((i) => i >= FIRST_ID && i < LAST_ID);
  return used.length ? Math.max(...used) + 1 : FIRST_ID;
}

function dirStat(mode: number, owner: { uid: number; gid: number }): Stat {
  return { mode, uid: owner.uid, gid: owner.gid, size: 4096, isFile: false, isDir: true, isSymlink: false };
}
