/**
 * Who can approve on this host, and whether they can approve what needs a second factor:
 * for airlock_doctor and `airlock doctor`. Membership comes from /etc/group and /etc/passwd (world-readable,
 * and what the daemon itself reads); the factors from the signed log, where every
 * confirmed enrolment (`totp_enrolled`) and every reset (`totp_reset`) is an entry naming
 * the approver. Pure functions over the file texts and the log rows.
 */
import { parsePersonKey } from '../protocol/person-key.js';
import { APPROVER_GROUP } from '../protocol/risk.js';
import type { LogRow } from '../audit/verify.js';
import { parseGroup, parsePasswd } from '../protocol/account-files.js';

/** Users whose primary group is gid, from /etc/passwd. */
export function primaryMembers(passwd: string, gid: number): string[] {
  return parsePasswd(passwd).filter((u) => u.gid === gid).map((u) => u.name);
}

/** The members of airlock-approvers, or null when the group does not exist. */
export function approversFrom(group: string, passwd: string): string[] | null {
  const g = parseGroup(group).find((x) => x.name === APPROVER_GROUP);
  if (!g) return null;
  return [...new Set([...g.members, ...primaryMembers(passwd, g.gid)])].sort();
}

/** The group names of these gids (the ones /etc/group names). */
export function groupNames(group: string, gids: readonly number[]): string[] {
  const byGid = new Map(parseGroup(group).map((g) => [g.gid, g.name]));
  return [...new Set(gids.flatMap((g) => (byGid.has(g) ? [byGid.get(g)!] : [])))].sort();
}

/** Each entry's kind and the login name its details name as `approver` (`user(uid N)`), skipping what does not parse. */
function* approverEntries(rows: Iterable<LogRow>): Generator<{ kind: unknown; who: string }> {
  for (const row of rows) {
    let e: { kind?: unknown; details?: { approver?: unknown } };
    try {
      e = JSON.parse(row.body);
    } catch {
      continue; // verification reports a bad entry; this only reads what it can
    }
    const who = typeof e.details?.approver === 'string' ? parsePersonKey(e.details.approver)?.user : undefined;
    if (who) yield { kind: e.kind, who };
  }
}

/**
 * The login names with a confirmed second factor, by replaying the log: an enrolment adds
 * the approver, a reset removes them.
 */
export function enrolledFromLog(rows: Iterable<LogRow>): Set<string> {
  const enrolled = new Set<string>();
  for (const { kind, who } of approverEntries(rows)) {
    if (kind === 'totp_enrolled') enrolled.add(who);
    else if (kind === 'totp_reset') enrolled.delete(who);
  }
  return enrolled;
}

/**
 * How many passkeys each login name registered, by replaying the log's `passkey_registered`
 * entries (the daemon verified each, with the person's factor, before it wrote it).
 */
export function passkeysFromLog(rows: Iterable<LogRow>): Map<string, number> {
  const held = new Map<string, number>();
  for (const { kind, who } of approverEntries(rows)) if (kind === 'passkey_registered') held.set(who, (held.get(who) ?? 0) + 1);
  return held;
}
