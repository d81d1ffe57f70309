/** State readers shared by several families. */
import { posix } from 'node:path';
import { AirlockError } from '../../protocol/errors.js';
import { action, nothingToRead, type Family, type GroupEntry, type Host, type PasswdEntry, type ReadDeclaration } from '../action.js';
import type { Step } from '../mechanism.js';
import { params } from '../params.js';

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

/**
 * Accounts no destructive action may touch: root, system accounts (uid < 1000),
 * nobody, and anyone in a group that confers administration.
 */
export function isProtectedUser(u: PasswdEntry): boolean {
  return u.uid < 1000 || u.uid === 65534 || u.name === 'root';
}

/** Groups whose membership is administration (sudo, root-equivalent container/VM daemons, log and disk access) or an Airlock role. */
/**
 * System groups (gid < 1000) grant device, log or key access (input, kmem, systemd-journal,
 * ssl-cert, ...): joining one is refused unless it is listed here as harmless.
 */
export const JOINABLE_SYSTEM_GROUPS = ['users', 'www-data'];
export const isPrivilegedSystemGroup = (g: GroupEntry) => g.gid < 1000 && !JOINABLE_SYSTEM_GROUPS.includes(g.name);

export const PROTECTED_GROUPS = ['root', 'sudo', 'adm', 'wheel', 'shadow', 'disk', 'docker', 'lxd', 'incus-admin', 'libvirt', 'airlock-admin', 'airlock-approvers', 'airlock-dev', 'airlock-observer', 'airlock-boot'];

/** One entry of /etc/hosts: address, names as written (compare them lower-cased) and any trailing comment. */
export interface HostsEntry {
  ip: string;
  names: string[];
  comment: string;
}

/** Parses one /etc/hosts line; null for blank and comment-only lines. */
export function parseHostsLine(line: string): HostsEntry | null {
  const hash = line.indexOf('#');
  const body = hash < 0 ? line : line.slice(0, hash);
  const [ip, ...names] = body.trim().split(/\s+/).filter(Boolean);
  if (!ip) return null;
  return { ip, names, comment: hash < 0 ? '' : line.slice(hash) };
}

/** /etc/hosts as text (empty when absent) and its parsed entries. */
export async function readHostsFile(host: Host): Promise<{ exists: boolean; text: string; entries: HostsEntry[] }> {
  const text = await host.readFile('/etc/hosts');
  const entries = (text ?? '').split('\n').flatMap((l) => parseHostsLine(l) ?? []);
  return { exists: text !== null, text: text ?? '', entries };
}

/**
 * A parameterless, low-risk read whose steps are fixed: the shape of most
 * inventory actions (disk usage, routes, ...). Files lists every path a fileScan reads.
 */
export function fixedRead(spec: { name: string; family: Family; description: string; summary: string; files?: string[]; steps: Step[] } & Omit<ReadDeclaration, 'readOnly'>) {
  return action({
    name: spec.name,
    family: spec.family,
    description: spec.description,
    risk: 'low',
    readOnly: true,
    sensitive: spec.sensitive,
    reachesNetwork: spec.reachesNetwork,
    params: params({}),
    files: spec.files ?? [],
    example: {},
    current: nothingToRead,
    preview: () => ({ summary: spec.summary, change: null }),
    mechanism: () => structuredClone(spec.steps), // a fresh copy: callers may annotate steps
  });
}

/** Where a symbolic link points, as an absolute normalised path; null when `path` is not a link. */
export async function linkTarget(host: Host, path: string): Promise<string | null> {
  if (!(await host.stat(path))?.isSymlink) return null;
  const r = await host.run('readlink', ['--', path]);
  if (r.code !== 0 || r.stdout.trim() === '') return null;
  return posix.resolve(posix.dirname(path), r.stdout.replace(/\n$/, ''));
}

/**
 * The entries of a directory, as `ls -1 -A --quoting-style=escape` prints them: a name with
 * a space, newline or other unusual character comes back escaped (with a backslash), so a
 * caller that keeps only names matching a strict pattern never mistakes it for another.
 * Null when the directory cannot be listed (absent, not a directory).
 */
export async function listDirectory(host: Host, dir: string): Promise<string[] | null> {
  const r = await host.run('ls', ['-1', '-A', '--quoting-style=escape', '--', dir]);
  if (r.code !== 0) return null;
  return r.stdout.split('\n').filter((l) => l !== '');
}
