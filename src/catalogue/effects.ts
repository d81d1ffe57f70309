/**
 * What a change leaves on the host, as the action declares it: the one statement a plan's
 * later steps are previewed against (src/daemon/projected-host.ts), never inferred a second
 * way. Only what the daemon can state before the change runs is an effect; anything else a
 * change does (a package's files and units, a program's output) stays unknown, and a later
 * step that needs it is computed after the change has run (docs/protocol.md section 6.21).
 */

/** A file's new bytes (lossless text, src/protocol/file-text.ts), or null: the change deletes it. */
export interface FileEffect {
  kind: 'file';
  path: string;
  content: string | null;
  mode: number;
  owner: { uid: number; gid: number };
  /** The directory it is in, when the change creates it. */
  parent?: { mode: number; owner: { uid: number; gid: number } };
}

export type Effect =
  | FileEffect
  /** A group exists, with the next free gid from 1000 when it is new. */
  | { kind: 'group'; group: string }
  /** A user exists with a group of its own and a home (useradd -m -U), in these supplementary groups. */
  | { kind: 'user'; user: string; home: string; shell: string; comment: string; groups: string[] }
  /** A user is (or, with member false, is not) in a group's member list. */
  | { kind: 'member'; user: string; group: string; member: boolean }
  /** A package is installed: its files, units and accounts are known only once it is. */
  | { kind: 'package'; package: string }
  /** A unit's state: `interrupts` when the change stops or restarts it (a plan's services interrupted). */
  | { kind: 'unit'; unit: string; active?: boolean; enabled?: boolean; interrupts?: boolean };
