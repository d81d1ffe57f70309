/**
 * Resolves the catalogue's program table to absolute paths once, at start. A
 * candidate counts only when it is a regular file owned by root and not writable
 * by group or others: a binary an unprivileged user could replace is not run.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { PROGRAMS, type ProgramName } from '../catalogue/programs.js';
import { neverRunByDaemon } from '../catalogue/lib/program-runners.js';

export type ProgramTable = Partial<Record<ProgramName, string>>;

export function resolvePrograms(): ProgramTable {
  const table: ProgramTable = {};
  for (const [name, candidates] of Object.entries(PROGRAMS) as [ProgramName, readonly string[]][]) {
    for (const path of candidates) {
      const resolved = trustedBinary(path);
      if (resolved) {
        table[name] = resolved;
        break;
      }
    }
  }
  return table;
}

function trustedBinary(path: string): string | null {
  try {
    lstatSync(path);
    // /bin -> usr/bin on merged-/usr systems, lsmod -> kmod: check the real file, but run the
    // path as named, since multi-call binaries (kmod) choose what to do from argv[0].
    const real = realpathSync(path);
    // A table entry that turns out to be a link to a shell, an interpreter or busybox is not that program.
    if (neverRunByDaemon(basename(real))) return null;
    const st = statSync(real);
    if (!st.isFile() || st.uid !== 0 || (st.mode & 0o022) !== 0 || (st.mode & 0o111) === 0) return null;
    return path;
  } catch {
    return null;
  }
}
