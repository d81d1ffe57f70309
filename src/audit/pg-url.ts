/**
 * PostgreSQL URLs as Airlock shows them: never with a password. Shared by the daemon's
 * store (errors) and the auditor's log reader (source names), which must not import each other.
 */

/** postgres:// or postgresql://, nothing else: what selects the PostgreSQL backend or reader. */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\/\S+$/.test(text);
}

/** The URL without its password and its query (which can carry one, or other secrets). */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return 'the configured PostgreSQL database';
  }
}
