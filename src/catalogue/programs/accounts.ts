/** Programs of the accounts actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_ACCOUNTS = {
  /** `lastlog` (every account) or `lastlog --user NAME`: each account's last login, from /var/log/lastlog. */
  lastlog: ['/usr/bin/lastlog'],
  /** `who --heading --users`: the logins recorded in utmp, with terminal, time, idle time, pid and remote host. */
  who: ['/usr/bin/who', '/bin/who'],
  /** `--pretty status` prints the pretty host name; `set-hostname --pretty -- NAME` sets it (through systemd-hostnamed). */
  hostnamectl: ['/usr/bin/hostnamectl', '/bin/hostnamectl'],
} as const satisfies Record<string, readonly string[]>;
