/**
 * What setup checks after writing, each with the exact fix: the Node version, the socket, and
 * the role the daemon gives this account, asked of the daemon itself the way the agent's
 * server will connect (the welcome names the principal and its role). Read-only: a failed
 * check changes nothing that was written, and does not change the exit status.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { AirlockClient } from '../../client/client.js';
import { AirlockError } from '../../protocol/errors.js';
import { ROLE_GROUPS } from '../../protocol/risk.js';
import { parseGroup } from '../../protocol/account-files.js';
import { staleGroups, staleGroupsAdvice } from '../../client/stale-groups.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** The command or step that fixes it, when it failed (also in detail). */
  fix?: string;
}

const MIN_NODE = 20;
const isTcp = (t: string) => t.startsWith('tcp:');

/** The role groups /etc/group puts `user` in (as a member or as its primary group). */
function roleGroupsOf(user: string, primaryGid: number): string[] {
  let text: string;
  try {
    text = readFileSync('/etc/group', 'utf8');
  } catch {
    return [];
  }
  const roleGroups = new Set<string>(Object.values(ROLE_GROUPS));
  return parseGroup(text)
    .filter((g) => roleGroups.has(g.name) && (g.gid === primaryGid || g.members.includes(user)))
    .map((g) => g.name);
}

/** The role groups this login lacks though /etc/group gives them (stale-groups.ts, as every role error says it). */
function staleRoles(): { groups: string[]; advice: string } | null {
  const stale = staleGroups();
  const roles = new Set<string>(Object.values(ROLE_GROUPS));
  const groups = stale?.groups.filter((g) => roles.has(g)) ?? [];
  return stale && groups.length ? { groups, advice: `${staleGroupsAdvice({ user: stale.user, groups })}, and restart the agent's editor or terminal` } : null;
}

const addToGroup = (user: string) => `sudo usermod -aG ${ROLE_GROUPS.dev} ${user}, then log in again`;

/** With no daemon to ask, what /etc/group says: no role group at all is the usual first problem. */
function groupsCheck(user: string, primaryGid: number): Check {
  const groups = roleGroupsOf(user, primaryGid);
  const stale = staleRoles();
  if (groups.length === 0) {
    const fix = addToGroup(user);
    return { name: 'role', ok: false, detail: `not asked (no daemon to ask), and /etc/group puts the agent's account (${user}) in no airlock group: ${fix}`, fix };
  }
  if (stale && stale.groups.length === groups.length) {
    const fix = stale.advice;
    return { name: 'role', ok: false, detail: `not asked (no daemon to ask); ${fix}`, fix };
  }
  return { name: 'role', ok: false, detail: `not asked (no daemon to ask); /etc/group puts ${user} in ${groups.join(', ')}` };
}

function nodeCheck(): Check {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= MIN_NODE) return { name: 'node', ok: true, detail: `Node ${process.versions.node}` };
  const fix = `install Node ${MIN_NODE} or newer, then run airlock setup again (the server runs with this Node)`;
  return { name: 'node', ok: false, detail: `Node ${process.versions.node} is older than ${MIN_NODE}: ${fix}`, fix };
}

function accountCheck(user: string): Check | null {
  if (process.getuid?.() !== 0) return null;
  const fix = 'run setup as the account the agent runs under, e.g. sudo -u AGENT -H airlock setup ...';
  return { name: 'account', ok: false, detail: `you are root: an agent running as root holds a root shell, which Airlock cannot fence, and these files are root's: ${fix}`, fix };
}

function socketCheck(target: string, token: boolean): Check {
  if (isTcp(target)) {
    if (token) return { name: 'socket', ok: true, detail: `${target} (a token listener; AIRLOCK_TOKEN is set)` };
    const fix = 'set AIRLOCK_TOKEN to the token root made for this agent (airlock token new NAME --role dev), then run setup again';
    return { name: 'socket', ok: false, detail: `${target} is a token listener and AIRLOCK_TOKEN is not set: ${fix}`, fix };
  }
  try {
    if (lstatSync(target).isSocket()) return { name: 'socket', ok: true, detail: target };
    return { name: 'socket', ok: false, detail: `${target} is not a socket: name the daemon's socket with --socket` };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES') {
      const fix = `this account may not enter ${dirname(target)}: the daemon makes it 0755; check its mode`;
      return { name: 'socket', ok: false, detail: `cannot reach ${target}: ${fix}`, fix };
    }
    const fix = 'start the daemon: sudo systemctl start airlock (the first time: sudo airlock install, see the README), or name its socket with --socket';
    return { name: 'socket', ok: false, detail: `no daemon socket at ${target}: ${fix}`, fix };
  }
}

async function roleCheck(target: string, user: string): Promise<Check> {
  try {
    const cl = await AirlockClient.connect(target, { timeoutMs: 5000, client: 'airlock-setup/0.1' });
    const p = cl.welcome.principal;
    cl.close();
    const seen = `the daemon sees ${p.user} (uid ${p.uid}, via ${p.via}) with the role ${p.role}`;
    if (p.role === 'observer') {
      const fix = `for medium-risk actions: ${addToGroup(user)}`;
      return { name: 'role', ok: true, detail: `${seen}: it may ask only for low-risk actions (most reads); ${fix}`, fix };
    }
    const approver = p.approver && p.uid !== 0 ? `; ${p.user} is also an approver, which suits an agent under your own account (its requests then need your code) but not an agent with an account of its own` : '';
    return { name: 'role', ok: true, detail: `${seen}${approver}` };
  } catch (e) {
    const err = e instanceof AirlockError ? e : new AirlockError('transient', 'daemon_unreachable', (e as Error).message);
    if (err.code === 'no_role') {
      const fix = staleRoles()?.advice ?? addToGroup(user);
      return { name: 'role', ok: false, detail: `the agent's account (${user}) is in no airlock group: ${fix}`, fix };
    }
    if (err.code === 'bad_token') {
      const fix = 'root adds the token to /etc/airlock/tokens.toml (airlock token new NAME --role dev prints the entry) and runs sudo airlock policy reload';
      return { name: 'role', ok: false, detail: `the daemon does not know the token in AIRLOCK_TOKEN: ${fix}`, fix };
    }
    const fix = err.hint ?? 'see airlock doctor';
    return { name: 'role', ok: false, detail: `${err.message}: ${fix}`, fix };
  }
}

/** This account's name and primary group; from the environment when the password database does not know the uid (a container). */
function whoAmI(): { username: string; gid: number } {
  try {
    const u = userInfo();
    return { username: u.username, gid: u.gid };
  } catch {
    return { username: process.env.USER || process.env.LOGNAME || 'NAME', gid: process.getgid?.() ?? -1 };
  }
}

export async function runChecks(target: string, token: boolean): Promise<Check[]> {
  const me = whoAmI();
  const checks: Check[] = [nodeCheck()];
  const account = accountCheck(me.username);
  if (account) checks.push(account);
  const socket = socketCheck(target, token);
  checks.push(socket);
  if (socket.ok) checks.push(await roleCheck(target, me.username));
  // Groups matter on the Unix socket only: a token names its principal itself.
  else if (!isTcp(target)) checks.push(groupsCheck(me.username, me.gid));
  return checks;
}
