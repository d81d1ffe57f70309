/**
 * security family: the password quality policy (libpwquality, which pam_pwquality
 * reads) and the password ageing defaults of /etc/login.defs; audit watches kept in
 * /etc/audit/rules.d; the mode of AppArmor profiles (Debian, Ubuntu); SELinux's mode and
 * booleans (Fedora, RHEL); and TLS certificates.
 *
 * Some hosts cannot do the kernel half of a change: the audit netlink socket needs
 * CAP_AUDIT_CONTROL in the initial namespaces (a container has neither), and AppArmor
 * needs the LSM enabled in the kernel. There the file half still runs, and the preview
 * says plainly what does not happen; nothing pretends to have reached the kernel.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, RHEL_LIKE, type Host } from '../action.js';
import { command, fileDelete, filePatch, fileScan, fileWrite, type CommandStep, type FilePatchStep, type Step } from '../mechanism.js';
import { absolutePath, matchesGlob, params, pathMatching, token } from '../params.js';
import { dpkgEntries } from '../lib/apt.js';
import { fixedRead } from '../lib/fixed-read.js';
import { linkTarget, listDirectory } from '../lib/host-files.js';
import { days } from '../params.js';

const ROOT = { uid: 0, gid: 0 };

// ---------------------------------------------------------------- small shared pieces

/** How often `s` occurs in `text`, overlapping occurrences included (as the executor counts them for a filePatch). */
function occurrences(text: string, s: string): number {
  let n = 0;
  for (let at = text.indexOf(s); at >= 0; at = text.indexOf(s, at + 1)) n++;
  return n;
}

/**
 * A filePatch that replaces line `i` of `text` (or removes it, for null). Its search text
 * is the line with its line breaks, widened by the lines before it until it occurs exactly
 * once, so a commented copy of the same line (`# minlen = 8`) is never what gets patched.
 */
export function linePatch(path: string, text: string, i: number, replacement: string | null): FilePatchStep | null {
  const lines = text.split('\n');
  const lead = (k: number) => (i - k > 0 ? '\n' : '');
  const trail = i < lines.length - 1 ? '\n' : '';
  for (let k = 0; k <= Math.min(i, 4); k++) {
    const seg = lines.slice(i - k, i + 1);
    const search = lead(k) + seg.join('\n') + trail;
    if (occurrences(text, search) !== 1) continue;
    const kept = replacement === null ? seg.slice(0, -1) : [...seg.slice(0, -1), replacement];
    const replace = kept.length > 0 ? lead(k) + kept.join('\n') + trail : lead(k) && trail ? '\n' : '';
    return filePatch(path, search, replace);
  }
  return null;
}

/** What a filePatch does to a text: used to chain several patches of one file. */
const applyPatch = (text: string, p: FilePatchStep) => text.replace(p.search, () => p.replace);

/** The first component of `path` (itself included) that is a symbolic link, or null. */
async function firstSymlink(host: Host, path: string): Promise<string | null> {
  const segs = path.split('/').slice(1);
  for (let n = 1; n <= segs.length; n++) {
    const prefix = '/' + segs.slice(0, n).join('/');
    if ((await host.stat(prefix))?.isSymlink) return prefix;
  }
  return null;
}

/**
 * Whether the daemon can run `program`: it resolved it to a trusted binary when it started
 * (else running it is refused as program_missing) and `program --help` succeeds.
 */
async function usable(host: Host, program: 'aa-complain' | 'aa-enforce'): Promise<boolean> {
  try {
    return (await host.run(program, ['--help'])).code === 0;
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'program_missing') return false;
    throw e;
  }
}

/** Names in `dir` that match `re` and are regular files (links and odd names are reported, not read). */
async function regularFilesIn(host: Host, dir: string, re: RegExp): Promise<{ files: string[]; skipped: string[] } | null> {
  const names = await listDirectory(host, dir);
  if (names === null) return null;
  const files: string[] = [];
  const skipped: string[] = [];
  for (const name of names.filter((n) => re.test(n) || n.includes('\\'))) {
    const st = re.test(name) ? await host.stat(`${dir}/${name}`) : null;
    (st?.isFile ? files : skipped).push(name);
  }
  return { files: files.sort(), skipped };
}

// ================================================================ password quality (libpwquality)

export const PWQ_MAIN = '/etc/security/pwquality.conf';
export const PWQ_DIR = '/etc/security/pwquality.conf.d';
export const PWQ_DROP_IN = `${PWQ_DIR}/60-airlock.conf`;
export const PAM_PASSWORD = '/etc/pam.d/common-password';
const PWQ_DROP_IN_NAME = /^[A-Za-z0-9._@+-]+\.conf$/;

export const PWQ_OPTIONS = ['minlen', 'dcredit', 'ucredit', 'lcredit', 'ocredit', 'minclass', 'maxrepeat', 'dictcheck', 'enforce_for_root'] as const;
export type PwqOption = (typeof PWQ_OPTIONS)[number];
type PwqValue = number | boolean | string;
/** libpwquality 1.4's built-in values, in force where no file sets an option. */
const PWQ_DEFAULTS: Record<PwqOption, PwqValue> = { minlen: 8, dcredit: 0, ucredit: 0, lcredit: 0, ocredit: 0, minclass: 0, maxrepeat: 0, dictcheck: 1, enforce_for_root: false };

const credit = z.number().int().min(-10, 'a credit is at least -10').max(10, 'a credit is at most 10');
/** One setting and its value: the value's range depends on the option. */
export const passwordPolicySetting = z.discriminatedUnion('option', [
  params({ option: z.literal('minlen'), value: z.number().int().min(8, 'minlen is at least 8').max(128, 'minlen is at most 128') }),
  params({ option: z.enum(['dcredit', 'ucredit', 'lcredit', 'ocredit']), value: credit }),
  params({ option: z.literal('minclass'), value: z.number().int().min(0).max(4) }),
  params({ option: z.literal('maxrepeat'), value: z.number().int().min(0).max(10) }),
  params({ option: z.literal('dictcheck'), value: z.union([z.literal(0), z.literal(1)]) }),
  params({ option: z.literal('enforce_for_root'), value: z.boolean() }),
]);
type PolicySetting = z.infer<typeof passwordPolicySetting>;

export interface PwqSetting {
  name: string;
  value: string;
  /** Index of the line in its file. */
  line: number;
}

/** Active settings of a pwquality.conf, parsed as libpwquality does: `#` starts a comment, NAME [=] VALUE, a flag has no value. */
export function parsePwquality(text: string): PwqSetting[] {
  return text.split('\n').flatMap((raw, line) => {
    const body = raw.split('#')[0]!.trim();
    const m = /^([^\s=]+)\s*=?\s*(.*)$/.exec(body);
    return m ? [{ name: m[1]!.toLowerCase(), value: m[2]!, line }] : [];
  });
}

/** The arguments of the first pam_pwquality.so line of a PAM file, or null when there is none. */
export function pamPwqualityArgs(text: string): { line: string; args: Record<string, string> } | null {
  for (const raw of text.split('\n')) {
    if (raw.trim().startsWith('#')) continue;
    const fields = raw.trim().split(/\s+/);
    const at = fields.findIndex((f) => /(^|\/)pam_pwquality\.so$/.test(f));
    if (at < 0) continue;
    const args: Record<string, string> = {};
    for (const a of fields.slice(at + 1)) {
      const eq = a.indexOf('=');
      args[(eq < 0 ? a : a.slice(0, eq)).toLowerCase()] = eq < 0 ? '' : a.slice(eq + 1);
    }
    return { line: raw.trim(), args };
  }
  return null;
}

const pwqValue = (option: PwqOption, raw: string): PwqValue => (option === 'enforce_for_root' ? true : /^-?\d+$/.test(raw) ? Number(raw) : raw);

/** Upstream version of a Debian version string: 1:1.4.5-1+b1 -> [1, 4, 5]. */
export function upstreamVersion(v: string): number[] {
  const up = v.replace(/^\d+:/, '').replace(/-[^-]*$/, '');
  return (/^\d+(\.\d+)*/.exec(up)?.[0] ?? '0').split('.').map(Number);
}
const atLeast = (v: number[], min: number[]) => {
  for (let i = 0; i < min.length; i++) if ((v[i] ?? 0) !== min[i]) return (v[i] ?? 0) > min[i]!;
  return true;
};

