/**
 * Whether sudo caches a person's password, read from sudo's own configuration (/etc/sudoers
 * and what it includes). In the one-account layout (the agent runs under the person's own
 * account) a cached sudo is the agent's too: for timestamp_timeout minutes after the person
 * types their password (15 by default), anything running as them runs sudo without one, is
 * root, and reads the approval key. `timestamp_type=global` widens it to every terminal and
 * every process of the account. `airlock doctor` says so; `airlock install --sudo-no-cache
 * USER` writes the drop-in that turns caching off for that account.
 *
 * The reading is conservative where it cannot be exact: an entry whose user, host or runas
 * list it cannot resolve (a netgroup, a non-Unix group) counts when it turns caching on and
 * not when it turns it off; a user specification it cannot resolve counts as the account's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { parseGroup, parsePasswd } from '../protocol/account-files.js';

export const SUDOERS = '/etc/sudoers';
export const DROP_IN_PATH = '/etc/sudoers.d/airlock-no-cache';
/** sudo's own defaults: a 15-minute timestamp per terminal. */
const DEFAULT_TIMEOUT = 15;
const DEFAULT_TYPE = 'tty';
/** Bounds on what is read: includes nest and fan out no further than this. */
const MAX_FILES = 256;
const MAX_DEPTH = 8;

interface Line {
  where: string;
  text: string;
}

/** The logical lines of sudoers and everything it includes, in the order sudo reads them. */
export function readSudoers(path = SUDOERS): Line[] {
  const lines: Line[] = [];
  let files = 0;
  const readFile = (file: string, depth: number) => {
    if (++files > MAX_FILES || depth > MAX_DEPTH) throw new Error(`${file}: more than ${MAX_FILES} files or ${MAX_DEPTH} levels of includes`);
    const raw = readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < raw.length; i++) {
      const at = i;
      let text = raw[i]!;
      while (text.endsWith('\\') && i + 1 < raw.length) text = text.slice(0, -1) + raw[++i]!;
      text = text.trim();
      const include = /^[#@](include|includedir)\s+(\S+)$/.exec(text);
      if (include) {
        const target = isAbsolute(include[2]!) ? include[2]! : join(dirname(file), include[2]!);
        if (include[1] === 'include') readFile(target, depth + 1);
        else for (const name of includedFiles(target)) readFile(join(target, name), depth + 1);
        continue;
      }
      // A comment starts at '#' unless a digit follows it (#1000 is a uid).
      text = text.replace(/(^|\s)#(?!\d).*$/, '').trim();
      if (text) lines.push({ where: `${file}:${at + 1}`, text });
    }
  };
  readFile(path, 0);
  return lines;
}

/** What sudo reads from an included directory: names without '.' and not ending in '~', in order. */
function includedFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return names.filter((n) => !n.includes('.') && !n.endsWith('~')).sort();
}

export interface Account {
  name: string;
  uid: number;
  /** Every group the account is in, by name and gid. */
  groups: Array<{ name: string; gid: number }>;
}

type Match = boolean | 'unknown';

/** A sudoers user list against the account: in order, the last item that matches decides. */
function userListMatches(list: string, who: Account, aliases: Map<string, string>, depth = 0): Match {
  let result: Match = false;
  for (const raw of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const negated = /^!+/.exec(raw)?.[0].length ?? 0;
    const item = raw.slice(negated).replace(/^"(.*)"$/, '$1');
    let m: Match;
    if (item === 'ALL') m = true;
    else if (item.startsWith('%#')) m = who.groups.some((g) => String(g.gid) === item.slice(2));
    else if (item.startsWith('%:') || item.startsWith('+') || item.startsWith('%:#')) m = 'unknown';
    else if (item.startsWith('%')) m = who.groups.some((g) => g.name === item.slice(1));
    else if (item.startsWith('#')) m = String(who.uid) === item.slice(1);
    else if (/^[A-Z][A-Z0-9_]*$/.test(item) && aliases.has(item)) m = depth > MAX_DEPTH ? 'unknown' : userListMatches(aliases.get(item)!, who, aliases, depth + 1);
    else m = item === who.name;
    if (m === 'unknown') result = 'unknown';
    else if (m) result = negated % 2 === 0;
  }
  return result;
}

/** A host or runas list: whether it names this host (or root, the target of sudo to root). */
function namesMatch(list: string, names: string[]): Match {
  let result: Match = false;
  for (const raw of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const negated = raw.startsWith('!');
    const item = raw.replace(/^!+/, '');
    if (item === 'ALL' || names.includes(item)) result = !negated;
    else if (/^[A-Z][A-Z0-9_]*$/.test(item) || item.startsWith('+') || item.includes('/')) result = 'unknown';
  }
  return result;
}

const ALIAS = /^(User|Runas|Host|Cmnd|Cmd)_Alias\s+(.*)$/;

function userAliases(lines: Line[]): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const l of lines) {
    const m = ALIAS.exec(l.text);
    if (m?.[1] !== 'User') continue;
    for (const def of m[2]!.split(':')) {
      const eq = /^\s*([A-Z][A-Z0-9_]*)\s*=\s*(.*)$/.exec(def);
      if (eq) aliases.set(eq[1]!, eq[2]!);
    }
  }
  return aliases;
}

