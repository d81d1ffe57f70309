/**
 * The password quality policy: libpwquality's pwquality.conf and its pwquality.conf.d
 * drop-ins (read in byte order, then pwquality.conf, the last setting of an option
 * winning), and the arguments of the pam_pwquality.so line of common-password, which
 * override every file. SetPasswordPolicy changes an option on its existing line of
 * pwquality.conf when that file sets it (the only change that has any effect then),
 * else in Airlock's own drop-in.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { fileScan, fileWrite, type Step } from '../../mechanism.js';
import { params } from '../../params.js';
import { dpkgEntries } from '../../lib/apt.js';
import { appendLine, linePatch, withoutLines } from '../../lib/line-patch.js';
import { regularFilesIn, ROOT } from './host-paths.js';
import { exact } from '../../rollback.js';

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
  // Our drop-in without its lines for this option and without trailing blank lines, then the new line at the end.
  const kept = (ours ? withoutLines(ours.text, old.map((x) => x.line)) : DROP_IN_HEADER).replace(/\n+$/, '');
  const content = line ? appendLine(kept, line) : `${kept}\n`;
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
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
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
      return unchanged(`${s.option} is already ${String(s.value)} (from ${cur.effective[s.option].from})`);
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