interface PwqFile {
  path: string;
  text: string;
  settings: PwqSetting[];
}

export interface PwqState {
  /** Installed versions (null when not installed). */
  module: string | null;
  library: string | null;
  /** libpwquality 1.3 and later read pwquality.conf.d/*.conf, in byte order, before pwquality.conf. */
  readsDropIns: boolean;
  /** Every file libpwquality reads, in the order it reads them: the last setting of an option wins. */
  files: PwqFile[];
  /** Drop-ins whose names or types keep them from being shown (links, unusual names). */
  unreadable: string[];
  pam: { file: string; line: string; args: Record<string, string> } | null;
  effective: Record<PwqOption, { value: PwqValue; from: string }>;
}

export async function readPasswordQuality(host: Host): Promise<PwqState> {
  const pkgs = await dpkgEntries(host, ['libpam-pwquality', 'libpwquality1']);
  const version = (name: string) => pkgs.find((p) => p.name === name && p.status === 'installed')?.version ?? null;
  const library = version('libpwquality1');
  const readsDropIns = library !== null && atLeast(upstreamVersion(library), [1, 3]);
  const files: PwqFile[] = [];
  const dir = readsDropIns ? await regularFilesIn(host, PWQ_DIR, PWQ_DROP_IN_NAME) : null;
  for (const name of dir?.files ?? []) {
    const path = `${PWQ_DIR}/${name}`;
    const text = (await host.readFile(path)) ?? '';
    files.push({ path, text, settings: parsePwquality(text) });
  }
  const main = await host.readFile(PWQ_MAIN);
  if (main !== null) files.push({ path: PWQ_MAIN, text: main, settings: parsePwquality(main) });
  const pamText = await host.readFile(PAM_PASSWORD);
  const pam = pamText === null ? null : pamPwqualityArgs(pamText);

  const effective = Object.fromEntries(PWQ_OPTIONS.map((o) => [o, { value: PWQ_DEFAULTS[o], from: 'built-in default' }])) as PwqState['effective'];
  for (const f of files) {
    for (const s of f.settings) if ((PWQ_OPTIONS as readonly string[]).includes(s.name)) effective[s.name as PwqOption] = { value: pwqValue(s.name as PwqOption, s.value), from: f.path };
  }
  // Module arguments are applied after the files, so they override them.
  for (const o of PWQ_OPTIONS) if (pam && o in pam.args) effective[o] = { value: pwqValue(o, pam.args[o]!), from: `${PAM_PASSWORD} (pam_pwquality.so argument)` };
  return { module: version('libpam-pwquality'), library, readsDropIns, files, unreadable: dir?.skipped ?? [], pam: pam && { file: PAM_PASSWORD, ...pam }, effective };
}

const describePolicy = (cur: PwqState) => PWQ_OPTIONS.map((o) => `${o}=${String(cur.effective[o].value)}`).join(' ');

/** What the preview shows: effective values, where each comes from, which files are read (no whole files). */
const showPolicy = (cur: PwqState) => ({
  module: cur.module,
  library: cur.library,
  reads_drop_ins: cur.readsDropIns,
  files: cur.files.map((f) => f.path),
  unreadable_drop_ins: cur.unreadable,
  pam: cur.pam,
  effective: cur.effective,
});

function refuseWithoutPwquality(cur: PwqState): void {
  if (cur.module === null) {
    throw new AirlockError('unsupported_platform', 'pwquality_missing', 'libpam-pwquality is not installed, so no password quality policy is enforced by PAM', 'install libpam-pwquality first (InstallPackage)');
  }
}

export const showPasswordPolicy = action({
  name: 'ShowPasswordPolicy',
  family: 'security',
  description: 'Show the password quality policy: pwquality.conf, its pwquality.conf.d drop-ins and the pam_pwquality line of common-password, with the value in force for each setting.',
  risk: 'low',
  readOnly: true,
  // Sensitive: the password quality configuration and PAM line, in full.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [PWQ_MAIN, `${PWQ_DIR}/*.conf`, PAM_PASSWORD],
  example: {},
  current: (_p, host) => readPasswordQuality(host),
  shown: showPolicy,
  check: (_p, cur) => {
    if (cur.files.length === 0) refuseWithoutPwquality(cur);
  },
  preview: (_p, cur) => ({
    summary: `Read the password quality policy (${cur.files.length} file(s)); in force: ${describePolicy(cur)}`,
    change: null,
    warnings: [
      ...(cur.unreadable.length ? [`not shown (links or unusual names): ${cur.unreadable.map((n) => `${PWQ_DIR}/${n}`).join(', ')}; libpwquality may still read them`] : []),
      ...(cur.pam === null ? [`no pam_pwquality.so line in ${PAM_PASSWORD}: passwd does not apply this policy`] : []),
    ],
  }),
  mechanism: (_p, cur) => [...cur.files.map((f) => fileScan(f.path)), ...(cur.pam ? [fileScan(PAM_PASSWORD)] : [])],
});

/** Where a SetPasswordPolicy change goes, and the exact line it writes or removes. */
interface PolicyPlan {
  file: string;
  /** The line set (null when a flag is removed) and the line it replaces, if any. */
  line: string | null;
  replaces: string | null;
  step: Step;
}

const settingLine = (s: PolicySetting) => (s.option === 'enforce_for_root' ? (s.value ? 'enforce_for_root' : null) : `${s.option} = ${s.value}`);
const DROP_IN_HEADER = '# Written by Airlock (SetPasswordPolicy). libpwquality reads this directory first,\n# then /etc/security/pwquality.conf, which overrides any setting repeated there.\n';

function planPolicy(s: PolicySetting, cur: PwqState): PolicyPlan {
  const line = settingLine(s);
  const setting = (f: PwqFile) => f.settings.filter((x) => x.name === s.option);
  const main = cur.files.find((f) => f.path === PWQ_MAIN);
  const inMain = main ? setting(main) : [];
  // Any file that sets the enforce_for_root flag turns it on: to turn it off, no other may set it.
  const flagElsewhere = s.option === 'enforce_for_root' && !s.value ? cur.files.filter((f) => f.path !== PWQ_DROP_IN && f.path !== PWQ_MAIN && setting(f).length > 0) : [];
  if (flagElsewhere.length > 0) {
    throw new AirlockError('conflict', 'set_elsewhere', `${flagElsewhere.map((f) => f.path).join(', ')} also set${flagElsewhere.length === 1 ? 's' : ''} enforce_for_root, which keeps it on`, 'remove that line by hand');
  }
  // pwquality.conf is read last: when it sets the option, only changing that line has any effect.
  if (main && inMain.length > 0) {
    if (inMain.length > 1) {
      throw new AirlockError('conflict', 'duplicate_setting', `${PWQ_MAIN} sets ${s.option} on ${inMain.length} lines; Airlock changes one exact line only`, 'remove the extra lines by hand, then preview again');
    }
    const at = inMain[0]!.line;
    const step = linePatch(PWQ_MAIN, main.text, at, line);
    if (!step) throw new AirlockError('conflict', 'ambiguous_line', `the line setting ${s.option} in ${PWQ_MAIN} cannot be told apart from an identical one`);
    return { file: PWQ_MAIN, line, replaces: main.text.split('\n')[at]!, step };
  }
  if (!cur.readsDropIns) {
    throw new AirlockError('unsupported_platform', 'pwquality_too_old', `libpwquality ${cur.library ?? '(not installed)'} does not read ${PWQ_DIR}, and ${PWQ_MAIN} has no ${s.option} line to change`, `add "${line ?? s.option}" to ${PWQ_MAIN} by hand`);
  }
  // A drop-in sorted after ours is read after it, so its setting wins.
  const winners = cur.files.filter((f) => f.path !== PWQ_MAIN && f.path > PWQ_DROP_IN && setting(f).length > 0);
  if (winners.length > 0) {
    throw new AirlockError('conflict', 'overridden_by_drop_in', `${winners.map((f) => f.path).join(', ')} also set${winners.length === 1 ? 's' : ''} ${s.option} and would win over ${PWQ_DROP_IN}`, 'change or remove that setting by hand');
  }
  if (cur.unreadable.includes(posix.basename(PWQ_DROP_IN))) {
    throw new AirlockError('conflict', 'drop_in_not_regular', `${PWQ_DROP_IN} is not a regular file (a link?); Airlock writes only a file of its own there`, 'remove it by hand');
  }
  const ours = cur.files.find((f) => f.path === PWQ_DROP_IN);
  const old = ours ? setting(ours) : [];
  const kept = ours ? ours.text.split('\n').filter((_l, i) => !old.some((x) => x.line === i)) : DROP_IN_HEADER.split('\n');
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  const content = [...kept, ...(line ? [line] : [])].join('\n') + '\n';
  return {
    file: PWQ_DROP_IN,
    line,
    replaces: old.length ? ours!.text.split('\n')[old[old.length - 1]!.line]! : null,
    step: fileWrite(PWQ_DROP_IN, content, { mode: 0o644, owner: ROOT, parent: { mode: 0o755, owner: ROOT } }),
  };
}

