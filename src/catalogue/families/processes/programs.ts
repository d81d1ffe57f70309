/**
 * Programs of the processes family (absolute candidate paths; see ../../programs.ts).
 * ps and systemctl are in the base table too, with the same paths.
 */
export const PROGRAMS_PROCESSES = {
  /** `-eo COLUMNS --sort=KEY`, `-o COLUMNS -p PID`, `-e --forest -o COLUMNS`, `-o COLUMNS --user UID`: never the command line (no args column). */
  ps: ['/usr/bin/ps', '/bin/ps'],
  // procps kill (not util-linux's): honours `--` before the pid, takes `-s NAME`.
  kill: ['/usr/bin/kill', '/bin/kill'],
  /** `show -p Restart -- UNIT`, `kill --signal=NAME --kill-whom=main|all -- UNIT`. */
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
} as const satisfies Record<string, readonly string[]>;
