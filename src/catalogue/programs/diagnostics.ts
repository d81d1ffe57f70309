/**
 * Programs of the diagnostics actions (absolute candidate paths; see ../programs.ts).
 * They also run programs other tables declare, with these argv shapes:
 * ip `-j neigh show`, `-j -4|-6 rule show`, `-j -s link show [dev NAME]`; ss `-H -t -n state established`;
 * getent `ahosts -- HOST`; journalctl `--list-boots`, `--dmesg -n N [-p P]`, `--verify`;
 * systemd-analyze `cat-config --no-pager systemd/journald.conf`; ps `-e --forest -o ...`, `-o ... --user UID`;
 * grep `--fixed-strings --line-number [--ignore-case] -- TEXT FILE` and `--with-filename --regexp=^ -- FILE...`.
 */
export const PROGRAMS_DIAGNOSTICS = {
  /** `-T SECONDS -p PORT -- HOST`: connects to an SSH server and prints the public host keys it offers (never -c). */
  'ssh-keyscan': ['/usr/bin/ssh-keyscan'],
  /** netcat-openbsd, `-z -v -w SECONDS -- HOST PORT`: connects and closes, sends nothing. This netcat has no option that runs a program. */
  nc: ['/usr/bin/nc.openbsd'],
  /** `-- PATH`: metadata of one path, without following a final symbolic link (no -L). */
  stat: ['/usr/bin/stat', '/bin/stat'],
} as const satisfies Record<string, readonly string[]>;
