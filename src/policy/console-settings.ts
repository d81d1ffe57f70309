/**
 * The [console] section of the policy: which account is the web console (`airlock console`), where
 * people open it, and how long a person stays signed in there.
 *
 *   [console]
 *   user = "airlock-console"            # the console's own system account
 *   url = "https://airlock.example.org" # the address notifications link to
 *   session_minutes = 480               # a sign-in lasts this long
 *
 * The daemon lets only that account's processes call the console.* methods, and even then only
 * relays: each sign-in is a person's passkey assertion the daemon verifies, and each approval
 * another one over that transaction's challenge. Whoever controls the account can show a person
 * a false page, never approve without them; so it is root's to name, here.
 */
import { z } from 'zod';
import { LOGIN_NAME } from '../catalogue/params.js';
import { CONSOLE_PORT } from './passkey-settings.js';

export interface ConsoleSettings {
  user: string;
  url: string;
  sessionMs: number;
}

export const DEFAULT_CONSOLE_SETTINGS: ConsoleSettings = { user: 'airlock-console', url: `http://localhost:${CONSOLE_PORT}`, sessionMs: 480 * 60_000 };

export const ConsoleSchema = z
  .strictObject({
    user: z.string().regex(LOGIN_NAME, 'a login name').optional(),
    url: z.url({ protocol: /^https?$/ }).max(300).optional(),
    session_minutes: z.number().int().min(5).max(24 * 60).optional(),
  })
  .default({});

/** The section's meaning, or a sentence saying what is wrong (the caller adds where). */
export function consoleSettings(s: z.infer<typeof ConsoleSchema>, passkeyOrigins: readonly string[]): ConsoleSettings | string {
  const d = DEFAULT_CONSOLE_SETTINGS;
  const url = (s.url ?? d.url).replace(/\/+$/, '');
  if (s.url !== undefined && !passkeyOrigins.includes(new URL(url).origin)) {
    return `url ${JSON.stringify(url)}: its origin ${new URL(url).origin} is not among [passkeys] origins, so passkeys would not work there; add it to them`;
  }
  if (s.user === 'root') return 'user: the console runs as its own unprivileged account, never root';
  return { user: s.user ?? d.user, url, sessionMs: (s.session_minutes ?? d.sessionMs / 60_000) * 60_000 };
}

/** What `airlock policy check` says of the section. */
export function explainConsole(s: ConsoleSettings): string {
  return `console: the account ${s.user} relays passkey sign-ins and approvals from ${s.url}; a sign-in lasts ${s.sessionMs / 60_000} min`;
}
