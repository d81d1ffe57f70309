/**
 * The password ageing defaults of /etc/login.defs (PASS_MAX_DAYS, PASS_MIN_DAYS,
 * PASS_WARN_AGE), which useradd copies into /etc/shadow for new accounts. Changed on
 * their existing lines only, one exact line each, every other line kept.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { fileScan, type FilePatchStep } from '../../mechanism.js';
import { days, params } from '../../params.js';
import { applyPatch, linePatch } from '../../lib/line-patch.js';
import { exact } from '../../rollback.js';

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
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
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
    if (changes.length === 0) return unchanged(`${LOGIN_DEFS} already has ${describeAging(cur)}`);
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
