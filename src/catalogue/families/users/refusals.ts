/**
 * The users family's refusals of protected accounts and groups. What is protected is
 * decided in ../../lib/guards.ts; these say so with the users family's codes.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { GroupEntry, PasswdEntry } from '../../action.js';
import { isPrivilegedSystemGroup, isProtectedUser, PROTECTED_GROUPS } from '../../lib/guards.js';

export function refuseProtectedUser(u: PasswdEntry): void {
  if (isProtectedUser(u)) {
    throw new AirlockError(
      'authorization',
      'protected_account',
      `${u.name} (uid ${u.uid}) is a protected account: root, nobody and system accounts below uid 1000 are not changed through Airlock`,
      'a person changes this account by hand',
    );
  }
}

export function refuseSystemGroup(g: GroupEntry): void {
  if (isPrivilegedSystemGroup(g)) {
    throw new AirlockError('authorization', 'protected_group', `${g.name} is a system group (gid ${g.gid}); system groups can grant device, log or key access`, 'a person adds members to it by hand');
  }
}

export function refuseProtectedGroup(name: string): void {
  if (PROTECTED_GROUPS.includes(name)) {
    throw new AirlockError(
      'authorization',
      'protected_group',
      `${name} is a protected group: its membership confers administration or an Airlock role`,
      'a person changes this group by hand',
    );
  }
}
