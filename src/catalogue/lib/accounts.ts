/** Users and groups as actions look them up: by name, refusing with a typed error when absent. */
import { AirlockError } from '../../protocol/errors.js';
import type { GroupEntry, Host, PasswdEntry } from '../action.js';

export async function requireUser(host: Host, name: string): Promise<PasswdEntry> {
  const u = (await host.users()).find((e) => e.name === name);
  if (!u) throw new AirlockError('validation', 'no_such_user', `there is no user ${name} on this host`, 'list users with the ListUsers action');
  return u;
}

export async function findUser(host: Host, name: string): Promise<PasswdEntry | null> {
  return (await host.users()).find((e) => e.name === name) ?? null;
}

export async function requireGroup(host: Host, name: string): Promise<GroupEntry> {
  const g = (await host.groups()).find((e) => e.name === name);
  if (!g) throw new AirlockError('validation', 'no_such_group', `there is no group ${name} on this host`, 'list groups with the ListGroups action');
  return g;
}
