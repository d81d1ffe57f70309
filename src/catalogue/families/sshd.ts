/**
 * ssh, server side: sshd's effective configuration (`sshd -T`), and a fixed list of
 * options set in Airlock's own drop-in /etc/ssh/sshd_config.d/60-airlock.conf, one line
 * per option. Every change is checked with `sshd -t` before ssh.service reloads (a failure
 * restores the drop-in). Debian's sshd_config includes sshd_config.d/*.conf at its top and
 * sshd keeps the FIRST value it reads of most options, so a setting read before the
 * drop-in (an earlier drop-in such as 50-cloud-init.conf) would make it ineffective: the
 * include chain is read the way sshd reads it, and such a change is refused. AllowUsers
 * and AllowGroups are different: sshd adds up every line of them.
 */
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host } from '../action.js';
import { command, fileDelete, fileWrite, type Step } from '../mechanism.js';
import { params, token } from '../params.js';
import { describeState, readUnit, type UnitState } from '../lib/systemd.js';
import { fixedRead } from '../lib/fixed-read.js';
import { listDirectory } from '../lib/host-files.js';

const SSH_DIR = '/etc/ssh';
export const SSHD_CONFIG = `${SSH_DIR}/sshd_config`;
export const SSHD_DROPIN = `${SSH_DIR}/sshd_config.d/60-airlock.conf`;
const SSH_UNIT = 'ssh.service';
/** The group whose members approve Airlock requests (see src/daemon/identity.ts). */
const APPROVER_GROUP = 'airlock-approvers';

// ---------------------------------------------------------------- the options Airlock sets

type OptionSpec =
  | { kind: 'word'; values: readonly string[] }
  | { kind: 'number'; min: number; max: number; unit?: string }
  | { kind: 'names'; of: 'user' | 'group' };

const YES_NO = { kind: 'word', values: ['yes', 'no'] } as const;
export const MAX_ALLOW_NAMES = 32;

/** The options SetSshdOption sets and the values each takes (spelled as in sshd_config). */
export const SSHD_OPTIONS = {
  PasswordAuthentication: YES_NO,
  PermitRootLogin: { kind: 'word', values: ['yes', 'no', 'prohibit-password', 'forced-commands-only'] },
  PubkeyAuthentication: YES_NO,
  KbdInteractiveAuthentication: YES_NO,
  X11Forwarding: YES_NO,
  AllowTcpForwarding: { kind: 'word', values: ['yes', 'no', 'local', 'remote'] },
  AllowAgentForwarding: YES_NO,
  MaxAuthTries: { kind: 'number', min: 1, max: 10 },
  ClientAliveInterval: { kind: 'number', min: 0, max: 3600, unit: 'seconds' },
  ClientAliveCountMax: { kind: 'number', min: 0, max: 10 },
  LoginGraceTime: { kind: 'number', min: 10, max: 600, unit: 'seconds' },
  MaxSessions: { kind: 'number', min: 1, max: 100 },
  AllowUsers: { kind: 'names', of: 'user' },
  AllowGroups: { kind: 'names', of: 'group' },
} as const satisfies Record<string, OptionSpec>;

export type SshdOption = keyof typeof SSHD_OPTIONS;
const OPTION_NAMES = Object.keys(SSHD_OPTIONS) as [SshdOption, ...SshdOption[]];
export const sshdOption = z.enum(OPTION_NAMES);
const specOf = (o: SshdOption): OptionSpec => SSHD_OPTIONS[o];
/** Options sshd adds up over every line instead of keeping the first. */
const isList = (o: SshdOption) => specOf(o).kind === 'names';

const accountName = token(/^[a-z_][a-z0-9_-]{0,31}$/, 'user or group name', 32);
const WORDS = [...new Set(Object.values(SSHD_OPTIONS).flatMap((s) => ('values' in s ? s.values : [])))] as [string, ...string[]];
const optionValue = z.union([
  z.enum(WORDS),
  z.number().int().min(0).max(3600),
  z.array(accountName).min(1, 'name at least one').max(MAX_ALLOW_NAMES, `at most ${MAX_ALLOW_NAMES} names`),
]);
export type OptionValue = z.infer<typeof optionValue>;

