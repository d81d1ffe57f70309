/**
 * The key a person's factors are kept and logged under: `alice(uid 1001)`, whichever way they
 * connect (their own account, or root through sudo from their session). One writer and one
 * reader of the form, for the daemon and for the clients that read the log.
 */
export const personKey = (p: { uid: number; user: string }) => `${p.user}(uid ${p.uid})`;

/** The login name and uid of a person key, or null when `key` is not one. */
export function parsePersonKey(key: string): { user: string; uid: number } | null {
  const m = /^(.+)\(uid (\d{1,10})\)$/.exec(key);
  return m ? { user: m[1]!, uid: Number(m[2]) } : null;
}
