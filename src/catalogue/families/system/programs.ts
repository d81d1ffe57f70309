/**
 * Programs of the system family (absolute candidate paths; see ../../programs.ts). All are
 * also in BASE_PROGRAMS today, with the same paths, but shutdown; RebootHost runs the library's systemctl.
 */
export const PROGRAMS_SYSTEM = {
  /** `uname -snrvmo`. */
  uname: ['/usr/bin/uname', '/bin/uname'],
  /** `df -hPT`. */
  df: ['/usr/bin/df', '/bin/df'],
  /** `free -b -w`. */
  free: ['/usr/bin/free', '/bin/free'],
  /** `lsblk -J -o NAME,SIZE,TYPE,FSTYPE,MOUNTPOINT`. */
  lsblk: ['/usr/bin/lsblk', '/bin/lsblk'],
  /** `findmnt -J -l`. */
  findmnt: ['/usr/bin/findmnt', '/bin/findmnt'],
  /** `ps -eo pid,user,pcpu,pmem,comm --sort=-pcpu` (never the command line). */
  ps: ['/usr/bin/ps', '/bin/ps'],
  /** `-r -- +MINUTES [MESSAGE]` (ScheduleReboot) and `-c` (CancelScheduledReboot): systemd's, run by this name (it is systemctl, which reads argv[0]). */
  shutdown: ['/usr/sbin/shutdown', '/sbin/shutdown'],
} as const satisfies Record<string, readonly string[]>;
