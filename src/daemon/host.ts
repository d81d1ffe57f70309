/** The daemon's read-only view of the real machine, handed to catalogue actions. */
import { promises as fsp } from 'node:fs';
import type { GroupEntry, Host, PasswdEntry, Platform } from '../catalogue/action.js';
import type { ProgramName } from '../catalogue/programs.js';
import { readRegularFile } from './safe-fs.js';
import { checkTrustedPath } from './trusted-path.js';
import type { Executor } from './executor.js';

export function parsePasswd(text: string): PasswdEntry[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(':'))
    .filter((f) => f.length >= 7)
    .map((f) => ({ name: f[0]!, uid: Number(f[2]), gid: Number(f[3]), gecos: f[4]!, home: f[5]!, shell: f[6]! }));
}

export function parseGroup(text: string): GroupEntry[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(':'))
    .filter((f) => f.length >= 4)
    .map((f) => ({ name: f[0]!, gid: Number(f[2]), members: f[3] ? f[3].split(',').filter(Boolean) : [] }));
}

export class RealHost implements Host {
  constructor(
    readonly platform: Platform | null,
    private readonly executor: Executor,
  ) {}

  async readFile(path: string): Promise<string | null> {
    const b = await readRegularFile(path);
    return b === null ? null : b.toString('utf8');
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
