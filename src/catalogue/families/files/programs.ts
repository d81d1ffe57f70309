/**
 * Programs of the files family (absolute candidate paths; see ../../programs.ts).
 * ls is in the base table too, with the same paths.
 */
export const PROGRAMS_FILES = {
  /** `-l -a -b --time-style=long-iso -- DIR`: -b escapes non-printable characters in names. */
  ls: ['/usr/bin/ls', '/bin/ls'],
  /** `--fixed-strings --line-number [--ignore-case] -- TEXT FILE`: the text is plain text, not a pattern. */
  grep: ['/usr/bin/grep', '/bin/grep'],
  /** `-- PATH`: metadata of one path, without following a final symbolic link (no -L). */
  stat: ['/usr/bin/stat', '/bin/stat'],
} as const satisfies Record<string, readonly string[]>;
