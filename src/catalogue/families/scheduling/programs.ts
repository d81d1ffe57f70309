/**
 * Programs of the scheduling family (absolute candidate paths; see ../../programs.ts).
 * ls and systemctl are in the base table too, with the same paths.
 */
export const PROGRAMS_SCHEDULING = {
  // `calendar -- EXPR` normalises an OnCalendar= expression; `verify --man=no -- FILE` checks a unit file before it goes live.
  'systemd-analyze': ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'],
  /** `show -p PROPERTIES -- UNIT`, `daemon-reload`, `enable|disable --now -- TIMER`, `start -- TIMER`. */
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  /** `-1A --quoting-style=literal -- DIR` lists the crontab directories; `-l --time-style=long-iso -- DIR...` the run-parts scripts. */
  ls: ['/usr/bin/ls', '/bin/ls'],
} as const satisfies Record<string, readonly string[]>;
