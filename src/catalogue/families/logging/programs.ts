/**
 * Programs of the logging family (absolute candidate paths; see ../../programs.ts).
 * journalctl, systemctl and ls are in the base table too, with the same paths.
 */
export const PROGRAMS_LOGGING = {
  /** -d checks a configuration (debug mode changes nothing; exit 1 on a duplicate entry or an insecure directory); -f rotates. */
  logrotate: ['/usr/sbin/logrotate', '/sbin/logrotate'],
  /** `cat-config --no-pager systemd/journald.conf` prints journald.conf and its drop-ins in the order journald reads them. */
  'systemd-analyze': ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'],
  /**
   * `--no-pager -o short-iso -n N [-u UNIT] [-p PRIORITY] [--since=WHEN]`, `--dmesg ...`, `--list-boots`,
   * `--verify --quiet`, `--disk-usage`, `--vacuum-size=SIZE`, `--vacuum-time=SPAN`.
   */
  journalctl: ['/usr/bin/journalctl', '/bin/journalctl'],
  /** `reset-failed -- systemd-journald.service`, `restart -- systemd-journald.service`. */
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  /** `-1 -A --quoting-style=escape -- DIR` (lib/host-files.ts); `-l -- /etc/logrotate.d`. */
  ls: ['/usr/bin/ls', '/bin/ls'],
} as const satisfies Record<string, readonly string[]>;