/** True when going from `from` to `to` accepts passwords the old policy refused. */
function relaxes(option: PwqOption, from: PwqValue, to: PwqValue): boolean {
  if (typeof from !== 'number' || typeof to !== 'number') return option === 'enforce_for_root' ? from === true && to === false : false;
  if (option === 'minlen' || option === 'minclass' || option === 'dictcheck') return to < from;
  if (option === 'maxrepeat') return from !== 0 && (to === 0 || to > from);
  return to > from; // credits: a negative credit is a requirement, a positive one a bonus
}

export const setPasswordPolicy = action({
  name: 'SetPasswordPolicy',
  family: 'security',
  description: `Set one password quality option (minlen, d/u/l/ocredit, minclass, maxrepeat, dictcheck, enforce_for_root) in ${PWQ_DROP_IN}, or on its existing line in pwquality.conf when that file sets it.`,
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: passwordPolicySetting,
  files: [PWQ_DROP_IN, PWQ_MAIN],
  example: { option: 'minlen', value: 12 },
  current: (_p, host) => readPasswordQuality(host),
  shown: showPolicy,
  check: (s, cur) => {
    refuseWithoutPwquality(cur);
    if (cur.pam && s.option in cur.pam.args) {
      throw new AirlockError('conflict', 'overridden_by_pam', `pam_pwquality.so in ${PAM_PASSWORD} is given ${s.option}${cur.pam.args[s.option] ? `=${cur.pam.args[s.option]}` : ''}, which overrides every configuration file`, `change that line by hand (pam-auth-update manages ${PAM_PASSWORD})`);
    }
    if (cur.effective[s.option].value === s.value) {
      throw new AirlockError('conflict', 'already_set', `${s.option} is already ${String(s.value)} (from ${cur.effective[s.option].from})`);
    }
    planPolicy(s, cur);
  },
  preview: (s, cur) => {
    const plan = planPolicy(s, cur);
    const from = cur.effective[s.option];
    return {
      summary: `Set password quality option ${s.option} to ${String(s.value)} (now ${String(from.value)}) in ${plan.file}`,
      change: { file: plan.file, option: s.option, from: from.value, to: s.value, line: plan.line, replaces_line: plan.replaces, creates_file: plan.file === PWQ_DROP_IN && !cur.files.some((f) => f.path === PWQ_DROP_IN) },
      sideEffects: ['applies to passwords set from now on through PAM (passwd, chpasswd); existing passwords are not checked again'],
      warnings: [
        ...(relaxes(s.option, from.value, s.value) ? [`this relaxes the policy: passwords refused today would be accepted`] : []),
        ...(cur.pam === null ? [`no pam_pwquality.so line in ${PAM_PASSWORD}: passwd does not apply this policy until pam_pwquality is enabled`] : []),
        ...(s.option === 'enforce_for_root' && s.value ? ['root changing any password (its own included) must now satisfy the policy'] : []),
      ],
    };
  },
  mechanism: (s, cur) => [planPolicy(s, cur).step],
});

// ================================================================ password ageing defaults (/etc/login.defs)

export const LOGIN_DEFS = '/etc/login.defs';
export const AGING_KEYS = { pass_max_days: 'PASS_MAX_DAYS', pass_min_days: 'PASS_MIN_DAYS', pass_warn_age: 'PASS_WARN_AGE' } as const;
type AgingParam = keyof typeof AGING_KEYS;
const AGING_PARAMS = Object.keys(AGING_KEYS) as AgingParam[];

export interface DefsLine {
  value: string;
  line: number;
}

/** login.defs entries by name (every active line kept: shadow's tools take the last). */
export function parseLoginDefs(text: string): Map<string, DefsLine[]> {
  const out = new Map<string, DefsLine[]>();
  text.split('\n').forEach((raw, line) => {
    const m = /^\s*([A-Z0-9_]+)\s+(\S+)/.exec(raw);
    if (!m || raw.trim().startsWith('#')) return;
    out.set(m[1]!, [...(out.get(m[1]!) ?? []), { value: m[2]!, line }]);
  });
  return out;
}

interface AgingState {
  text: string | null;
  entries: Record<AgingParam, DefsLine[]>;
}

async function readAging(host: Host): Promise<AgingState> {
  const text = await host.readFile(LOGIN_DEFS);
  const all = parseLoginDefs(text ?? '');
  return { text, entries: Object.fromEntries(AGING_PARAMS.map((p) => [p, all.get(AGING_KEYS[p]) ?? []])) as AgingState['entries'] };
}

const agingValue = (cur: AgingState, p: AgingParam) => cur.entries[p].at(-1)?.value ?? null;
const showAging = (cur: AgingState) => ({ file: LOGIN_DEFS, exists: cur.text !== null, ...Object.fromEntries(AGING_PARAMS.map((p) => [AGING_KEYS[p], agingValue(cur, p)])) });
const describeAging = (cur: AgingState) => AGING_PARAMS.map((p) => `${AGING_KEYS[p]} ${agingValue(cur, p) ?? 'unset'}`).join(', ');

function refuseNoLoginDefs(cur: AgingState): asserts cur is AgingState & { text: string } {
  if (cur.text === null) throw new AirlockError('unsupported_platform', 'no_login_defs', `${LOGIN_DEFS} does not exist on this host`, 'install the login package');
}

export const passwordAgingDefaults = action({
  name: 'PasswordAgingDefaults',
  family: 'security',
  description: `Show ${LOGIN_DEFS}, whose PASS_MAX_DAYS, PASS_MIN_DAYS and PASS_WARN_AGE new accounts receive (the file holds no secrets).`,
  risk: 'low',
  readOnly: true,
  // Sensitive: /etc/login.defs in full.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [LOGIN_DEFS],
  example: {},
  current: (_p, host) => readAging(host),
  shown: showAging,
  check: (_p, cur) => refuseNoLoginDefs(cur),
  preview: (_p, cur) => ({ summary: `Read ${LOGIN_DEFS} (${describeAging(cur)})`, change: null }),
  mechanism: () => [fileScan(LOGIN_DEFS)],
});


/** The changed settings, in a fixed order, with their lines patched one after the other. */
function agingPatches(p: Partial<Record<AgingParam, number>>, cur: AgingState & { text: string }): { key: string; from: string; to: number; step: FilePatchStep }[] {
  let text = cur.text;
  const out: { key: string; from: string; to: number; step: FilePatchStep }[] = [];
  for (const name of AGING_PARAMS) {
    const to = p[name];
    const entries = cur.entries[name];
    const key = AGING_KEYS[name];
    if (to === undefined) continue;
    if (entries.length === 0) throw new AirlockError('conflict', 'key_missing', `${LOGIN_DEFS} has no active ${key} line to change`, `add "${key} ${to}" by hand`);
    if (entries.length > 1) throw new AirlockError('conflict', 'duplicate_key', `${LOGIN_DEFS} sets ${key} on ${entries.length} lines; Airlock changes one exact line only`, 'remove the extra lines by hand');
    const e = entries[0]!;
    if (Number(e.value) === to && e.value === String(to)) continue;
    const line = text.split('\n')[e.line]!;
    const step = linePatch(LOGIN_DEFS, text, e.line, line.replace(/^(\s*[A-Z0-9_]+\s+)\S+/, `$1${to}`));
    if (!step) throw new AirlockError('conflict', 'ambiguous_line', `the ${key} line of ${LOGIN_DEFS} cannot be told apart from an identical one`);
    text = applyPatch(text, step);
    out.push({ key, from: e.value, to, step });
  }
  return out;
}

