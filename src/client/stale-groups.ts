/**
 * Group changes count only for new logins: a process keeps the groups its session began
 * with, and the daemon judges a peer by the groups the kernel reports for it. So a person
 * just added to airlock-admin is still refused until they log in again. This finds the
 * Airlock groups /etc/group gives this process's user that this process does not hold,
 * for every role error the CLI prints (ui.ts), `airlock doctor` and `airlock setup`'s checks.
 * Small and synchronous: ui.ts loads it at start-up.
 */
import { readFileSync } from 'node:fs';
import { parseGroup, parsePasswd } from '../protocol/account-files.js';
import { AIRLOCK_GROUPS } from '../protocol/risk.js';

export interface StaleGroups {
  /** This process's login name (from /etc/passwd). */
  user: string;
  /** Airlock groups /etc/group puts the user in that this process lacks, in AIRLOCK_GROUPS order. */
  groups: string[];
}

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** The Airlock groups this session lacks though /etc/group gives them to its user, or null when none (or root, or unknown). */
export function staleGroups(files = { group: '/etc/group', passwd: '/etc/passwd' }): StaleGroups | null {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return null; // root's role does not come from its groups
  const passwd = read(files.passwd);
  const group = read(files.group);
  const me = passwd === null ? undefined : parsePasswd(passwd).find((u) => u.uid === uid);
  if (!me || group === null) return null;
  const have = new Set([...(process.getgroups?.() ?? []), process.getgid?.()]);
  const entries = parseGroup(group);
  const groups = AIRLOCK_GROUPS.filter((name) => {
    const g = entries.find((e) => e.name === name);
    return g !== undefined && (g.members.includes(me.name) || g.gid === me.gid) && !have.has(g.gid);
  });
  return groups.length ? { user: me.name, groups } : null;
}

/** What to do about it, one sentence: the same words wherever it is said. */
export function staleGroupsAdvice(s: StaleGroups): string {
  const newgrp = s.groups.length === 1 ? `\`newgrp ${s.groups[0]}\`, or ` : '';
  return `you were added to ${s.groups.join(', ')} after this session began: log in again (or ${newgrp}\`su - ${s.user}\`)`;
}

/** The authorization errors a missing group explains: no role at all, a role too low, not an approver. */
export const ROLE_ERRORS: ReadonlySet<string> = new Set(['no_role', 'role_too_low', 'not_an_approver', 'not_an_admin_approver', 'unmask_needs_approver']);
