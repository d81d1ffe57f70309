/**
 * Programs of the kernel family (absolute candidate paths; see ../../programs.ts). Each is
 * also declared elsewhere today, with the same paths: sysctl, lsmod and ls in
 * BASE_PROGRAMS, modprobe in the network configuration table, grep in two other tables.
 */
export const PROGRAMS_KERNEL = {
  /** `sysctl -n -- KEY`, `sysctl -w -- KEY=VALUE`, `sysctl -a --pattern ERE` (built from constants, see ./sysctl.ts). */
  sysctl: ['/usr/sbin/sysctl', '/sbin/sysctl'],
  /** `lsmod`: the loaded modules without the kernel addresses /proc/modules shows root. */
  lsmod: ['/usr/sbin/lsmod', '/sbin/lsmod'],
  /** `ls -1 -- /sys/module` (built-in modules), and the listing of /etc/modprobe.d. */
  ls: ['/usr/bin/ls', '/bin/ls'],
  /** `modprobe -- MODULE` loads, `modprobe -r -- MODULE` unloads, `modprobe -a -- M...` loads each, `modprobe --show-depends -- MODULE` lists what a load would load (getopt_long: honours `--`). */
  modprobe: ['/usr/sbin/modprobe', '/sbin/modprobe'],
  /** `grep --with-filename --regexp=^ -- /proc/pressure/cpu ...`: each line prefixed with its file. */
  grep: ['/usr/bin/grep', '/bin/grep'],
} as const satisfies Record<string, readonly string[]>;