export const setPasswordAgingDefaults = action({
  name: 'SetPasswordAgingDefaults',
  family: 'security',
  description: `Change PASS_MAX_DAYS (1-99999), PASS_MIN_DAYS (0-99999) and/or PASS_WARN_AGE (0-365) on their existing lines of ${LOGIN_DEFS}; accounts created later get them.`,
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ pass_max_days: days(1, 99999).optional(), pass_min_days: days(0, 99999).optional(), pass_warn_age: days(0, 365).optional() }).refine(
    (p) => AGING_PARAMS.some((k) => p[k] !== undefined),
    'give at least one of pass_max_days, pass_min_days, pass_warn_age',
  ),
  files: [LOGIN_DEFS],
  example: { pass_max_days: 365, pass_warn_age: 14 },
  current: (_p, host) => readAging(host),
  shown: showAging,
  check: (p, cur) => {
    refuseNoLoginDefs(cur);
    const changes = agingPatches(p, cur);
    if (changes.length === 0) throw new AirlockError('conflict', 'no_change', `${LOGIN_DEFS} already has ${describeAging(cur)}`);
    const after = (k: AgingParam) => p[k] ?? Number(agingValue(cur, k));
    if (after('pass_min_days') > after('pass_max_days')) {
      throw new AirlockError('validation', 'min_above_max', `PASS_MIN_DAYS ${after('pass_min_days')} would exceed PASS_MAX_DAYS ${after('pass_max_days')}: new accounts could never change their password before it expires`);
    }
  },
  preview: (p, cur) => {
    refuseNoLoginDefs(cur);
    const changes = agingPatches(p, cur);
    const after = (k: AgingParam) => p[k] ?? Number(agingValue(cur, k));
    return {
      summary: `Set ${changes.map((c) => `${c.key} ${c.to}`).join(', ')} in ${LOGIN_DEFS}`,
      change: { file: LOGIN_DEFS, set: changes.map(({ key, from, to }) => ({ key, from, to })) },
      sideEffects: ['applies to accounts created from now on (useradd copies these values into /etc/shadow); existing accounts keep the ageing they have'],
      warnings: [
        ...(p.pass_max_days !== undefined && p.pass_max_days < 99999 ? [`passwords of new accounts expire ${p.pass_max_days} days after they are set; accounts that log in with SSH keys only are not affected`] : []),
        ...(after('pass_warn_age') >= after('pass_max_days') ? [`PASS_WARN_AGE ${after('pass_warn_age')} is not below PASS_MAX_DAYS ${after('pass_max_days')}: users are warned from the day a password is set`] : []),
      ],
    };
  },
  mechanism: (p, cur) => (cur.text === null ? [] : agingPatches(p, cur as AgingState & { text: string }).map((c) => c.step)),
});

// ================================================================ audit (auditd)

export const AUDIT_RULES_D = '/etc/audit/rules.d';
export const AUDITD_CONF = '/etc/audit/auditd.conf';
export const AUDIT_RULES = '/etc/audit/audit.rules';
export const auditWatchFile = (name: string) => `${AUDIT_RULES_D}/60-airlock-${name}.rules`;
const RULES_NAME = /^[A-Za-z0-9._@+-]+\.rules$/;

export const auditWatchName = token(/^[a-z0-9][a-z0-9-]{0,39}$/, 'watch name (lower-case letters, digits and -)', 40);
export const auditKey = token(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'audit key (letters, digits, _ and -)', 64);
export const auditPermissions = token(/^[rwxa]{1,4}$/, 'permissions (a subset of r, w, x, a)', 4).refine((s) => new Set(s).size === s.length, 'permissions must not repeat a letter');
/** Pseudo file systems: a watch there is refused by the kernel or floods the log. */
const UNWATCHABLE = ['/proc', '/sys', '/dev', '/run'];
export const watchPath = absolutePath
  .refine((p) => /^\/[A-Za-z0-9._@+,:=/-]*$/.test(p), 'path may hold letters, digits and . _ @ + , : = - / only (audit rules are split on spaces)')
  .refine((p) => !p.includes('/-'), "no part of the path may start with '-'")
  .refine((p) => p.length <= 1024, 'path must be at most 1024 characters')
  .refine((p) => p !== '/' && !UNWATCHABLE.some((d) => p === d || p.startsWith(`${d}/`)), `watching / or anything under ${UNWATCHABLE.join(', ')} is refused`);

/** r, w, x, a in the order auditctl -l prints them. */
export const canonicalPermissions = (p: string) => ['r', 'w', 'x', 'a'].filter((c) => p.includes(c)).join('');
const watchRule = (path: string, perms: string, key: string) => `-w ${path} -p ${canonicalPermissions(perms)} -k ${key}`;

export type KernelAudit =
  | { available: true; enabled: number; status: Record<string, string>; rules: string[] }
  | { available: false; reason: string; why: string };

