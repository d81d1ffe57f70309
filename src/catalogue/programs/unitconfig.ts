/**
 * Programs of the unitconfig actions (absolute candidate paths; see ../programs.ts).
 * They also use systemctl (`show`, `cat`, `list-unit-files`, `enable --now`, `disable --now`,
 * `daemon-reload`, always with `--` before a unit) and ls, from the base table.
 */
export const PROGRAMS_UNITCONFIG = {
  /** `grep --with-filename --line-number --regexp= -- FILE...`: prints every line of some drop-ins, each prefixed with its file (the empty pattern is fixed). */
  grep: ['/usr/bin/grep', '/bin/grep'],
} as const satisfies Record<string, readonly string[]>;
