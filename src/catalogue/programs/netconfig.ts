/** Programs of the runtime network configuration and kernel module actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_NETCONFIG = {
  /** `getent ahosts -- NAME` resolves a name through NSS (/etc/hosts, DNS) as every program does; argp honours `--`. Exit 2: not found. */
  getent: ['/usr/bin/getent', '/bin/getent'],
  /** `modprobe -- MODULE` loads, `modprobe -r -- MODULE` unloads (getopt_long: honours `--`). */
  modprobe: ['/usr/sbin/modprobe', '/sbin/modprobe'],
} as const satisfies Record<string, readonly string[]>;
