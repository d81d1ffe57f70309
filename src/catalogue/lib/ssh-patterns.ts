/**
 * sshd's wildcard patterns: `*` matches any run of characters (an empty one too), `?` any
 * one; every other character stands for itself. AllowUsers and AllowGroups entries are
 * such patterns, and so are the Include globs the ssh family follows (a `[...]` class is
 * not: the reader leaves those unresolved).
 */
export const sshPatternRe = (pat: string): RegExp =>
  new RegExp('^' + pat.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('') + '$');