/** Why `value` is not one `option` takes, or null. */
export function valueProblem(option: SshdOption, value: OptionValue): string | null {
  const spec = specOf(option);
  if (spec.kind === 'word') return typeof value === 'string' && spec.values.includes(value) ? null : `${option} takes one of: ${spec.values.join(', ')}`;
  if (spec.kind === 'number') {
    const ok = typeof value === 'number' && value >= spec.min && value <= spec.max;
    return ok ? null : `${option} takes a whole number from ${spec.min} to ${spec.max}${spec.unit ? ` (${spec.unit})` : ''}`;
  }
  if (!Array.isArray(value)) return `${option} takes a list of ${spec.of} names`;
  return new Set(value).size === value.length ? null : `name each ${spec.of} once`;
}

/** The drop-in line: `PasswordAuthentication no`, `AllowUsers alice bob`. */
export const optionLine = (option: SshdOption, value: OptionValue) => `${option} ${Array.isArray(value) ? value.join(' ') : String(value)}`;

/** Values as `sshd -T` prints them: prohibit-password is shown by its older name. */
function effectiveWords(option: SshdOption, value: OptionValue): string[] {
  if (Array.isArray(value)) return value;
  if (option === 'PermitRootLogin' && value === 'prohibit-password') return ['without-password'];
  return [String(value)];
}

// ---------------------------------------------------------------- the configuration as sshd reads it

/** One unconditional directive (outside any Match block), in the order sshd reads it. */
export interface Directive {
  file: string;
  line: number;
  /** The keyword, lower-cased (sshd's keywords are case-insensitive). */
  key: string;
  text: string;
  args: string[];
}

/** `Keyword value ...` or `Keyword=value`; comments from a '#' that starts a word. Null for blank and comment lines. */
export function parseDirective(raw: string): { keyword: string; args: string[] } | null {
  const m = /^\s*([A-Za-z][A-Za-z0-9]*)(?:\s*=\s*|\s+|$)(.*)$/.exec(raw);
  if (!m) return null;
  const args: string[] = [];
  for (const w of m[2]!.trim().split(/\s+/).filter(Boolean)) {
    if (w.startsWith('#')) break;
    args.push(w);
  }
  return { keyword: m[1]!, args };
}

export interface ConfigView {
  directives: Directive[];
  /** Where the drop-in's own lines sit in `directives` (it is left out of them); null when no Include reaches it. */
  dropinAt: number | null;
  /** The drop-in is reached only inside a Match block, so it would apply to some connections only. */
  dropinConditional: boolean;
  /** Include patterns or files that could not be followed. */
  unresolved: string[];
}

const MAX_INCLUDE_DEPTH = 16;
const INCLUDABLE_NAME = /^[A-Za-z0-9_@+-][A-Za-z0-9._@+-]*$/;
/** A glob with `*` and `?` as a regular expression; every other character stands for itself. */
const globRe = (pat: string) => new RegExp('^' + pat.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('') + '$');

/** The files an Include argument names, sorted as glob(3) returns them; the drop-in counts as present. */
async function includedFiles(host: Host, arg: string, view: ConfigView): Promise<string[]> {
  const abs = arg.startsWith('/') ? arg : `${SSH_DIR}/${arg}`;
  if (!/[*?[]/.test(abs)) return [abs];
  const dir = dirname(abs);
  const pat = basename(abs);
  if (/[*?[]/.test(dir) || pat.includes('[')) {
    view.unresolved.push(arg);
    return [];
  }
  const names = (await listDirectory(host, dir)) ?? [];
  if (dir === dirname(SSHD_DROPIN) && !names.includes(basename(SSHD_DROPIN))) names.push(basename(SSHD_DROPIN));
  const re = globRe(pat);
  return names
    .filter((n) => INCLUDABLE_NAME.test(n) && re.test(n))
    .sort()
    .map((n) => `${dir}/${n}`);
}

async function readInto(host: Host, file: string, depth: number, conditional: boolean, view: ConfigView): Promise<void> {
  if (file === SSHD_DROPIN) {
    if (view.dropinAt === null) {
      view.dropinAt = view.directives.length;
      view.dropinConditional = conditional;
    }
    return;
  }
  const text = await host.readFile(file).catch(() => {
    view.unresolved.push(file);
    return null;
  });
  if (text === null) return;
  let inMatch = conditional;
  for (const [i, raw] of text.split('\n').entries()) {
    const d = parseDirective(raw);
    if (!d) continue;
    const key = d.keyword.toLowerCase();
    if (key === 'match') inMatch = true;
    else if (key === 'include') {
      for (const arg of d.args) {
        if (depth >= MAX_INCLUDE_DEPTH) view.unresolved.push(arg);
        else for (const f of await includedFiles(host, arg, view)) await readInto(host, f, depth + 1, inMatch, view);
      }
    } else if (!inMatch) view.directives.push({ file, line: i + 1, key, text: raw.trim(), args: d.args });
  }
}

/** Reads sshd_config and what it includes, in sshd's order, noting where the drop-in is (or would be) read. */
export async function readConfigView(host: Host): Promise<ConfigView> {
  const view: ConfigView = { directives: [], dropinAt: null, dropinConditional: false, unresolved: [] };
  await readInto(host, SSHD_CONFIG, 0, false, view);
  return view;
}

/** `sshd -T` output as keyword -> values (one value per line for repeated keywords). */
export function parseEffective(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp <= 0) continue;
    const key = line.slice(0, sp);
    out.set(key, [...(out.get(key) ?? []), line.slice(sp + 1)]);
  }
  return out;
}

