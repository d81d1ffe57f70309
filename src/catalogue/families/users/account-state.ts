/**
 * The state the users family's commands change, as their rollback probes it (issue 27): an
 * account's or a group's own lines in the account databases shadow-utils rewrites (accountLines:
 * another account made meanwhile is not this change's state, so it is no drift). A probe keeps
 * what it reads only as a hash (src/catalogue/lib/state-probes.ts): a probe of a /etc/shadow line
 * shows no password hash to anyone.
 */
import { accountLines, exact, type RollbackDeclaration, type StateProbe } from '../../rollback.js';
import { SHADOW } from './shadow.js';

export const PASSWD = '/etc/passwd';
export const GROUP = '/etc/group';
export const GSHADOW = '/etc/gshadow';
export const ACCOUNT_DB = [PASSWD, SHADOW, GROUP, GSHADOW];

/** A group's lines in /etc/group and /etc/gshadow: its gid and its member lists. */
export const groupLines = (group: string): StateProbe[] => accountLines(group, [GROUP, GSHADOW]);

/*
 * Exact, probed by the lines the command edits: each undo is the same tool putting back the value
 * read before, and shadow-utils writes a line back the same from the same fields.
 */
/** The user's /etc/passwd line: its shell, its comment. */
export const exactPasswdLine: RollbackDeclaration<{ user: string }> = exact(({ user }: { user: string }) => accountLines(user, [PASSWD]));
/** The user's /etc/shadow line: its lock mark, expiry and ageing. */
export const exactShadowLine: RollbackDeclaration<{ user: string }> = exact(({ user }: { user: string }) => accountLines(user, [SHADOW]));
/** The group's lines: made, or its member lists changed. */
export const exactGroupLines: RollbackDeclaration<{ group: string }> = exact(({ group }: { group: string }) => groupLines(group));

/**
 * What useradd -m -U makes, and userdel -r takes away again: the user's lines and its own group's,
 * the supplementary groups it joins, its subordinate id ranges (Debian's login.defs gives every
 * new user one), its home, and a mail spool if useradd makes one.
 */
export const newAccountProbes = (user: string, groups: readonly string[], home: string): StateProbe[] => [
  ...accountLines(user),
  ...groups.flatMap(groupLines),
  ...accountLines(user, ['/etc/subuid', '/etc/subgid']),
  { file: home },
  // What is in the home (names, modes, owners, sizes, times; never content): a file put there since is drift,
  // and the revert, whose userdel -r would delete it, is refused.
  { program: 'ls', args: ['-lAR', '--time-style=+%s', '--', home] },
  { file: `/var/mail/${user}` },
];
