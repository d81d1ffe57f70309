/**
 * How a change is undone, as the action declares it (issue 27). Every change states one class,
 * and test/unit/rollback-declarations.test.ts checks the whole catalogue:
 *
 * - `exact`: what the change touched is restored as it was: each file its steps wrote byte for
 *   byte with its owner and mode (from the snapshot taken right before), and each command's
 *   declared `undo` run, last first. Its state probes read back the same after the undo as before.
 * - `compensating`: the undo is the inverse action named here (a package removed by the one that
 *   installed it, a deleted group made again with its gid and members): the host comes back to
 *   an equivalent state, which its state probes read back the same.
 * - `none`: nothing can bring the host back (a killed process, a vacuumed journal); `reason` says
 *   why, and the preview shows it to the approver before they approve.
 *
 * The class says how. The daemon verifies it each time: before the first step it reads the state
 * the action touches (its probes, and every file its steps write), and after an automatic
 * rollback or a revert it reads it again and says whether it is the same (src/daemon/state-probes.ts).
 */
import type { ProgramName } from './programs.js';

/**
 * One piece of the state a change touches, read the same way before the change, after it, and
 * after its undo: a file (its bytes, owner and mode, or its absence); the lines of a file that
 * start with a prefix (one account's entry in /etc/passwd: another account made meanwhile is not
 * this change's state, so it is no drift); or the output of a read-only program (a unit's
 * enablement, a sysctl's live value, a firewall's rules). A probe never changes anything; what it
 * reads is kept only as a hash.
 */
export type StateProbe = { file: string; lines?: string } | { program: ProgramName; args: string[] };

export type RollbackDeclaration<P = Record<string, unknown>, S = unknown> =
  | {
      class: 'exact';
      /** The live state the steps' commands change, beyond the files their file steps write (which are always probed). */
      state?: (params: P, current: S) => StateProbe[];
    }
  | {
      class: 'compensating';
      /** The catalogue action that undoes this one; the steps' `undo` commands are its mechanism. */
      inverse: string;
      state?: (params: P, current: S) => StateProbe[];
    }
  | {
      class: 'none';
      /** For the approver: what cannot be brought back, and why. */
      reason: string;
    };

export type RollbackClass = RollbackDeclaration['class'];
export const ROLLBACK_CLASSES: readonly RollbackClass[] = ['exact', 'compensating', 'none'];

/** Exact, with files only (their steps are probed), or with the live state the commands change. */
export const exact = <P, S>(state?: (params: P, current: S) => StateProbe[]): RollbackDeclaration<P, S> => (state ? { class: 'exact', state } : { class: 'exact' });
export const compensating = <P, S>(inverse: string, state?: (params: P, current: S) => StateProbe[]): RollbackDeclaration<P, S> => (state ? { class: 'compensating', inverse, state } : { class: 'compensating', inverse });
export const noRollback = (reason: string): RollbackDeclaration<any, any> => ({ class: 'none', reason });

/** What a preview and `airlock describe` show of it. */
export interface RollbackShown {
  class: RollbackClass;
  inverse?: string;
  reason?: string;
}
export function shownRollback(r: RollbackDeclaration<any, any>): RollbackShown {
  if (r.class === 'none') return { class: 'none', reason: r.reason };
  if (r.class === 'compensating') return { class: 'compensating', inverse: r.inverse };
  return { class: 'exact' };
}

/** LACS's `rollback_available`: a change whose class is not `none`. */
export const rollbackAvailable = (a: { readOnly: boolean; rollback?: RollbackDeclaration<any, any> }): boolean => !a.readOnly && a.rollback !== undefined && a.rollback.class !== 'none';

/** A probe's label, as a person reads it in a drift report: the file's path, or the program's command line. */
export const probeLabel = (p: StateProbe): string => ('file' in p ? (p.lines === undefined ? p.file : `${p.file} lines ${p.lines}…`) : [p.program, ...p.args].join(' '));

/** One account's lines in the account files (its entry, or a group's): what useradd, usermod and groupadd change of it. */
export const accountLines = (name: string, files: readonly string[] = ['/etc/passwd', '/etc/shadow', '/etc/group', '/etc/gshadow']): StateProbe[] => files.map((file) => ({ file, lines: `${name}:` }));

/** Probes of a unit's enablement and activity: what Start/Stop/Enable/Disable/Mask change. */
export const unitState = (unit: string): StateProbe[] => [
  { program: 'systemctl', args: ['is-enabled', '--', unit] },
  { program: 'systemctl', args: ['is-active', '--', unit] },
];
