/** Programs of the logging actions and of the locale/NTP actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_LOGGING = {
  /** -d checks a configuration (debug mode changes nothing; exit 1 on a duplicate entry or an insecure directory); -f rotates. */
  logrotate: ['/usr/sbin/logrotate', '/sbin/logrotate'],
  /** `cat-config systemd/journald.conf` prints journald.conf and its drop-ins in the order journald reads them. */
  'systemd-analyze': ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'],
  /** `show`, `timesync-status`, `set-ntp true|false` (through systemd-timedated on the system bus). */
  timedatectl: ['/usr/bin/timedatectl', '/bin/timedatectl'],
  /** `locale -a` lists the generated locales. */
  locale: ['/usr/bin/locale', '/bin/locale'],
  /**
   * Compiles one locale into /usr/lib/locale/locale-archive (what Debian's locale-gen runs per
   * line, without the shell script around it, whose `|| :` hides failures); honours `--`.
   * `--delete-from-archive` removes one again.
   */
  localedef: ['/usr/bin/localedef', '/bin/localedef'],
} as const satisfies Record<string, readonly string[]>;
