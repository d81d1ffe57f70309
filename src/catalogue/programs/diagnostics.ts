/**
 * Programs of the network diagnostics still in families/diagnostics.ts (ScanSshHostKeys,
 * CheckTcpPort; absolute candidate paths; see ../programs.ts); they move with those actions
 * to the network family. stat, which FileInfo runs, is in families/files/programs.ts.
 * The network diagnostics also run ip `-j neigh show`, `-j -4|-6 rule show`,
 * `-j -s link show [dev NAME]`; ss `-H -t -n state established`; getent `ahosts -- HOST`.
 * The kernel diagnostics run grep `--with-filename --regexp=^ -- FILE...`.
 */
export const PROGRAMS_DIAGNOSTICS = {
  /** `-T SECONDS -p PORT -- HOST`: connects to an SSH server and prints the public host keys it offers (never -c). */
  'ssh-keyscan': ['/usr/bin/ssh-keyscan'],
  /** netcat-openbsd, `-z -v -w SECONDS -- HOST PORT`: connects and closes, sends nothing. This netcat has no option that runs a program. */
  nc: ['/usr/bin/nc.openbsd'],
} as const satisfies Record<string, readonly string[]>;