/** The running kernel's audit state through auditctl, or why it cannot be read here. */
export async function readKernelAudit(host: Host, withRules: boolean): Promise<KernelAudit> {
  const r = await host.run('auditctl', ['-s']);
  if (r.code !== 0) {
    // auditctl's own words, e.g. "Error sending status request (Operation not permitted)".
    const said = `${r.stderr}\n${r.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
    const reason = said.slice(0, 3).join('; ').slice(0, 300) || `exit status ${r.code}`;
    const why = /not permitted/i.test(reason)
      ? 'the Airlock daemon lacks CAP_AUDIT_CONTROL in the initial user namespace, as in a container'
      : /netlink|not in kernel/i.test(reason)
        ? 'the kernel refuses the audit netlink socket: it is open in the initial network namespace only (not in a container), or the kernel lacks audit support'
        : 'auditctl could not talk to the kernel';
    return { available: false, reason, why };
  }
  const status: Record<string, string> = {};
  for (const l of r.stdout.split('\n')) {
    const m = /^(\w+) (.*)$/.exec(l.trim());
    if (m) status[m[1]!] = m[2]!;
  }
  let rules: string[] = [];
  if (withRules) {
    const l = await host.run('auditctl', ['-l']);
    rules = l.code === 0 ? l.stdout.split('\n').map((x) => x.trim()).filter((x) => x !== '' && x !== 'No rules') : [];
  }
  return { available: true, enabled: Number(status.enabled ?? 0), status, rules };
}

/** Whether the running rules can be changed now: not when unreadable, nor when locked (-e 2) until reboot. */
const kernelChangeable = (k: KernelAudit) => k.available && k.enabled !== 2;
function kernelNote(k: KernelAudit): string | null {
  if (!k.available) return `the running kernel's audit rules cannot be read or changed here (auditctl: ${k.reason}; ${k.why})`;
  if (k.enabled === 2) return 'the kernel audit configuration is locked (-e 2) until the next boot';
  return null;
}
const showKernel = (k: KernelAudit) => (k.available ? { available: true, enabled: k.enabled, loaded_rules: k.rules.length } : { available: false, reason: k.reason, why: k.why });

export const auditStatus = action({
  name: 'AuditStatus',
  family: 'security',
  description: `Show the kernel audit status (auditctl -s, where the kernel allows it), auditd.service's state and ${AUDITD_CONF}.`,
  risk: 'low',
  readOnly: true,
  // Sensitive: auditd.conf in full.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [AUDITD_CONF],
  example: {},
  current: async (_p, host) => ({ kernel: await readKernelAudit(host, false), conf: (await host.stat(AUDITD_CONF))?.isFile === true }),
  shown: (cur) => ({ kernel: showKernel(cur.kernel), auditd_conf: cur.conf }),
  preview: (_p, cur) => ({
    summary: cur.kernel.available
      ? `Read the kernel audit status (enabled ${cur.kernel.enabled}), auditd.service's state${cur.conf ? ` and ${AUDITD_CONF}` : ''}`
      : `Read auditd.service's state${cur.conf ? ` and ${AUDITD_CONF}` : ''}; the kernel audit status is unavailable here: auditctl -s: ${cur.kernel.reason}`,
    change: null,
    warnings: [...(cur.kernel.available ? [] : [`${kernelNote(cur.kernel)}: the output holds no kernel status`]), ...(cur.conf ? [] : [`${AUDITD_CONF} does not exist`])],
  }),
  mechanism: (_p, cur) => [
    ...(cur.kernel.available ? [command('auditctl', ['-s'])] : []),
    command('systemctl', ['show', '--no-pager', '-p', 'LoadState,ActiveState,SubState,UnitFileState,MainPID', '--', 'auditd.service']),
    ...(cur.conf ? [fileScan(AUDITD_CONF)] : []),
  ],
});

interface RulesDir {
  files: string[];
  skipped: string[];
}

async function readRulesDir(host: Host): Promise<RulesDir> {
  const d = await regularFilesIn(host, AUDIT_RULES_D, RULES_NAME);
  if (d === null) throw new AirlockError('unsupported_platform', 'auditd_missing', `${AUDIT_RULES_D} does not exist: auditd is not installed`, 'install auditd first (InstallPackage)');
  return d;
}

export const listAuditRules = action({
  name: 'ListAuditRules',
  family: 'security',
  description: `Show every rules file in ${AUDIT_RULES_D} (Airlock's are named 60-airlock-NAME.rules) and, where the kernel allows it, the rules loaded now (auditctl -l).`,
  risk: 'low',
  readOnly: true,
  // Sensitive: the audit rules files, in full.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [`${AUDIT_RULES_D}/*.rules`],
  example: {},
  current: async (_p, host) => ({ dir: await readRulesDir(host), kernel: await readKernelAudit(host, true) }),
  shown: (cur) => ({ files: cur.dir.files.map((f) => ({ file: `${AUDIT_RULES_D}/${f}`, airlock: f.startsWith('60-airlock-') })), skipped: cur.dir.skipped, kernel: showKernel(cur.kernel) }),
  preview: (_p, cur) => ({
    summary: `Read ${cur.dir.files.length} rules file(s) in ${AUDIT_RULES_D}${cur.kernel.available ? ` and the ${cur.kernel.rules.length} rule(s) loaded in the kernel` : '; the loaded rules are unavailable here'}`,
    change: null,
    warnings: [...(kernelNote(cur.kernel) && !cur.kernel.available ? [kernelNote(cur.kernel)!] : []), ...(cur.dir.skipped.length ? [`not shown (links or unusual names): ${cur.dir.skipped.join(', ')}`] : [])],
  }),
  mechanism: (_p, cur) => [...cur.dir.files.map((f) => fileScan(`${AUDIT_RULES_D}/${f}`)), ...(cur.kernel.available ? [command('auditctl', ['-l'])] : [])],
});

const augenrules = () => command('augenrules', []);
/** Rebuilds audit.rules from rules.d; it only replaces audit.rules at its very end, so a failure leaves it as it was. */
const REBUILD_NOTE = `${AUDIT_RULES} is rebuilt from every file in ${AUDIT_RULES_D} (augenrules), which is what auditd loads at boot`;

interface WatchState {
  dir: RulesDir;
  file: string;
  existing: string | null;
  kernel: KernelAudit;
}

async function readWatch(host: Host, name: string): Promise<WatchState> {
  const file = auditWatchFile(name);
  return { dir: await readRulesDir(host), file, existing: await host.readFile(file), kernel: await readKernelAudit(host, true) };
}

const auditctl = (args: string[]): CommandStep => command('auditctl', args);
const ruleArgs = (flag: '-w' | '-W', path: string, perms: string, key: string) => [flag, path, '-p', canonicalPermissions(perms), '-k', key];

export const addAuditWatch = action({
  name: 'AddAuditWatch',
  family: 'security',
  description: `Audit access to one existing file or directory: writes "-w PATH -p PERMS -k KEY" to ${AUDIT_RULES_D}/60-airlock-NAME.rules, rebuilds audit.rules and, where the kernel allows it, loads the watch now.`,
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: auditWatchName, path: watchPath, permissions: auditPermissions, key: auditKey }),
  files: [`${AUDIT_RULES_D}/60-airlock-*.rules`],
  example: { name: 'passwd', path: '/etc/passwd', permissions: 'wa', key: 'identity' },
  current: async ({ name, path }, host) => {
    const st = await host.stat(path);
    return { ...(await readWatch(host, name)), target: st && { isDir: st.isDir, isFile: st.isFile }, link: await firstSymlink(host, path) };
  },
  shown: (cur) => ({ file: cur.file, exists: cur.existing !== null, target: cur.target, link: cur.link, kernel: showKernel(cur.kernel) }),
  check: ({ path, permissions, key }, cur) => {
    if (cur.existing !== null) throw new AirlockError('conflict', 'watch_exists', `${cur.file} already exists`, 'choose another name, or RemoveAuditWatch it first');
    if (cur.link) throw new AirlockError('validation', 'symlink_in_path', `${cur.link} is a symbolic link; the kernel watches the path as written, so name the real file`);
    if (!cur.target) throw new AirlockError('validation', 'no_such_path', `${path} does not exist; Airlock watches existing files and directories only`);
    if (cur.kernel.available && cur.kernel.rules.includes(watchRule(path, permissions, key))) {
      throw new AirlockError('conflict', 'already_loaded', `the kernel already has the rule "${watchRule(path, permissions, key)}" (from another rules file)`);
    }
  },
  preview: ({ name, path, permissions, key }, cur) => {
    const rule = watchRule(path, permissions, key);
    const note = kernelNote(cur.kernel);
    return {
      summary: `Audit ${canonicalPermissions(permissions)} access to ${path} under key ${key} (watch ${name})`,
      change: { file: cur.file, rule, loads_now: kernelChangeable(cur.kernel), rebuilds: AUDIT_RULES },
      sideEffects: [REBUILD_NOTE, ...(cur.target?.isDir ? [`${path} is a directory: the watch covers everything below it`] : []), 'matching events are logged by auditd under this key (ausearch -k)'],
      warnings: note ? [`${note}: the watch is only written to ${cur.file} and ${AUDIT_RULES}; it takes effect when auditd next loads its rules (boot, or auditd.service starting)`] : [],
    };
  },
  mechanism: ({ name, path, permissions, key }, cur) => [
    // Loading first is the validation: the kernel refuses a bad rule before anything is written.
    ...(kernelChangeable(cur.kernel) ? [{ ...auditctl(ruleArgs('-w', path, permissions, key)), undo: auditctl(ruleArgs('-W', path, permissions, key)) }] : []),
    fileWrite(cur.file, `## Written by Airlock (AddAuditWatch ${name})\n${watchRule(path, permissions, key)}\n`, { mode: 0o640, owner: ROOT }),
    augenrules(),
  ],
});

/**
 * The watch an Airlock rules file holds: exactly one `-w PATH -p PERMS -k KEY` line besides
 * comments, each part valid as AddAuditWatch's parameters are (the file may have been edited).
 */
export function parseWatchFile(text: string): { path: string; perms: string; key: string } | null {
  const rules = text.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  const m = rules.length === 1 ? /^-w (\S+) -p (\S+) -k (\S+)$/.exec(rules[0]!.trim()) : null;
  if (!m || !watchPath.safeParse(m[1]).success || !auditPermissions.safeParse(m[2]).success || !auditKey.safeParse(m[3]).success) return null;
  return { path: m[1]!, perms: m[2]!, key: m[3]! };
}

