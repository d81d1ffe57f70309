/**
 * Reading the state a change touches (src/catalogue/rollback.ts), the same way wherever it is
 * read: by the daemon before a change's first step, after it, after an automatic rollback and
 * before a revert (drift), and by the tests from outside the daemon. Each probe reads to one
 * line, `label -> SHA-256`: the content never leaves this function, so a probe of /etc/shadow
 * or of a firewall's rules holds nothing a person should not see, and a drift report names what
 * changed, never how.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from '../../protocol/canonical.js';
import { fileBytes } from '../../protocol/file-text.js';
import type { Host } from '../action.js';
import { probeLabel, type StateProbe } from '../rollback.js';

/** Each probe's label and the SHA-256 (hex) of what it read. */
export type ProbedState = Record<string, string>;

/** What reading probes needs of a host: the daemon's RealHost, or a test's view of the sandbox. */
export type ProbeHost = Pick<Host, 'readFile' | 'stat' | 'run'>;

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * A file reads as its kind, mode, owner and bytes; a directory as its mode and owner; absence as
 * `absent`. A program reads as its exit status and standard output (it changes nothing).
 */
export async function readProbe(p: StateProbe, host: ProbeHost): Promise<string> {
  if ('file' in p) {
    const st = await host.stat(p.file);
    if (!st) return sha256('absent');
    const attrs = `${st.mode.toString(8)} ${st.uid} ${st.gid}`;
    if (st.isSymlink) return sha256(`symlink ${attrs}`);
    if (st.isDir) return sha256(`dir ${attrs}`);
    if (!st.isFile) return sha256(`other ${attrs}`);
    const text = await host.readFile(p.file);
    if (p.lines !== undefined) {
      // Only these lines, not the file's attributes: the file is shared with other changes.
      const prefix = p.lines;
      return sha256(`lines ${(text ?? '').split('\n').filter((l) => l.startsWith(prefix)).join('\n')}`);
    }
    return sha256(`file ${attrs} ${text === null ? 'absent' : sha256(fileBytes(text))}`);
  }
  const r = await host.run(p.program, p.args);
  return sha256(`exit ${r.code}\n${r.stdout}`);
}

/** Every probe read, in order, one at a time (each may run a program: they queue like any read). */
export async function probeState(probes: readonly StateProbe[], host: ProbeHost): Promise<ProbedState> {
  const out: ProbedState = {};
  for (const p of probes) out[probeLabel(p)] = await readProbe(p, host);
  return out;
}

/** One digest over a probed state: SHA-256 of its JCS (labels sorted). */
export const stateDigest = (s: ProbedState): string => sha256(canonicalize(s));

/** The labels whose readings differ between two states (a label in only one differs). */
export function stateDifferences(a: ProbedState, b: ProbedState): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

/** Probes without repeats (a file written by two steps is read once), in first-seen order. */
export function uniqueProbes(probes: readonly StateProbe[]): StateProbe[] {
  const seen = new Set<string>();
  return probes.filter((p) => {
    const k = probeLabel(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
