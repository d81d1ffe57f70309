/**
 * Programs the network family's mechanisms and state readers run (absolute candidate paths;
 * see ../../programs.ts). ip, ss and readlink are in the base table too, with the same paths;
 * ssh-keyscan and nc also in the diagnostics table, with the same paths.
 */
export const PROGRAMS_NETWORK = {
  /** `-j ... show`, `-d -j addr show`, `addr add|del`, `route add|del`, `link set dev NAME up|down`: no `--` (ip answers "garbage"); see runtime-change.ts. */
  ip: ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'],
  /** `-H -l -n -t -u -p` (listeners) and `-H -t -n state established` (connections, as nobody). */
  ss: ['/usr/bin/ss', '/usr/sbin/ss', '/bin/ss'],
  /** `readlink -- /etc/resolv.conf` (lib/host-files.ts): which resolver file it links to. */
  readlink: ['/usr/bin/readlink', '/bin/readlink'],
  /** `getent ahosts -- NAME` resolves a name through NSS (/etc/hosts, DNS) as every program does; argp honours `--`. Exit 2: not found. */
  getent: ['/usr/bin/getent', '/bin/getent'],
  /** `-T SECONDS -p PORT -- HOST`: connects to an SSH server and prints the public host keys it offers (never -c). */
  'ssh-keyscan': ['/usr/bin/ssh-keyscan'],
  /** netcat-openbsd, `-z -v -w SECONDS -- HOST PORT`: connects and closes, sends nothing. This netcat has no option that runs a program. */
  nc: ['/usr/bin/nc.openbsd'],
} as const satisfies Record<string, readonly string[]>;
