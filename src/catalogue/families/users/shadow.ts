/**
 * A user's /etc/shadow line as the account actions read it: the lock and expiry facts
 * (never the password hash), and the day numbers /etc/shadow counts in.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host, PasswdEntry } from '../../action.js';
import { requireUser } from '../../lib/accounts.js';

export const SHADOW = '/etc/shadow';
const DAY_MS = 86_400_000;

export const today = () => Math.floor(Date.now() / DAY_MS);
export const toDays = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
export const toDate = (days: number) => new Date(days * DAY_MS).toISOString().slice(0, 10);

/** The fields of `name`'s line in /etc/shadow's text, when it has eight at least (the eighth is the account expiry). */
export function shadowFields(shadow: string, name: string): string[] | undefined {
  return shadow
    .split('\n')
    .map((l) => l.split(':'))
    .find((f) => f[0] === name && f.length >= 8);
}

/** Lock and expiry facts from a user's /etc/shadow line. The password hash itself never leaves this function. */
export interface ShadowFacts {
  /** The password field starts with '!': password logins are refused. */
  locked: boolean;
  /** Something other than '!'/'*'/empty remains once the lock marks are stripped: unlocking gives a usable password. */
  hasPassword: boolean;
  /** Account expiry in days since 1970-01-01, null when it never expires. */
  expires: number | null;
}

async function shadowFacts(host: Host, name: string): Promise<ShadowFacts | null> {
  const fields = shadowFields((await host.readFile(SHADOW)) ?? '', name);
  const expiry = fields?.[7]?.trim() ?? '';
  if (!fields || !/^(|-1|[0-9]{1,7})$/.test(expiry)) return null;
  const password = fields[1]!;
  const bare = password.replace(/^!+/, '');
  return { locked: password.startsWith('!'), hasPassword: bare !== '' && !bare.startsWith('*'), expires: expiry === '' || expiry === '-1' ? null : Number(expiry) };
}

export interface Account {
  user: PasswdEntry;
  /** Null when /etc/shadow has no well-formed line for the user (refused in check, after the protected-account refusal). */
  shadow: ShadowFacts | null;
}

/** A user's passwd entry and shadow facts: what the account-state actions (lock, unlock, expiry, ageing) build on. */
export async function account(host: Host, name: string): Promise<Account> {
  const user = await requireUser(host, name);
  return { user, shadow: await shadowFacts(host, name) };
}

export function shadowOf(cur: Account): ShadowFacts {
  if (!cur.shadow) {
    throw new AirlockError('conflict', 'no_shadow_entry', `${cur.user.name} has no well-formed line in /etc/shadow`, 'repair the account databases (pwck) by hand first');
  }
  return cur.shadow;
}
