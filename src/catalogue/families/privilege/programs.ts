/** Programs of the privilege family (absolute candidate paths; see ../../programs.ts). */
export const PROGRAMS_PRIVILEGE = {
  /** Checks sudoers syntax (-c) of one file (-f) or of the whole policy; never edits here. */
  visudo: ['/usr/sbin/visudo', '/sbin/visudo'],
  /** Prints the sudoers rules that match a user (-m user=NAME -M -p), following @includedir: `sudo -l -U` without running sudo. */
  cvtsudoers: ['/usr/bin/cvtsudoers'],
  /** Prints policy lines with their file and line number; fixed patterns only. */
  grep: ['/usr/bin/grep', '/bin/grep'],
} as const satisfies Record<string, readonly string[]>;