// ---------------------------------------------------------------- the shared state reader

export interface SshdState {
  installed: boolean;
  dropin: { exists: boolean; lines: string[]; hasMatch: boolean };
  view: ConfigView;
  /** `sshd -T` now, or why it failed. */
  effective: Map<string, string[]> | null;
  effectiveError: string;
  /** ssh.service, or null when systemd could not say. */
  unit: UnitState | null;
  /** Airlock approvers (members of airlock-approvers): their groups, and whether they have an authorized key file. */
  approvers: Array<{ name: string; groups: string[]; hasKeys: boolean }>;
}

/** The home-relative AuthorizedKeysFile patterns of `sshd -T`, for one user. */
function keyFilesOf(effective: Map<string, string[]> | null, user: { name: string; home: string }): string[] {
  const patterns = (effective?.get('authorizedkeysfile')?.[0] ?? '.ssh/authorized_keys .ssh/authorized_keys2').split(/\s+/).filter((p) => p && p !== 'none');
  return patterns.map((p) => p.replace(/%h/g, user.home).replace(/%u/g, user.name).replace(/%%/g, '%')).map((p) => (p.startsWith('/') ? p : `${user.home}/${p}`));
}

export async function readSshd(host: Host): Promise<SshdState> {
  const main = await host.stat(SSHD_CONFIG);
  const dropinText = await host.readFile(SSHD_DROPIN);
  const lines = (dropinText ?? '').split('\n').filter((l) => parseDirective(l) !== null).map((l) => l.trim());
  const dropin = { exists: dropinText !== null, lines, hasMatch: lines.some((l) => parseDirective(l)!.keyword.toLowerCase() === 'match') };
  if (!main) return { installed: false, dropin, view: { directives: [], dropinAt: null, dropinConditional: false, unresolved: [] }, effective: null, effectiveError: '', unit: null, approvers: [] };
  const t = await host.run('sshd', ['-T']);
  const effective = t.code === 0 ? parseEffective(t.stdout) : null;
  const unit = await readUnit(host, SSH_UNIT).catch(() => null);
  const users = await host.users();
  const groups = await host.groups();
  const approverGroup = groups.find((g) => g.name === APPROVER_GROUP);
  const approvers = [];
  for (const u of users.filter((u) => approverGroup && (approverGroup.members.includes(u.name) || u.gid === approverGroup.gid))) {
    let hasKeys = false;
    for (const f of keyFilesOf(effective, u)) hasKeys ||= /\S/.test((await host.readFile(f).catch(() => null)) ?? '');
    approvers.push({ name: u.name, groups: groups.filter((g) => g.gid === u.gid || g.members.includes(u.name)).map((g) => g.name), hasKeys });
  }
  return {
    installed: true,
    dropin,
    view: await readConfigView(host),
    effective,
    effectiveError: t.code === 0 ? '' : (t.stderr.trim().split('\n').pop() ?? '').slice(0, 200),
    unit,
    approvers,
  };
}

/** Drop-in lines other than those of `option`. */
const otherLines = (cur: SshdState, option: SshdOption) => cur.dropin.lines.filter((l) => parseDirective(l)!.keyword.toLowerCase() !== option.toLowerCase());
const dropinLineOf = (cur: SshdState, option: SshdOption) => cur.dropin.lines.find((l) => parseDirective(l)!.keyword.toLowerCase() === option.toLowerCase()) ?? null;

