/** Programs of the identity family (absolute candidate paths; see ../../programs.ts). */
export const PROGRAMS_IDENTITY = {
  /** `hostname` prints the running host name; `hostname -- NAME` sets it. */
  hostname: ['/usr/bin/hostname', '/bin/hostname'],
  /** `--pretty status` prints the pretty host name; `set-hostname --pretty -- NAME` sets it (through systemd-hostnamed). */
  hostnamectl: ['/usr/bin/hostnamectl', '/bin/hostnamectl'],
  /** `readlink -- /etc/localtime`: the zone file the time zone link points at. */
  readlink: ['/usr/bin/readlink', '/bin/readlink'],
  /** `ln -sfn -- ZONEFILE /etc/localtime` repoints the time zone link. */
  ln: ['/usr/bin/ln', '/bin/ln'],
  /** `date -- +%Z %z`: the zone abbreviation and offset in effect. */
  date: ['/usr/bin/date', '/bin/date'],
  /** `show`, `timesync-status`, `set-ntp true|false` (through systemd-timedated on the system bus). */
  timedatectl: ['/usr/bin/timedatectl', '/bin/timedatectl'],
  /** `show` of systemd-timesyncd.service: whether it is loaded, active, enabled. */
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  /** `locale -a` lists the generated locales. */
  locale: ['/usr/bin/locale', '/bin/locale'],
  /**
   * Compiles one locale into /usr/lib/locale/locale-archive (what Debian's locale-gen runs per
   * line, without the shell script around it, whose `|| :` hides failures); honours `--`.
   * `--delete-from-archive` removes one again.
   */
  localedef: ['/usr/bin/localedef', '/bin/localedef'],
} as const satisfies Record<string, readonly string[]>;