export const removeAuditWatch = action({
  name: 'RemoveAuditWatch',
  family: 'security',
  description: 'Remove an audit watch that AddAuditWatch created: deletes its rules file, rebuilds audit.rules and, where the kernel allows it, unloads the watch now.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: auditWatchName }),
  files: [`${AUDIT_RULES_D}/60-airlock-*.rules`],
  example: { name: 'passwd' },
  current: ({ name }, host) => readWatch(host, name),
  shown: (cur) => ({ file: cur.file, exists: cur.existing !== null, rule: cur.existing === null ? null : parseWatchFile(cur.existing), kernel: showKernel(cur.kernel) }),
  check: (_p, cur) => {
    if (cur.existing === null) throw new AirlockError('conflict', 'no_such_watch', `${cur.file} does not exist`, 'ListAuditRules shows the Airlock watches (60-airlock-*.rules)');
    if (!parseWatchFile(cur.existing)) throw new AirlockError('conflict', 'not_an_airlock_watch', `${cur.file} was edited and no longer holds exactly one watch rule; Airlock removes only what it wrote`, 'remove it by hand');
  },
  preview: (_p, cur) => {
    const w = parseWatchFile(cur.existing ?? '');
    const rule = w ? watchRule(w.path, w.perms, w.key) : '';
    const loaded = cur.kernel.available && cur.kernel.rules.includes(rule);
    const note = kernelNote(cur.kernel);
    return {
      summary: `Stop auditing ${w?.path ?? '?'} (watch ${cur.file})`,
      change: { file: cur.file, rule, unloads_now: loaded && kernelChangeable(cur.kernel), rebuilds: AUDIT_RULES },
      sideEffects: [REBUILD_NOTE, 'events already logged stay in the audit log'],
      warnings: [
        ...(note ? [`${note}: the watch is only removed from ${cur.file} and ${AUDIT_RULES}; a loaded copy stays until auditd next loads its rules or the host reboots`] : []),
        ...(cur.kernel.available && !loaded ? ['the kernel does not have this watch loaded now'] : []),
        ...(cur.dir.files.length === 1 ? [`it is the last file in ${AUDIT_RULES_D}: augenrules leaves ${AUDIT_RULES} unchanged when there is nothing to build`] : []),
      ],
    };
  },
  mechanism: (_p, cur) => {
    const w = parseWatchFile(cur.existing ?? '');
    if (!w) return [];
    const loaded = kernelChangeable(cur.kernel) && cur.kernel.available && cur.kernel.rules.includes(watchRule(w.path, w.perms, w.key));
    return [
      ...(loaded ? [{ ...auditctl(ruleArgs('-W', w.path, w.perms, w.key)), undo: auditctl(ruleArgs('-w', w.path, w.perms, w.key)) }] : []),
      fileDelete(cur.file),
      augenrules(),
    ];
  },
});

// ================================================================ AppArmor

export const APPARMOR_D = '/etc/apparmor.d';
export const appArmorProfile = token(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/, `profile (a file name in ${APPARMOR_D})`, 128);

export interface AppArmorKernel {
  enabled: boolean;
  /** What aa-enabled answered ("Yes", "No - not available on this system.", ...). */
  answer: string;
  code: number;
}

/** Whether AppArmor is enabled in the running kernel, by aa-enabled (0 yes; 1, 3, 4 no, with its reason). */
export async function readAppArmor(host: Host): Promise<AppArmorKernel> {
  const r = await host.run('aa-enabled', []);
  return { enabled: r.code === 0, answer: ((r.stdout.trim() || r.stderr.trim()).split('\n')[0] ?? '').slice(0, 200), code: r.code };
}

export const appArmorStatus = action({
  name: 'AppArmorStatus',
  family: 'security',
  description: 'Show the AppArmor profiles loaded in the kernel and their modes (aa-status); on a host where AppArmor is not enabled, aa-enabled says so and why.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readAppArmor(host),
  preview: (_p, cur) => ({
    summary: cur.enabled ? 'Read the loaded AppArmor profiles and their modes (aa-status)' : `AppArmor is not enabled on this host (aa-enabled: ${cur.answer || `exit status ${cur.code}`}); read that answer`,
    change: null,
    warnings: cur.enabled ? [] : ['no AppArmor profile confines anything on this host while AppArmor is not enabled in the kernel'],
  }),
  // aa-status exits 2 when AppArmor is on but no policy is loaded: an answer, not a failure.
  mechanism: (_p, cur) => [cur.enabled ? command('aa-status', [], { okCodes: [0, 2] }) : command('aa-enabled', [], { okCodes: [1, 2, 3, 4] })],
});

export type ProfileMode = 'enforce' | 'complain' | 'mixed';

/** The mode of the profiles a file declares (top-level `profile NAME ... {` or `/path ... {` blocks), or null when it declares none. */
export function profileMode(text: string): ProfileMode | null {
  let depth = 0;
  const complain: boolean[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || line === '') continue;
    const code = line.replace(/\s#.*$/, '');
    if (depth === 0 && code.endsWith('{') && /^(profile\s|\/|@\{|")/.test(code)) {
      const flags = /flags\s*=\s*\(([^)]*)\)/.exec(code)?.[1] ?? '';
      complain.push(flags.split(/[\s,]+/).includes('complain'));
    }
    depth += (code.match(/\{/g) ?? []).length - (code.match(/\}/g) ?? []).length;
    if (depth < 0) depth = 0;
  }
  if (complain.length === 0) return null;
  return complain.every(Boolean) ? 'complain' : complain.some(Boolean) ? 'mixed' : 'enforce';
}

interface ProfileState {
  path: string;
  kind: 'file' | 'missing' | 'other';
  mode: ProfileMode | null;
  disabled: boolean;
  utils: boolean;
  kernel: AppArmorKernel;
}

export const setAppArmorMode = action({
  name: 'SetAppArmorMode',
  family: 'security',
  description: `Put an AppArmor profile of ${APPARMOR_D} in complain or enforce mode (aa-complain/aa-enforce from apparmor-utils), then reload it, or only check it where AppArmor is not enabled.`,
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ profile: appArmorProfile, mode: z.enum(['complain', 'enforce']) }),
  files: [],
  example: { profile: 'usr.sbin.cupsd', mode: 'complain' },
  current: async ({ profile }, host): Promise<ProfileState> => {
    const path = `${APPARMOR_D}/${profile}`;
    await host.trustedPath(path); // aa-complain, aa-enforce and apparmor_parser edit and load it by name
    const st = await host.stat(path);
    const kind = st === null ? 'missing' : st.isFile ? 'file' : 'other';
    const text = kind === 'file' ? await host.readFile(path) : null;
    return {
      path,
      kind,
      mode: text === null ? null : profileMode(text),
      disabled: (await host.stat(`${APPARMOR_D}/disable/${profile}`)) !== null,
      utils: (await usable(host, 'aa-complain')) && (await usable(host, 'aa-enforce')),
      kernel: await readAppArmor(host),
    };
  },
  check: ({ profile, mode }, cur) => {
    if (!cur.utils) {
      throw new AirlockError('unsupported_platform', 'apparmor_utils_missing', 'aa-complain and aa-enforce are not installed on this host (they come with apparmor-utils)', 'install apparmor-utils (InstallPackage), then preview again');
    }
    if (cur.kind === 'missing') throw new AirlockError('validation', 'no_such_profile', `there is no ${cur.path}`, 'AppArmorStatus lists the loaded profiles');
    if (cur.kind === 'other') throw new AirlockError('validation', 'not_a_profile', `${cur.path} is not a regular file (a directory or a link)`);
    if (cur.mode === null) throw new AirlockError('validation', 'not_a_profile', `${cur.path} declares no profile (it may be an abstraction or a tunable)`);
    if (cur.disabled) throw new AirlockError('conflict', 'profile_disabled', `${profile} is disabled (${APPARMOR_D}/disable/${profile} exists), so no mode of it is loaded`, 'a person enables it by hand');
    if (cur.mode === mode) throw new AirlockError('conflict', 'already_in_mode', `${profile} is already in ${mode} mode`);
  },
  preview: ({ profile, mode }, cur) => ({
    summary: `Put AppArmor profile ${profile} in ${mode} mode (now ${cur.mode ?? 'unknown'})${cur.kernel.enabled ? ' and reload it' : ''}`,
    change: {
      profile: cur.path,
      mode: { from: cur.mode, to: mode },
      edits: mode === 'complain' ? 'adds complain to the flags=(...) of its profile lines' : 'removes complain from the flags=(...) of its profile lines',
      then: cur.kernel.enabled ? `apparmor_parser -r reloads ${cur.path} into the kernel` : `apparmor_parser -Q only checks ${cur.path}: AppArmor is not enabled in this kernel`,
    },
    sideEffects: [
      mode === 'complain'
        ? 'the programs it confines are no longer blocked: what the profile forbids is only logged'
        : 'what the profile does not allow is blocked from now on: a program it does not fully describe may fail',
    ],
    warnings: cur.kernel.enabled ? [] : [`AppArmor is not enabled on this host (aa-enabled: ${cur.kernel.answer}): only the profile file changes; the mode applies once AppArmor is enabled and loads it`],
  }),
  mechanism: ({ mode }, cur) => {
    const set = (m: string) => command(m === 'complain' ? 'aa-complain' : 'aa-enforce', ['--no-reload', '--', cur.path], { paths: [cur.path] });
    return [
      { ...set(mode), undo: set(mode === 'complain' ? 'enforce' : 'complain') },
      // The kernel parses and loads the edited profile; where AppArmor is off, the parser still checks it (-Q: skip the kernel load, -K: no cache).
      command('apparmor_parser', cur.kernel.enabled ? ['-r', '--', cur.path] : ['-Q', '-K', '--', cur.path], { paths: [cur.path] }),
    ];
  },
});