/** The drop-in after SetSshdOption: the option's line replaced in place, or added at the end. */
function afterSet(cur: SshdState, option: SshdOption, value: OptionValue): { old: string | null; line: string; lines: string[] } {
  const old = dropinLineOf(cur, option);
  const line = optionLine(option, value);
  return { old, line, lines: old ? cur.dropin.lines.map((l) => (l === old ? line : l)) : [...cur.dropin.lines, line] };
}

/** The drop-in's text: a header, then one line per option. */
export function dropinText(lines: string[]): string {
  return `# Managed by Airlock (SetSshdOption, ResetSshdOption): one line per option.\n# sshd reads this through the Include at the top of ${SSHD_CONFIG} and keeps the first value it reads.\n${lines.join('\n')}\n`;
}

/** Directives of `option` read before and after the drop-in (the drop-in's own lines are not among them). */
function sources(cur: SshdState, option: SshdOption): { before: Directive[]; after: Directive[] } {
  const at = cur.view.dropinAt ?? cur.view.directives.length;
  const key = option.toLowerCase();
  return { before: cur.view.directives.slice(0, at).filter((d) => d.key === key), after: cur.view.directives.slice(at).filter((d) => d.key === key) };
}
const where = (d: Directive) => `\`${d.text}\` (${d.file}:${d.line})`;

/** sshd is installed when its configuration is; every sshd action refuses otherwise. */
export function refuseWithoutSshd(installed: boolean): void {
  if (!installed) throw new AirlockError('unsupported_platform', 'sshd_missing', `the OpenSSH server is not installed (there is no ${SSHD_CONFIG})`, 'install openssh-server');
}

/** Refusals SetSshdOption and ResetSshdOption share. */
function refuseUnusable(cur: SshdState): void {
  refuseWithoutSshd(cur.installed);
  if (!cur.effective) {
    // Debian's ssh.service creates /run/sshd and removes it when it stops; sshd -T and -t need it.
    const privsep = /privilege separation directory/.test(cur.effectiveError);
    throw new AirlockError(
      'conflict',
      'sshd_config_invalid',
      `sshd -T fails on the current configuration (${cur.effectiveError || 'no error text'}); Airlock changes it only while sshd accepts it`,
      privsep ? `start ${SSH_UNIT} (StartService): it creates /run/sshd, which sshd needs even to check its configuration` : 'a person fixes the configuration first (sshd -t shows the error)',
    );
  }
  if (cur.view.dropinAt === null || cur.view.dropinConditional) {
    throw new AirlockError(
      'conflict',
      'dropin_not_included',
      `${SSHD_CONFIG} does not include ${SSHD_DROPIN}${cur.view.dropinAt !== null ? ' except inside a Match block' : ''}, so sshd would not apply it to every connection`,
      `a person adds "Include ${dirname(SSHD_DROPIN)}/*.conf" at the top of ${SSHD_CONFIG}`,
    );
  }
  if (cur.dropin.hasMatch) throw new AirlockError('conflict', 'dropin_has_match', `${SSHD_DROPIN} has a Match block (edited by hand?); a line added after it would apply to matching connections only`, 'a person removes the Match block from it');
}

/** The reload step when ssh.service runs, and what the preview says about it. */
function reloadPlan(cur: SshdState): { steps: Step[]; text: string } {
  const u = cur.unit;
  if (u && u.load === 'loaded' && u.active === 'active' && u.canReload) {
    return { steps: [command('systemctl', ['reload', '--', SSH_UNIT])], text: `then reloads ${SSH_UNIT} (running) so new connections use it` };
  }
  // The state words only (no PID, no start time): this text is part of what execution compares.
  const state = u ? [u.load === 'loaded' ? '' : u.load, u.active, u.sub === u.active ? '' : u.sub].filter(Boolean).join(', ') : 'its state is unknown';
  return { steps: [], text: `${SSH_UNIT} is not running (${state}), so nothing is reloaded: sshd reads the setting when it next starts` };
}

