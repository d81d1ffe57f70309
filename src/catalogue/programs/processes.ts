/** Programs of the processes and scheduling actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_PROCESSES = {
  // procps kill (not util-linux's): honours `--` before the pid, takes `-s NAME`.
  kill: ['/usr/bin/kill', '/bin/kill'],
  // `calendar` normalises an OnCalendar= expression; `verify` checks a unit file before it goes live.
  'systemd-analyze': ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'],
} as const satisfies Record<string, readonly string[]>;
