/**
 * Who is asking, from the kernel alone: SO_PEERCRED gives the uid, SO_PEERGROUPS
 * the peer's groups at connect time; /etc/group (root-owned) maps the airlock
 * group names to gids. Root is Admin; a peer in no airlock group gets no role and
 * cannot connect.
 *
 * Who approves is a person, never "root" as such. For a root peer the daemon looks
 * behind it, through the pidfd that pins the peer process (so a recycled pid cannot
 * answer), at the kernel's audit login uid, which a PAM login session sets and every
 * child inherits. That uid alone names the person; SUDO_UID is only an environment
 * variable (any root launcher sets it: `systemd-run -E SUDO_UID=N`), so when present it
 * must agree. That person's own groups then decide what they may approve.
 */
import { readFileSync, statSync } from 'node:fs';
import { APPROVER_GROUP, ROLE_GROUPS, type Role } from '../protocol/risk.js';
import { parseGroup, parsePasswd } from '../protocol/account-files.js';

/** The person behind a connection, and their own standing (from their groups, not root's). */
export interface Person {
  uid: number;
  user: string;
  role: Role | null;
  approver: boolean;
  /**
   * self: the peer is this person's own process; sudo / login: a root process attributed to them;
   * console: signed in at the web console with their passkey; fleet: named by their passkey's
   * assertion of a fleet approval that another connection carried (approve.fleet).
   */
  via: 'self' | 'sudo' | 'login' | 'console' | 'fleet';
}

/** What the daemon found behind a uid-0 peer (recorded in the log with every entry it makes). */
export interface RootPeer {
  /** SUDO_UID from the peer's environment, or null: a witness that must agree, never a name on its own. */
  sudoUid: number | null;
  /** /proc/PID/loginuid, or null when unset. */
  loginUid: number | null;
  /** Why no person could be named (a system service, or witnesses that disagree); null when one was. */
  noPerson: string | null;
}

export interface Identity {
  /** The kernel's uid; for a token principal a negative number derived from the token's name. */
  uid: number;
  /** The login name, or token:NAME. */
  user: string;
  role: Role;
  /** The person behind the connection may approve (never true for a token, nor for root with no person). */
  approver: boolean;
  pid: number;
  /** How the daemon knows: the kernel's peer credentials (default), a token from the root-owned file, a passkey sign-in relayed by the web console, or a fleet approval's assertion. */
  via?: 'unix' | 'token' | 'console' | 'fleet';
  /** The token file marks this principal unattended (the policy may mark Unix users so). */
  unattended?: boolean;
  /** The person behind the connection; null for a token, or a root peer with nobody behind it. */
  person: Person | null;
  /** Present for uid-0 peers: what sudo and the login session said. */
  rootPeer?: RootPeer;
}

interface Accounts {
  gids: Map<string, number>;
  names: Map<number, string>;
  /** uid -> primary gid, and group name -> member login names: a person's groups without their process. */
  primary: Map<number, number>;
  members: Map<string, Set<string>>;
}

/** Re-reads /etc/passwd and /etc/group when they change (cheap stat per connection). */
class AccountFiles {
  private cache: { key: string; accounts: Accounts } | null = null;

  lookup(): Accounts {
    const key = ['/etc/group', '/etc/passwd'].map((p) => `${statSync(p).mtimeMs}:${statSync(p).ino}`).join('|');
    if (this.cache?.key !== key) {
      const groups = parseGroup(readFileSync('/etc/group', 'utf8'));
      const users = parsePasswd(readFileSync('/etc/passwd', 'utf8'));
      this.cache = {
        key,
        accounts: {
          gids: new Map(groups.map((g) => [g.name, g.gid])),
          names: new Map(users.map((u) => [u.uid, u.name])),
          primary: new Map(users.map((u) => [u.uid, u.gid])),
          members: new Map(groups.map((g) => [g.name, new Set(g.members)])),
        },
      };
    }
    return this.cache.accounts;
  }
}

const accounts = new AccountFiles();

/** The highest airlock role among a member test's groups. Order: admin > dev > observer > boot. */
function roleOf(member: (group: string) => boolean): Role | null {
  return member(ROLE_GROUPS.admin) ? 'admin' : member(ROLE_GROUPS.dev) ? 'dev' : member(ROLE_GROUPS.observer) ? 'observer' : member(ROLE_GROUPS.boot) ? 'boot' : null;
}

/** What the native addon reads from the pidfd-pinned /proc entry of a root peer. */
export interface PeerProcess {
  loginUid: number;
  realUid: number;
  savedUid: number;
  sudoUid: string;
  sudoUser: string;
}

/** A person's standing from /etc/passwd and /etc/group, as the daemon would judge them. */
export function personByUid(uid: number, via: Person['via'], a: Accounts = accounts.lookup()): Person | null {
  const user = a.names.get(uid);
  if (user === undefined) return null;
  const primary = a.primary.get(uid);
  const member = (name: string) => {
    const gid = a.gids.get(name);
    return gid !== undefined && (primary === gid || (a.members.get(name)?.has(user) ?? false));
  };
  return { uid, user, role: roleOf(member), approver: member(APPROVER_GROUP), via };
}