/** Warnings about who can still log in once `lines` (the drop-in after the change) are in force. */
function lockoutWarnings(cur: SshdState, lines: string[]): string[] {
  const out: string[] = [];
  const collect = (option: 'AllowUsers' | 'AllowGroups'): string[] | null => {
    const key = option.toLowerCase();
    const mine = lines.map(parseDirective).filter((d) => d!.keyword.toLowerCase() === key).flatMap((d) => d!.args);
    const theirs = cur.view.directives.filter((d) => d.key === key).flatMap((d) => d.args);
    return mine.length + theirs.length ? [...mine, ...theirs] : null;
  };
  const users = collect('AllowUsers');
  const groups = collect('AllowGroups');
  if (users === null && groups === null) return out;
  // A pattern may carry @host and wildcards; a name matches when its user part does.
  const matches = (patterns: string[], name: string) => patterns.some((p) => globRe(p.split('@')[0]!).test(name));
  const shut = cur.approvers.filter((a) => (users !== null && !matches(users, a.name)) || (groups !== null && !a.groups.some((g) => matches(groups, g))));
  if (cur.approvers.length > 0 && shut.length === cur.approvers.length) out.push(`no Airlock approver (${shut.map((a) => a.name).join(', ')}) would be allowed to log in over SSH: this may lock every approver out`);
  else if (shut.length > 0) out.push(`these Airlock approvers would not be allowed to log in over SSH: ${shut.map((a) => a.name).join(', ')}`);
  return out;
}

function optionWarnings(option: SshdOption, value: OptionValue, cur: SshdState, lines: string[]): string[] {
  const out: string[] = [];
  if (option === 'PasswordAuthentication' && value === 'no') {
    const keyless = cur.approvers.filter((a) => !a.hasKeys).map((a) => a.name);
    out.push('people who log in with a password (no key) cannot log in over SSH any more; open sessions stay');
    if (keyless.length) out.push(`these Airlock approvers have no authorized key file and may be locked out: ${keyless.join(', ')}`);
  }
  if (option === 'PubkeyAuthentication' && value === 'no') out.push('people who log in with an SSH key cannot do so any more; open sessions stay');
  if (option === 'PermitRootLogin' && value === 'yes') out.push('PermitRootLogin yes lets root log in with a password over SSH, the first target of password guessing; prohibit-password allows keys only');
  if (option === 'MaxAuthTries' && typeof value === 'number' && value < 3) out.push(`with MaxAuthTries ${value}, someone whose agent offers several keys may be refused before the right one is tried`);
  return [...out, ...lockoutWarnings(cur, lines)];
}

/**
 * What the preview shows of the state: the drop-in, the value in force of each option
 * Airlock manages, the lines elsewhere that set them, and ssh.service. Not every line of
 * every included file, and nothing about the approvers' key files.
 */
export const showSshd = (cur: SshdState) => ({
  dropin: { path: SSHD_DROPIN, exists: cur.dropin.exists, lines: cur.dropin.lines },
  in_force: Object.fromEntries(OPTION_NAMES.map((o) => [o, cur.effective?.get(o.toLowerCase()) ?? null])),
  set_elsewhere: cur.view.directives.filter((d) => OPTION_NAMES.some((o) => o.toLowerCase() === d.key)).map(where),
  unit: cur.unit ? describeState(cur.unit) : null,
});

function sshdSteps(cur: SshdState, lines: string[]): Step[] {
  const write = lines.length
    ? fileWrite(SSHD_DROPIN, dropinText(lines), { mode: 0o644, owner: { uid: 0, gid: 0 }, parent: { mode: 0o755, owner: { uid: 0, gid: 0 } } })
    : fileDelete(SSHD_DROPIN);
  // sshd -t reads the whole configuration, the new drop-in included; failing, it fails the job and the file is restored.
  return [write, command('sshd', ['-t']), ...reloadPlan(cur).steps];
}

// ---------------------------------------------------------------- actions

export const showSshdConfig = fixedRead({
  name: 'ShowSshdConfig',
  // Sensitive: sshd's whole effective configuration (who may log in, how, and which commands it runs).
  sensitive: true,
  reachesNetwork: false,
  family: 'ssh',
  description: "Show the SSH server's effective configuration (sshd -T: every option with the value in force; no key material).",
  summary: 'Show the effective sshd configuration',
  steps: [command('sshd', ['-T'])],
});

const setParams = params({ option: sshdOption, value: optionValue }).superRefine((p, ctx) => {
  const why = valueProblem(p.option, p.value);
  if (why) ctx.addIssue({ code: 'custom', message: why, path: ['value'] });
});

