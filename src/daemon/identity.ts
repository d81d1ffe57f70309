/**
 * Who is asking, from the kernel alone: SO_PEERCRED gives the uid, SO_PEERGROUPS
 * the peer's groups at connect time; /etc/group (root-owned) maps the airlock
 * group names to gids. Root is Admin and may approve; a peer in no airlock group
 * gets no role and cannot connect.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Role } from '../protocol/risk.js';
import { parseGroup, parsePasswd } from './host.js';

export const ROLE_GROUPS: Record<Exclude<Role, never>, string> = {
  observer: 'airlock-observer',
  dev: 'airlock-dev',
  admin: 'airlock-admin',
  boot: 'airlock-boot',
};
export const APPROVER_GROUP = 'airlock-approvers';

export interface Identity {
  /** The kernel's uid; for a token principal a negative number derived from the token's name. */
  uid: number;
  /** The login name, or token:NAME. */
  user: string;
  role: Role;
  approver: boolean;
  pid: number;
  /** How the daemon knows: the kernel's peer credentials (default) or a token from the root-owned file. */
  via?: 'unix' | 'token';
  /** The token file marks this principal unattended (the policy may mark Unix users so). */
  unattended?: boolean;
}

/** Re-reads /etc/passwd and /etc/group when they change (cheap stat per connection). */
class AccountFiles {
  private cache: { key: string; gids: Map<string, number>; names: Map<number, string> } | null = null;

  lookup(): { gids: Map<string, number>; names: Map<number, string> } {
    const key = ['/etc/group', '/etc/passwd'].map((p) => `${statSync(p).mtimeMs}:${statSync(p).ino}`).join('|');
    if (this.cache?.key !== key) {
      const gids = new Map(parseGroup(readFileSync('/etc/group', 'utf8')).map((g) => [g.name, g.gid]));
      const names = new Map(parsePasswd(readFileSync('/etc/passwd', 'utf8')).map((u) => [u.uid, u.name]));
      this.cache = { key, gids, names };
    }
    return this.cache;
  }
}

const accounts = new AccountFiles();

/** The highest airlock role among the peer's groups, or null. Order: admin > dev > observer > boot. */
export function resolveIdentity(cred: { uid: number; gid: number; groups: number[]; pid: number }): Identity | null {
  const { gids, names } = accounts.lookup();
  const user = names.get(cred.uid) ?? `uid:${cred.uid}`;
  if (cred.uid === 0) return { uid: 0, user, role: 'admin', approver: true, pid: cred.pid };
  const member = (name: string) => {
    const gid = gids.get(name);
    return gid !== undefined && (cred.gid === gid || cred.groups.includes(gid));
  };
  const role: Role | null = member(ROLE_GROUPS.admin) ? 'admin' : member(ROLE_GROUPS.dev) ? 'dev' : member(ROLE_GROUPS.observer) ? 'observer' : member(ROLE_GROUPS.boot) ? 'boot' : null;
  if (!role) return null;
  return { uid: cred.uid, user, role, approver: member(APPROVER_GROUP), pid: cred.pid };
}
