/**
 * The state probes of a change (src/catalogue/lib/state-probes.ts), read from outside the
 * daemon: through the sandbox's own programs and root, with the library's one reading function.
 * What a rollback or a revert claims, a test checks here against what the host really holds.
 */
import { PROGRAMS, type ProgramName } from '../../src/catalogue/programs.js';
import { probeState, stateDigest, type ProbeHost } from '../../src/catalogue/lib/state-probes.js';
import type { StateProbe } from '../../src/catalogue/rollback.js';
import type { SandboxView } from '../scenarios/types.js';

export function outsideHost(view: SandboxView): ProbeHost {
  const where = new Map<string, string>();
  const resolve = async (program: ProgramName): Promise<string> => {
    if (!where.has(program)) {
      for (const candidate of PROGRAMS[program] as readonly string[]) {
        if ((await view.run('/usr/bin/test', ['-x', candidate])).code === 0) {
          where.set(program, candidate);
          break;
        }
      }
    }
    const path = where.get(program);
    if (!path) throw new Error(`the sandbox has no ${program}`);
    return path;
  };
  return {
    async stat(path) {
      const r = await view.run('/usr/bin/stat', ['-c', '%f %u %g %s', '--', path]);
      if (r.code !== 0) return null;
      const [raw, uid, gid, size] = r.stdout.trim().split(' ');
      const mode = parseInt(raw!, 16);
      const type = mode & 0o170000;
      return { mode: mode & 0o7777, uid: Number(uid), gid: Number(gid), size: Number(size), isFile: type === 0o100000, isDir: type === 0o040000, isSymlink: type === 0o120000 };
    },
    readFile: (path) => view.readFile(path),
    async run(program, args) {
      const r = await view.run(await resolve(program), args);
      return { code: r.code, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

/** The digest of the probed state as the sandbox holds it now. */
export async function outsideDigest(view: SandboxView, probes: readonly StateProbe[]): Promise<string> {
  return stateDigest(await probeState(probes, outsideHost(view)));
}
