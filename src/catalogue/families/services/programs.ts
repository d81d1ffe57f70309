/**
 * Programs of the services family (absolute candidate paths; see ../../programs.ts).
 * systemctl, journalctl and ls are in the base table too, with the same paths.
 */
export const PROGRAMS_SERVICES = {
  /**
   * `list-units`, `list-timers`, `list-unit-files`, `show`, `is-enabled`, `cat`, `start`, `stop`,
   * `restart`, `reload`, `enable [--now]`, `disable [--now]`, `mask`, `unmask`, `daemon-reload`,
   * always with `--` before a unit.
   */
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  /** `-u UNIT -n N --no-pager -o short-iso`: the last lines of one unit. */
  journalctl: ['/usr/bin/journalctl', '/bin/journalctl'],
  /** `-1 -A --quoting-style=escape -- DIR`: Airlock's drop-ins of a unit (lib/host-files.ts). */
  ls: ['/usr/bin/ls', '/bin/ls'],
  /** `grep --with-filename --line-number --regexp= -- FILE...`: prints every line of some drop-ins, each prefixed with its file (the empty pattern is fixed). */
  grep: ['/usr/bin/grep', '/bin/grep'],
} as const satisfies Record<string, readonly string[]>;