/** `a=b, !c, d="e, f"` into its settings, commas inside quotes kept. */
function settings(text: string): Array<{ name: string; value: string | false }> {
  const out: Array<{ name: string; value: string | false }> = [];
  for (const part of text.match(/(?:[^,"]|"[^"]*")+/g) ?? []) {
    const s = part.trim();
    const eq = /^([a-z_]+)\s*[+-]?=\s*(.*)$/.exec(s);
    if (eq) out.push({ name: eq[1]!, value: eq[2]!.replace(/^"(.*)"$/, '$1') });
    else if (/^!+[a-z_]+$/.test(s)) out.push({ name: s.replace(/^!+/, ''), value: false });
  }
  return out;
}

export interface SudoCache {
  /** Whether a user specification lets the account run sudo at all. */
  maySudo: boolean;
  /** A specification that lets it run sudo with no password (NOPASSWD), where. */
  noPassword: string | null;
  /** Minutes a typed password stays good (0: never cached; negative: until logout). */
  timeout: number;
  type: string;
  /** Where the timeout and type in force were set (empty: sudo's defaults). */
  where: string[];
}

/** How sudo, configured by `lines`, treats the account. */
export function sudoCache(lines: Line[], who: Account, host = hostname()): SudoCache {
  const aliases = userAliases(lines);
  const hosts = [host, host.split('.')[0]!];
  let timeout = DEFAULT_TIMEOUT;
  let type = DEFAULT_TYPE;
  const where: { timeout?: string; type?: string } = {};
  let maySudo = false;
  let noPassword: string | null = null;
  // sudo applies generic, host, user and runas Defaults in the order read, command Defaults after them.
  const defaults = lines.map((l) => ({ l, d: /^Defaults(?:([:@>!])\s*((?:[^\s,]+\s*,\s*)*[^\s,]+))?\s+(.+)$/.exec(l.text) }));
  const ordered = [...defaults.filter((x) => x.d && x.d[1] !== '!'), ...defaults.filter((x) => x.d?.[1] === '!')];
  for (const { l, d } of ordered) {
    if (!d) continue;
    const [, kind, list, body] = d;
    const applies: Match = !kind ? true : kind === ':' ? userListMatches(list!, who, aliases) : kind === '@' ? namesMatch(list!, hosts) : kind === '>' ? namesMatch(list!, ['root', '#0']) : 'unknown';
    for (const s of settings(body!)) {
      if (s.name === 'timestamp_timeout') {
        const value = s.value === false ? 0 : Number(s.value);
        if (!Number.isFinite(value)) continue; // sudo refuses such a file; visudo says so
        if (applies === true || (applies === 'unknown' && value !== 0)) [timeout, where.timeout] = [value, l.where];
      } else if (s.name === 'timestamp_type' && s.value !== false) {
        if (applies === true || (applies === 'unknown' && s.value === 'global')) [type, where.type] = [s.value, l.where];
      }
    }
  }
  for (const l of lines) {
    if (l.text.startsWith('Defaults') || ALIAS.test(l.text)) continue;
    const spec = /^((?:[^\s,]+\s*,\s*)*[^\s,]+)\s+(.*)$/.exec(l.text);
    if (!spec || userListMatches(spec[1]!, who, aliases) === false) continue;
    maySudo = true;
    if (/\bNOPASSWD\s*:/.test(spec[2]!)) noPassword ??= l.where;
  }
  return { maySudo, noPassword, timeout, type, where: [where.timeout, where.type].filter((w): w is string => !!w) };
}

/** The drop-in that turns caching off for one account, with why. */
export function dropIn(user: string): string {
  return `# Written by airlock install --sudo-no-cache ${user}. An agent running under ${user}'s account
# could otherwise use ${user}'s cached sudo (for 15 minutes after each password, by
# default) and be root: every sudo now asks for the password.
Defaults:${user} timestamp_timeout=0
`;
}

/** An account name sudoers takes as it is (anything else would need quoting). */
export const plainAccountName = (user: string) => /^[a-z_][a-z0-9_-]{0,31}$/i.test(user);

/** The account named, with its groups, from /etc/passwd and /etc/group; null when there is none. */
export function accountNamed(name: string, passwd: string, group: string): Account | null {
  const p = parsePasswd(passwd).find((e) => e.name === name);
  if (!p) return null;
  const groups = parseGroup(group).filter((g) => g.gid === p.gid || g.members.includes(name));
  return { name, uid: p.uid, groups: groups.map((g) => ({ name: g.name, gid: g.gid })) };
}

/** One line on what caching means for the account, or null when sudo never caches its password. */
export function cacheRisk(user: string, s: SudoCache): string | null {
  if (!s.maySudo) return null;
  if (s.noPassword) return `${user} runs sudo with no password at all (NOPASSWD, ${s.noPassword}): anything running as ${user}, an agent too, is root`;
  if (s.timeout === 0) return null;
  const span = s.timeout < 0 ? 'until the session ends' : `for ${s.timeout} minute(s)`;
  const scope = s.type === 'global' ? 'in every terminal and process of the account' : s.type === 'kernel' || s.type === 'tty' ? 'in that terminal' : 'in that process\'s children';
  return `${user}'s sudo keeps a typed password good ${span} ${scope} (timestamp_timeout=${s.timeout}, timestamp_type=${s.type}${s.where.length ? `, set in ${s.where.join(', ')}` : ', sudo\'s defaults'}): an agent running as ${user} can use it and be root`;
}

/** The account of the person behind this process (the kernel's login uid, which sudo keeps), or null. */
export function personBehindRoot(): string | null {
  let uid: number;
  try {
    uid = Number(readFileSync('/proc/self/loginuid', 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(uid) || uid === 4294967295 || uid === 0) return null;
  return parsePasswd(readFileSync('/etc/passwd', 'utf8')).find((e) => e.uid === uid)?.name ?? null;
}