/**
 * Names the person behind a root peer: the kernel's login uid (whose login session this
 * is). SUDO_UID, when set, must agree with it, or nobody is named (fail closed); alone it
 * names nobody. Root itself is not a person.
 */
export function rootPeerOf(proc: PeerProcess | null): { rootPeer: RootPeer; personUid: number | null; via: 'sudo' | 'login' | null } {
  if (!proc) return { rootPeer: { sudoUid: null, loginUid: null, noPerson: 'the kernel gave no pidfd for this peer, so nothing behind it can be read safely' }, personUid: null, via: null };
  const sudoUid = /^\d{1,10}$/.test(proc.sudoUid) ? Number(proc.sudoUid) : null;
  const loginUid = proc.loginUid >= 0 ? proc.loginUid : null;
  const base = { sudoUid, loginUid };
  // Root through and through, or the environment is the invoking user's to write (a setuid program).
  if (proc.realUid !== 0 || proc.savedUid !== 0) {
    return { rootPeer: { ...base, noPerson: `not root through and through (real uid ${proc.realUid}, saved uid ${proc.savedUid}): a setuid program, whose environment its caller chose` }, personUid: null, via: null };
  }
  if (proc.sudoUid !== '' && sudoUid === null) {
    return { rootPeer: { ...base, noPerson: 'SUDO_UID is set but is no uid, so it cannot agree with the login session' }, personUid: null, via: null };
  }
  if (sudoUid !== null && loginUid !== null && sudoUid !== loginUid) {
    return { rootPeer: { ...base, noPerson: `sudo names uid ${sudoUid} but the login session is uid ${loginUid}` }, personUid: null, via: null };
  }
  if (loginUid === null) {
    const why = sudoUid === null ? 'a root process with no sudo user and no login uid (a system service)' : `SUDO_UID ${sudoUid} with no login uid: the kernel names no login session behind this root process, and an environment variable names nobody`;
    return { rootPeer: { ...base, noPerson: why }, personUid: null, via: null };
  }
  const personUid = loginUid;
  if (personUid === 0) return { rootPeer: { ...base, noPerson: 'root itself (logged in as root, or sudo from root)' }, personUid: null, via: null };
  return { rootPeer: { ...base, noPerson: null }, personUid, via: sudoUid !== null ? 'sudo' : 'login' };
}

/**
 * The identity of a Unix-socket peer, or null when it has no airlock role. `proc` is
 * read only for uid 0 (the caller passes a reader so that nobody else's process is opened).
 */
export function resolveIdentity(cred: { uid: number; gid: number; groups: number[]; pid: number }, readProc: () => PeerProcess | null = () => null): Identity | null {
  const a = accounts.lookup();
  const user = a.names.get(cred.uid) ?? `uid:${cred.uid}`;
  if (cred.uid === 0) {
    const { rootPeer, personUid, via } = rootPeerOf(readProc());
    let person = personUid === null ? null : personByUid(personUid, via!, a);
    if (personUid !== null && !person) {
      rootPeer.noPerson = `uid ${personUid} has no account in /etc/passwd`;
      person = null;
    }
    return { uid: 0, user, role: 'admin', approver: person?.approver ?? false, pid: cred.pid, person, rootPeer };
  }
  const member = (name: string) => {
    const gid = a.gids.get(name);
    return gid !== undefined && (cred.gid === gid || cred.groups.includes(gid));
  };
  const role = roleOf(member);
  if (!role) return null;
  const approver = member(APPROVER_GROUP);
  return { uid: cred.uid, user, role, approver, pid: cred.pid, person: { uid: cred.uid, user, role, approver, via: 'self' } };
}

/**
 * The person a passkey names, acting through another connection (`relayPid`, its process): a
 * console session (`console`) or a fleet approval's carrier (`fleet`). Their own standing from
 * /etc/passwd and /etc/group, as if they had connected themselves; null when they have no
 * account or no airlock role. Never root: root is nobody's passkey.
 */
export function consoleIdentity(uid: number, relayPid: number, via: 'console' | 'fleet' = 'console'): Identity | null {
  const person = personByUid(uid, via);
  if (!person?.role || uid === 0) return null;
  return { uid, user: person.user, role: person.role, approver: person.approver, pid: relayPid, via, person };
}

/** alice(uid 1001); root(uid 0) via sudo by alice(uid 1001); token:NAME alone (its uid is synthetic). */
export function principalName(id: { uid: number; user: string; person?: Person | null }): string {
  if (id.uid < 0) return id.user;
  const self = `${id.user}(uid ${id.uid})`;
  if (id.uid !== 0 || !id.person) return self;
  return `${id.person.user}(uid ${id.person.uid}) via ${id.person.via}`;
}
