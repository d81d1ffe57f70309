/**
 * /etc/passwd and /etc/group, parsed the one way every side reads them: the daemon (who a
 * peer is, what its groups make it), the MCP server's doctor (who can approve) and
 * `airlock setup` (whether the agent's account is in a role group). Pure: text in, entries
 * out; comment lines and lines with too few fields are skipped.
 */

/** One /etc/passwd line (also the catalogue's Host.users() entry, src/catalogue/action.ts). */
export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  gecos: string;
  home: string;
  shell: string;
}

/** One /etc/group line. */
export interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
}

const fieldsOf = (text: string, min: number) =>
  text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(':'))
    .filter((f) => f.length >= min);

export function parsePasswd(text: string): PasswdEntry[] {
  return fieldsOf(text, 7).map((f) => ({ name: f[0]!, uid: Number(f[2]), gid: Number(f[3]), gecos: f[4]!, home: f[5]!, shell: f[6]! }));
}

export function parseGroup(text: string): GroupEntry[] {
  return fieldsOf(text, 4).map((f) => ({ name: f[0]!, gid: Number(f[2]), members: f[3] ? f[3].split(',').filter(Boolean) : [] }));
}