export const setSshdOption = action({
  name: 'SetSshdOption',
  family: 'ssh',
  description: `Set one SSH server option from a fixed list in Airlock's drop-in ${SSHD_DROPIN}, check it with sshd -t and reload ssh.service.`,
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: setParams,
  files: [SSHD_DROPIN],
  example: { option: 'PasswordAuthentication', value: 'no' },
  current: (_p, host) => readSshd(host),
  shown: showSshd,
  check: ({ option, value }, cur) => {
    refuseUnusable(cur);
    if (dropinLineOf(cur, option) === optionLine(option, value)) throw new AirlockError('conflict', 'already_set', `${SSHD_DROPIN} already sets \`${optionLine(option, value)}\``);
    const { before } = sources(cur, option);
    if (!isList(option) && before.length > 0) {
      throw new AirlockError(
        'conflict',
        'overridden',
        `${where(before[0]!)} is read before ${SSHD_DROPIN} and sshd keeps the first value it reads, so Airlock's setting would have no effect`,
        `a person removes or changes that line; ShowSshdConfig shows the value in force`,
      );
    }
  },
  preview: ({ option, value }, cur) => {
    const { old, line, lines } = afterSet(cur, option, value);
    const { before, after } = sources(cur, option);
    const now = cur.effective?.get(option.toLowerCase()) ?? [];
    return {
      summary: `Set sshd ${line} (in force now: ${now.join(', ') || 'nothing'})`,
      change: {
        file: SSHD_DROPIN,
        line,
        replaces: old,
        effective: {
          from: now,
          to: isList(option) ? [...new Set([...before.flatMap((d) => d.args), ...effectiveWords(option, value), ...after.flatMap((d) => d.args)])] : effectiveWords(option, value),
        },
        text: `${old ? `replaces \`${old}\` with` : 'adds'} \`${line}\` in ${SSHD_DROPIN}, checks the whole configuration with sshd -t (a failure restores the file), ${reloadPlan(cur).text}`,
      },
      sideEffects: [
        'open SSH sessions keep the settings they started with; new connections get the new one',
        ...(isList(option) && before.length + after.length ? [`sshd adds up every ${option} line: these stay in force too: ${[...before, ...after].map(where).join(', ')}`] : []),
        ...(!isList(option) && after.length ? [`it takes precedence over ${after.map(where).join(', ')}, read later`] : []),
      ],
      warnings: [...optionWarnings(option, value, cur, lines), ...(cur.view.unresolved.length ? [`could not follow Include ${cur.view.unresolved.join(', ')}: ShowSshdConfig shows the value in force afterwards`] : [])],
    };
  },
  mechanism: ({ option, value }, cur) => sshdSteps(cur, afterSet(cur, option, value).lines),
});

export const resetSshdOption = action({
  name: 'ResetSshdOption',
  family: 'ssh',
  description: `Remove one option from Airlock's drop-in ${SSHD_DROPIN} (deleting the file when it empties), check with sshd -t and reload ssh.service.`,
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ option: sshdOption }),
  files: [SSHD_DROPIN],
  example: { option: 'PasswordAuthentication' as SshdOption },
  current: (_p, host) => readSshd(host),
  shown: showSshd,
  check: ({ option }, cur) => {
    refuseUnusable(cur);
    if (dropinLineOf(cur, option) === null) throw new AirlockError('conflict', 'not_set', `${SSHD_DROPIN} does not set ${option}`, 'ShowSshdConfig shows where the value in force comes from');
  },
  preview: ({ option }, cur) => {
    const old = dropinLineOf(cur, option)!;
    const lines = otherLines(cur, option);
    const { before, after } = sources(cur, option);
    const next = isList(option) ? [...before, ...after] : [...before, ...after].slice(0, 1);
    return {
      summary: `Remove sshd ${option} from Airlock's drop-in`,
      change: {
        file: SSHD_DROPIN,
        removes: old,
        deletes_file: lines.length === 0,
        falls_back_to: next.length ? next.map(where) : `sshd's built-in default for ${option}`,
        text: `${lines.length ? `removes \`${old}\` from` : 'deletes'} ${SSHD_DROPIN}, checks the whole configuration with sshd -t (a failure restores the file), ${reloadPlan(cur).text}`,
      },
      sideEffects: ['open SSH sessions keep the settings they started with; new connections get the fallback'],
      warnings: lockoutWarnings(cur, lines),
    };
  },
  mechanism: ({ option }, cur) => sshdSteps(cur, otherLines(cur, option)),
});
