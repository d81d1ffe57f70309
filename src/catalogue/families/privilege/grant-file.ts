/**
 * One Airlock sudo grant: a drop-in /etc/sudoers.d/60-airlock-NAME (0440 root:root) holding
 * one rule for ONE command line with its exact arguments. How the rule is written, and
 * read back only when it is exactly what this module would write.
 */
import type { Host } from '../../action.js';
import { token } from '../../params.js';
import { commandArguments } from '../../lib/agent-command.js';
import { SUDOERS_D } from './sudo-state.js';

export const GRANT_PREFIX = '60-airlock-';
export const GRANT_FILES = [`${SUDOERS_D}/${GRANT_PREFIX}*`];
export const grantPath = (name: string) => `${SUDOERS_D}/${GRANT_PREFIX}${name}`;

/** The NAME of /etc/sudoers.d/60-airlock-NAME. No dot: sudo skips drop-ins whose name has one. */
export const grantName = token(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'grant name (lower-case letters, digits, _ and -)', 40);

/**
 * An absolute program path: letters, digits and . _ + - in each segment, no segment
 * starting with '.' (so no '.' or '..'), nothing sudoers treats as a wildcard or separator.
 */
export const programPath = token(/^(\/[A-Za-z0-9_+][A-Za-z0-9._+-]*)+$/, 'program path (absolute; letters, digits and . _ + - only, no wildcards)', 255);

export interface Grant {
  principal: { kind: 'user' | 'group'; name: string };
  /** The one command line the grant allows: a program and its exact arguments (none: []). */
  program: string;
  args: string[];
  nopasswd: boolean;
}

export const principalText = (g: Grant) => (g.principal.kind === 'user' ? g.principal.name : `group ${g.principal.name}`);
/** The command line as a person reads it (the arguments need no quoting: commandArgument has no spaces or quotes). */
export const commandText = (g: Pick<Grant, 'program' | 'args'>) => [g.program, ...g.args].join(' ');

/**
 * An argument as a sudoers Cmnd writes it: sudoers wants ',', ':', '=' and '\\' escaped with
 * a backslash in command arguments (sudoers(5), "Command line arguments"); commandArgument
 * admits no backslash, wildcard, space or quote, so nothing else needs escaping.
 */
const sudoersArg = (a: string) => a.replace(/[,:=]/g, (c) => `\\${c}`);

/** The sudoers Cmnd of a grant: the program and its exact arguments, or `""` for "no arguments at all". */
export function grantCommand(g: Pick<Grant, 'program' | 'args'>): string {
  return `${g.program} ${g.args.length ? g.args.map(sudoersArg).join(' ') : '""'}`;
}

/** The sudoers rule of a grant: `alice ALL=(root) NOEXEC: NOPASSWD: /usr/bin/df -h /` (% before a group). */
export function grantRule(g: Grant): string {
  const who = g.principal.kind === 'group' ? `%${g.principal.name}` : g.principal.name;
  // NOEXEC: the command cannot start another program (sudo's seccomp filter): a pager's `!sh`, a
  // login program, a hook or a helper it would run is refused by the kernel, whatever the table missed.
  return `${who} ALL=(root) NOEXEC: ${g.nopasswd ? 'NOPASSWD: ' : ''}${grantCommand(g)}`;
}

/** The whole drop-in: a header naming the grant, then its one rule. Deterministic (no dates). */
export function grantFileText(name: string, g: Grant): string {
  return `# Airlock sudo grant "${name}": written by CreateSudoGrant, removed by RevokeSudoGrant; do not edit.\n${grantRule(g)}\n`;
}

const RULE = /^(%?)([a-z_][a-z0-9_-]*) ALL=\(root\) NOEXEC: (NOPASSWD: )?(\/\S+)((?: \S+)+)$/;

/** Reads the rule back out of a drop-in Airlock wrote; null when the text is not exactly in that shape. */
export function parseGrantFile(text: string): Grant | null {
  const rules = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const m = rules.length === 1 ? RULE.exec(rules[0]!) : null;
  if (!m || !programPath.safeParse(m[4]).success) return null;
  const words = m[5]!.slice(1).split(' ');
  const args = words.length === 1 && words[0] === '""' ? [] : words.map((w) => w.replace(/\\([,:=])/g, '$1'));
  if (!commandArguments.safeParse(args).success) return null;
  const g: Grant = { principal: { kind: m[1] ? 'group' : 'user', name: m[2]! }, nopasswd: m[3] !== undefined, program: m[4]!, args };
  // Only text this module would write back byte for byte counts as Airlock's.
  return grantRule(g) === rules[0] ? g : null;
}

export interface GrantFileState {
  path: string;
  exists: boolean;
  /** A regular file (not a symbolic link, directory or device). */
  regular: boolean;
  mode: number | null;
  grant: Grant | null;
}

export async function readGrantFile(host: Host, name: string): Promise<GrantFileState> {
  const path = grantPath(name);
  const st = await host.stat(path);
  if (!st) return { path, exists: false, regular: false, mode: null, grant: null };
  const text = st.isFile && !st.isSymlink ? await host.readFile(path) : null;
  return { path, exists: true, regular: st.isFile && !st.isSymlink, mode: st.mode, grant: text === null ? null : parseGrantFile(text) };
}