// ================================================================ SELinux (Fedora and RHEL)

export const SELINUX_CONFIG = '/etc/selinux/config';
export const SELINUX_MODES = ['enforcing', 'permissive'] as const;
export type SelinuxMode = (typeof SELINUX_MODES)[number];
type SelinuxRuntime = 'Enforcing' | 'Permissive' | 'Disabled';

/** An SELinux boolean, as getsebool -a lists them (httpd_can_network_connect). */
export const selinuxBoolean = token(/^[a-z][a-z0-9_]{0,127}$/, 'SELinux boolean (lower-case letters, digits and _)', 128);

export interface SelinuxState {
  /** getenforce's answer; null where the SELinux tools are not installed. */
  runtime: SelinuxRuntime | null;
  /** /etc/selinux/config, or null when absent. */
  config: string | null;
  /** Indexes of its active `SELINUX=` lines (exactly one is what Airlock changes). */
  modeLines: number[];
  /** The mode that file sets for the next boot, when it sets exactly one. */
  configured: string | null;
}

const RUNTIMES: readonly string[] = ['Enforcing', 'Permissive', 'Disabled'];

export async function readSelinux(host: Host): Promise<SelinuxState> {
  let runtime: SelinuxRuntime | null = null;
  try {
    const r = await host.run('getenforce', []);
    const answer = r.stdout.trim();
    if (r.code === 0 && RUNTIMES.includes(answer)) runtime = answer as SelinuxRuntime;
  } catch (e) {
    if (!(e instanceof AirlockError && e.code === 'program_missing')) throw e;
  }
  const config = await host.readFile(SELINUX_CONFIG);
  const lines = config?.split('\n') ?? [];
  const modeLines = lines.flatMap((l, i) => (/^\s*SELINUX\s*=/.test(l) ? [i] : []));
  const configured = modeLines.length === 1 ? (/^\s*SELINUX\s*=\s*"?([a-z]*)"?\s*$/.exec(lines[modeLines[0]!]!)?.[1] ?? null) : null;
  return { runtime, config, modeLines, configured };
}

function refuseNoSelinux(cur: SelinuxState): void {
  if (cur.runtime === null) {
    throw new AirlockError('unsupported_platform', 'selinux_tools_missing', 'getenforce does not answer on this host: the SELinux tools (libselinux-utils, policycoreutils) are missing', 'install libselinux-utils and policycoreutils (InstallPackage)');
  }
  if (cur.runtime === 'Disabled') {
    throw new AirlockError('conflict', 'selinux_disabled', 'SELinux is disabled in the running kernel: turning it on takes a full relabel of the file systems and a reboot', 'a person does that at the console (fixfiles onboot, then reboot)');
  }
}

export const selinuxStatus = action({
  name: 'SelinuxStatus',
  family: 'security',
  description: 'Show whether SELinux is enforcing, permissive or disabled, its policy, and the mode the configuration sets for the next boot (sestatus).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: RHEL_LIKE,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readSelinux(host),
  shown: (cur) => ({ runtime: cur.runtime, configured: cur.configured }),
  check: (_p, cur) => {
    if (cur.runtime === null) refuseNoSelinux(cur);
  },
  preview: (_p, cur) => ({ summary: `SELinux status (now ${cur.runtime ?? 'unknown'}, configured ${cur.configured ?? 'unknown'} for the next boot)`, change: null }),
  // sestatus also answers (status disabled) where SELinux is off.
  mechanism: () => [command('sestatus', [])],
});

const setenforce = (mode: 'Enforcing' | 'Permissive') => command('setenforce', [mode]);
const runtimeOf = (mode: SelinuxMode) => (mode === 'enforcing' ? 'Enforcing' : 'Permissive');

export const setSelinuxMode = action({
  name: 'SetSelinuxMode',
  family: 'security',
  description: `Switch SELinux between enforcing and permissive now (setenforce) and for the next boot (the SELINUX= line of ${SELINUX_CONFIG}). Never disables it: that needs a reboot.`,
  risk: 'high',
  rollback: true,
  readOnly: false,
  platforms: RHEL_LIKE,
  params: params({
    mode: z.enum(SELINUX_MODES, 'mode is enforcing or permissive: disabling SELinux takes a reboot (and selinux=0 on the kernel command line on Fedora and RHEL 9), which Airlock does not do'),
  }),
  files: [SELINUX_CONFIG],
  example: { mode: 'enforcing' as const },
  current: (_p, host) => readSelinux(host),
  shown: (cur) => ({ runtime: cur.runtime, configured: cur.configured }),
  check: ({ mode }, cur) => {
    refuseNoSelinux(cur);
    if (cur.config === null) throw new AirlockError('validation', 'no_selinux_config', `${SELINUX_CONFIG} does not exist`, 'a person restores it from the selinux-policy package');
    if (cur.modeLines.length !== 1 || cur.configured === null) {
      throw new AirlockError('conflict', 'unrecognised_config', `${SELINUX_CONFIG} has ${cur.modeLines.length} active SELINUX= lines; Airlock changes exactly one that it can read`, 'a person fixes the file by hand');
    }
    if (cur.runtime === runtimeOf(mode) && cur.configured === mode) throw new AirlockError('conflict', 'already_set', `SELinux is already ${mode}, now and for the next boot`);
  },
  preview: ({ mode }, cur) => ({
    summary: `Set SELinux to ${mode} (now ${cur.runtime}, configured ${cur.configured})`,
    change: {
      now: { from: cur.runtime, to: runtimeOf(mode) },
      next_boot: { file: SELINUX_CONFIG, from: `SELINUX=${cur.configured}`, to: `SELINUX=${mode}` },
    },
    sideEffects: [
      mode === 'permissive'
        ? 'SELinux stops denying: what the policy forbids is only logged (AVC messages in the audit log)'
        : 'what the policy forbids is denied from now on: a service that runs with mislabelled files may fail',
    ],
    warnings: cur.configured === 'disabled' ? [`${SELINUX_CONFIG} said disabled (for the next boot): it now says ${mode}, so SELinux stays on after a reboot`] : [],
  }),
  // The file first: if setenforce then fails, the executor restores it.
  mechanism: ({ mode }, cur) => {
    const patch = cur.configured === mode ? null : linePatch(SELINUX_CONFIG, cur.config!, cur.modeLines[0]!, `SELINUX=${mode}`);
    const now = cur.runtime === runtimeOf(mode) ? null : { ...setenforce(runtimeOf(mode)), undo: setenforce(cur.runtime as 'Enforcing' | 'Permissive') };
    return [...(patch ? [patch] : []), ...(now ? [now] : [])];
  },
});

export const listSelinuxBooleans = {
  ...fixedRead({
    name: 'ListSelinuxBooleans',
    sensitive: false,
    reachesNetwork: false,
    family: 'security',
    description: 'List the SELinux booleans of the loaded policy and whether each is on or off (getsebool -a).',
    summary: 'List SELinux booleans (getsebool -a)',
    steps: [command('getsebool', ['-a'])],
  }),
  platforms: RHEL_LIKE,
};

/** `getsebool -- NAME`: "NAME --> on", with "pending: off" when a change waits for a policy commit. */
export function parseGetsebool(name: string, stdout: string): 'on' | 'off' | null {
  const m = /^(\S+) --> (on|off)(?: pending: (?:on|off))?$/m.exec(stdout.trim());
  return m && m[1] === name ? (m[2] as 'on' | 'off') : null;
}

const setsebool = (name: string, value: 'on' | 'off') => command('setsebool', ['-P', '--', name, value], { timeoutMs: 300_000 });

