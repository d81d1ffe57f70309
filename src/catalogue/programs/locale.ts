/**
 * Programs of the locale and NTP actions (families/locale.ts, family 'identity'; absolute
 * candidate paths; see ../programs.ts). They shared one table with the logging actions;
 * the logging programs are in families/logging/programs.ts now, and these belong in the
 * identity family's table when locale.ts moves there.
 */
export const PROGRAMS_LOCALE = {
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