export const setSelinuxBoolean = action({
  name: 'SetSelinuxBoolean',
  family: 'security',
  description: 'Turn an SELinux boolean of the loaded policy on or off, now and across reboots (setsebool -P).',
  risk: 'high',
  rollback: true,
  readOnly: false,
  platforms: RHEL_LIKE,
  params: params({ name: selinuxBoolean, value: z.boolean() }),
  files: [],
  example: { name: 'httpd_can_network_connect', value: true },
  current: async ({ name }, host) => {
    const selinux = await readSelinux(host);
    const r = selinux.runtime === null || selinux.runtime === 'Disabled' ? null : await host.run('getsebool', ['--', name]);
    return { ...selinux, active: r && r.code === 0 ? parseGetsebool(name, r.stdout) : null };
  },
  shown: (cur) => ({ runtime: cur.runtime, active: cur.active }),
  check: ({ name }, cur) => {
    refuseNoSelinux(cur);
    if (cur.active === null) throw new AirlockError('validation', 'no_such_boolean', `the loaded SELinux policy has no boolean ${name}`, 'ListSelinuxBooleans lists them');
  },
  preview: ({ name, value }, cur) => {
    const to = value ? 'on' : 'off';
    return {
      summary: `Set SELinux boolean ${name} ${to} (now ${cur.active})`,
      change: { boolean: name, value: { from: cur.active, to }, persistent: 'setsebool -P writes it into the policy store, so it survives a reboot' },
      sideEffects: ['the policy is rebuilt and reloaded, which can take a minute'],
      // getsebool shows the running value only: the stored one may differ if someone set it without -P.
      warnings: cur.active === to ? [`${name} is already ${to} in the running policy: this makes sure it stays ${to} after a reboot`] : [],
    };
  },
  mechanism: ({ name, value }, cur) => [{ ...setsebool(name, value ? 'on' : 'off'), undo: setsebool(name, cur.active!) }],
});

// ================================================================ TLS certificates

/** Directories whose listing (names, link targets, sizes) ListCertificates shows. */
export const CERT_DIRS = ['/etc/ssl/certs', '/usr/local/share/ca-certificates', '/etc/letsencrypt/live'] as const;
/** What CertificateExpiry may be asked about. */
export const CERT_PATHS = [
  '/etc/ssl/certs/*',
  '/usr/local/share/ca-certificates/*',
  '/usr/local/share/ca-certificates/*/*',
  '/etc/letsencrypt/live/*/cert.pem',
  '/etc/letsencrypt/live/*/chain.pem',
  '/etc/letsencrypt/live/*/fullchain.pem',
];
/** Where a link among those may lead: the same places, the distribution's CA store and certbot's archive (never privkey*.pem). */
export const CERT_TARGETS = [
  ...CERT_PATHS,
  '/usr/share/ca-certificates/*/*',
  '/etc/letsencrypt/archive/*/cert*.pem',
  '/etc/letsencrypt/archive/*/chain*.pem',
  '/etc/letsencrypt/archive/*/fullchain*.pem',
];
/** key.pem, server.key, privkey1.pem, tls-key.crt: names of key files (a CA called WISeKey is not one). */
const looksLikeKey = (p: string) => /(^|[._-])(priv)?key([._\d-]|$)|privkey/i.test(posix.basename(p));
export const certificatePath = pathMatching(CERT_PATHS, 'certificate path')
  // Letters of any script (NetLock_Arany_=Class_Gold=_Főtanúsítvány.pem), digits and . _ = + @ , - only.
  .refine((p) => p.split('/').slice(1).every((seg) => /^[\p{L}\p{N}._=+@,][\p{L}\p{N}._=+@,-]*$/u.test(seg)), "certificate path may hold letters, digits and . _ = + @ , - only, and no part may start with '-'")
  .refine((p) => !looksLikeKey(p), 'a file named like a key (key.pem, *.key, privkey*.pem) is never read');
const MAX_LINKS = 8;
const MAX_CERT_BYTES = 1024 * 1024;

interface CertState {
  path: string;
  /** The regular file the links lead to; openssl reads exactly this file. */
  file: string;
  links: string[];
  size: number;
  certificates: number;
}

/** Follows `path` to a regular certificate file within CERT_TARGETS, refusing anything that could be a private key. */
async function readCertificate(path: string, host: Host): Promise<CertState> {
  let file = path;
  const links: string[] = [];
  for (;;) {
    const link = await firstSymlink(host, file);
    if (link === null) break;
    const refuse = (code: string, why: string) => new AirlockError('authorization', code, `${path}: ${why}`);
    if (link !== file) throw refuse('symlink_in_path', `${link} is a symbolic link to a directory; Airlock follows links to files only`);
    if (links.length >= MAX_LINKS) throw refuse('too_many_links', `more than ${MAX_LINKS} links to follow`);
    const next = await linkTarget(host, file);
    if (next === null) throw refuse('dangling_link', `${file} is a link Airlock cannot resolve`);
    links.push(file);
    file = next;
  }
  if (!CERT_TARGETS.some((g) => matchesGlob(file, g)) || looksLikeKey(file)) {
    throw new AirlockError('authorization', 'link_outside_allowlist', `${path} leads to ${file}, which is not a certificate location Airlock reads`);
  }
  await host.trustedPath(file); // openssl opens it by name
  const st = await host.stat(file);
  if (!st) throw new AirlockError('validation', 'no_such_file', `${file} does not exist`);
  if (!st.isFile) throw new AirlockError('validation', 'not_a_file', `${file} is not a regular file`);
  if (st.size > MAX_CERT_BYTES) throw new AirlockError('validation', 'too_large', `${file} is ${st.size} bytes: not a certificate file`);
  const text = (await host.readFile(file)) ?? '';
  // The bytes stay here: the preview shows counts, never content.
  if (/PRIVATE KEY/.test(text)) throw new AirlockError('authorization', 'holds_private_key', `${file} holds a private key; Airlock does not read such a file as a certificate`);
  if (!text.trimStart().startsWith('-----BEGIN CERTIFICATE-----')) throw new AirlockError('validation', 'not_a_certificate', `${file} does not begin with a PEM certificate`);
  return { path, file, links, size: st.size, certificates: occurrences(text, '-----BEGIN CERTIFICATE-----') };
}

export const certificateExpiry = action({
  name: 'CertificateExpiry',
  family: 'security',
  description: 'Show the subject, issuer and validity dates of a PEM certificate under /etc/ssl/certs, /usr/local/share/ca-certificates or /etc/letsencrypt/live (links followed within those; key files refused).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ path: certificatePath }),
  files: CERT_TARGETS,
  example: { path: '/etc/letsencrypt/live/example.org/fullchain.pem' },
  current: ({ path }, host) => readCertificate(path, host),
  preview: ({ path }, cur) => ({
    summary: `Read the subject, issuer and dates of ${path}${cur.file !== path ? ` (${cur.file})` : ''}`,
    change: null,
    warnings: cur.certificates > 1 ? [`${cur.file} holds ${cur.certificates} certificates; openssl shows the first (the server's own in a fullchain.pem)`] : [],
  }),
  mechanism: (_p, cur) => [command('openssl', ['x509', '-noout', '-subject', '-issuer', '-startdate', '-enddate', '-in', cur.file], { paths: [cur.file] })],
});

export const listCertificates = action({
  name: 'ListCertificates',
  family: 'security',
  description: `List the certificate files (and the links to them) of one of: ${CERT_DIRS.join(', ')}.`,
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ dir: z.enum(CERT_DIRS) }),
  files: [...CERT_DIRS],
  example: { dir: '/etc/ssl/certs' },
  current: async ({ dir }, host) => {
    await host.trustedPath(dir); // ls lists it by name
    return { stat: await host.stat(dir), link: await firstSymlink(host, dir) };
  },
  shown: (cur) => ({ exists: cur.stat !== null, link: cur.link }),
  check: ({ dir }, cur) => {
    if (cur.link) throw new AirlockError('authorization', 'symlink_in_path', `${cur.link} is a symbolic link; Airlock lists real directories only`);
    if (!cur.stat) throw new AirlockError('validation', 'no_such_directory', `${dir} does not exist on this host`);
    if (!cur.stat.isDir) throw new AirlockError('validation', 'not_a_directory', `${dir} is not a directory`);
  },
  preview: ({ dir }) => ({ summary: `List ${dir}`, change: null }),
  // -b escapes non-printable characters, so a crafted file name cannot forge output lines.
  mechanism: ({ dir }) => [command('ls', ['-l', '-b', '--time-style=long-iso', '--', dir], { paths: [dir] })],
});
