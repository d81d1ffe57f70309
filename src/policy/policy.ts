/**
 * The human's policy, /etc/airlock/policy.toml: which exact actions the daemon may
 * approve by itself (never above Medium, with a cooldown and a daily cap per rule),
 * which risks to raise (never lower), who is unattended (proposes, never acts),
 * when a second factor is needed, and whom to notify. Parsing and matching only:
 * the daemon decides when the file is read (at start and on a root reload), and
 * `airlock policy check` explains the same parse to a person.
 */
import { createHash } from 'node:crypto';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import type { AnyAction } from '../catalogue/action.js';
import { CATALOGUE } from '../catalogue/index.js';
import { LOGIN_NAME } from '../catalogue/params.js';
import { RISKS, riskRank, type Risk } from '../protocol/risk.js';
import { isGlob, ruleProblem } from './rule-params.js';
import { PSEUDONYM_CLASSES, type PseudonymClass } from '../mask/pseudonyms.js';
import { AuditSchema, auditSettings, explainAudit, type AuditSettings } from './audit-sinks.js';
import { explainStore, StoreSchema, storeSettings, type StoreSettings } from './store-settings.js';
import { explainPasskeys, PasskeysSchema, passkeySettings, type PasskeySettings } from './passkey-settings.js';
import { ConsoleSchema, consoleSettings, explainConsole, type ConsoleSettings } from './console-settings.js';

/** Rules never approve above this: High always waits for a person. */
export const RULE_MAX_RISK: Risk = 'medium';
/** The rule id under which the daemon approves non-sensitive reads (`reads = "auto"`; which ones: autoApprovalLane in src/daemon/authz.ts). */
export const READS_RULE = 'reads';
/**
 * The rule id under which the daemon approves a request whose desired state already holds:
 * its preview says "no change" and nothing runs (autoApprovalLane; docs/security.md says why that is safe).
 */
export const NO_CHANGE_RULE = 'no-change';
/** The rule id an auto-approval names when a person's session grant approved it (src/daemon/session-grants.ts): no rule of the policy may take it. */
export const SESSION_RULE = 'session';

/**
 * The changes that declare `runsPrograms` (src/catalogue/action.ts, the one place that says which).
 * A rule on one of these is allowed, but `policy check` warns: it is as wide as what those programs do.
 */
export const RUNS_PROGRAMS: readonly string[] = [...CATALOGUE.values()].filter((a) => !a.readOnly && a.runsPrograms).map((a) => a.name);

const ruleId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'a rule id is 1 to 40 lower-case letters, digits and -');
/** A parameter constraint: a literal (string, number, boolean) or a glob string with * and ?. */
const constraint = z.union([z.string().max(512), z.number(), z.boolean()]);

const RuleSchema = z.strictObject({
  id: ruleId,
  action: z.string(),
  params: z.record(z.string(), constraint).default({}),
  cooldown_minutes: z.number().int().min(0).max(7 * 24 * 60),
  daily_cap: z.number().int().min(1).max(10_000),
});

const PolicySchema = z.strictObject({
  reads: z.enum(['auto', 'ask']).default('auto'),
  unattended: z.array(z.string().regex(LOGIN_NAME, 'a login name')).default([]),
  approval: z
    .strictObject({
      second_factor_from: z.enum(['high', 'medium']).default('high'),
      // How many distinct persons approve a High transaction (as Vault's control groups): 1 or 2, never more
      // than a small host has approvers for, and never 0 (High always waits for a person).
      high: z.union([z.literal(1), z.literal(2)], { error: 'high is 1 or 2: how many distinct persons approve a High transaction' }).default(1),
    })
    .default({ second_factor_from: 'high', high: 1 }),
  risk: z.record(z.string(), z.enum(RISKS)).default({}),
  rule: z.array(RuleSchema).default([]),
  masking: z.strictObject({ pseudonyms: z.array(z.enum(PSEUDONYM_CLASSES)).max(PSEUDONYM_CLASSES.length).default([]) }).default({ pseudonyms: [] }),
  notify: z
    .strictObject({
      command: z.array(z.string().min(1).max(4096)).min(1).max(32).optional(),
      webhook: z.url({ protocol: /^https?$/ }).optional(),
      /** An ntfy topic's URL (https://ntfy.example.org/airlock-alice): a push to the person's phone (src/daemon/ntfy.ts). */
      ntfy: z.url({ protocol: /^https?$/ }).optional(),
      /** A root-only file holding the topic's access token (sent as Authorization: Bearer): the policy may be read by anyone. */
      ntfy_token_file: z.string().regex(/^\/[^\0]*$/, 'an absolute path').max(4096).optional(),
    })
    .refine((n) => n.ntfy_token_file === undefined || n.ntfy !== undefined, 'ntfy_token_file is the token of the ntfy topic: name the topic (ntfy = "https://...") too')
    .default({}),
  audit: AuditSchema,
  store: StoreSchema,
  passkeys: PasskeysSchema,
  console: ConsoleSchema,
});

export interface Rule {
  id: string;
  action: string;
  params: Record<string, string | number | boolean>;
  /** Parameters the rule need not list: free text its action's `ruleScope` bounds by what the rule names. */
  free: readonly string[];
  cooldownMs: number;
  dailyCap: number;
}

export interface Policy {
  /** sha256:HEX of the file's bytes ("" for the built-in default): what the log records. */
  digest: string;
  source: 'default' | 'file';
  reads: 'auto' | 'ask';
  unattended: string[];
  secondFactorFrom: 'high' | 'medium';
  /** How many distinct persons must approve a High transaction ([approval] high; 1 by default). */
  highApprovers: 1 | 2;
  riskOverrides: Map<string, Risk>;
  rules: Rule[];
  notify: { command?: string[]; webhook?: string; ntfy?: string; ntfy_token_file?: string };
  /** What besides secrets becomes a keyed pseudonym in what clients see ([masking] pseudonyms; none by default). */
  pseudonyms: PseudonymClass[];
  /** Where signed tree heads go besides the local file ([audit]). */
  audit: AuditSettings;
  /** Retention, archival and free-space limits of the store ([store]). */
  store: StoreSettings;
  /** Where passkey ceremonies come from and which approvals need one ([passkeys]). */
  passkeys: PasskeySettings;
  /** The web console's account, address and sign-in length ([console]). */
  console: ConsoleSettings;
}

export class PolicyError extends Error {}

export const policyDigest = (bytes: string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The policy in force when there is no file: non-sensitive reads are approved by the daemon, nothing else. */
export const DEFAULT_POLICY: Policy = parsePolicy('', 'default');

/** Parses and validates policy text; every mistake is a PolicyError naming where it is. */
export function parsePolicy(text: string, source: 'default' | 'file' = 'file'): Policy {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (e) {
    throw new PolicyError(`not valid TOML: ${(e as Error).message.split('\n')[0]}`);
  }
  const r = PolicySchema.safeParse(raw);
  if (!r.success) throw new PolicyError(z.prettifyError(r.error).replace(/\n/g, '; '));
  const p = r.data;
  const audit = auditSettings(p.audit);
  if (typeof audit === 'string') throw new PolicyError(`[audit]: ${audit}`);
  const store = storeSettings(p.store);
  if (typeof store === 'string') throw new PolicyError(`[store]: ${store}`);
  const passkeys = passkeySettings(p.passkeys);
  if (typeof passkeys === 'string') throw new PolicyError(`[passkeys]: ${passkeys}`);
  const consoleIn = consoleSettings(p.console, passkeys.origins);
  if (typeof consoleIn === 'string') throw new PolicyError(`[console]: ${consoleIn}`);
  const riskOverrides = new Map<string, Risk>();
  for (const [name, risk] of Object.entries(p.risk)) {
    const a = CATALOGUE.get(name);
    if (!a) throw new PolicyError(`[risk]: no action named ${name}`);
    if (riskRank(risk) < riskRank(a.risk)) throw new PolicyError(`[risk]: ${name} is ${a.risk}; an override may raise a risk, never lower it to ${risk}`);
    riskOverrides.set(name, risk);
  }
  const effectiveRisk = (a: AnyAction) => riskOverrides.get(a.name) ?? a.risk;
  const seen = new Set<string>([READS_RULE, NO_CHANGE_RULE, SESSION_RULE]);
  const rules = p.rule.map((rule): Rule => {
    const where = `rule ${rule.id}`;
    if (seen.has(rule.id)) throw new PolicyError(`${where}: the id is used twice (or is the reserved "${READS_RULE}", "${NO_CHANGE_RULE}" or "${SESSION_RULE}")`);
    seen.add(rule.id);
    const a = CATALOGUE.get(rule.action);
    if (!a) throw new PolicyError(`${where}: no action named ${rule.action}`);
    if (riskRank(effectiveRisk(a)) > riskRank(RULE_MAX_RISK)) throw new PolicyError(`${where}: ${a.name} is ${effectiveRisk(a)} risk; rules approve ${RULE_MAX_RISK} at most, High always waits for a person`);
    for (const [key, value] of Object.entries(rule.params)) {
      if (typeof value === 'string') globProblem(value, (m) => new PolicyError(`${where}: params.${key}: ${m}`));
    }
    // A rule the daemon could never apply (a list parameter, a wrong type, a value the action refuses) is an error, not a rule.
    const problem = ruleProblem(a, rule.params);
    if (problem) throw new PolicyError(`${where}: ${problem}`);
    // Free text no rule could constrain (an edit's content) is bounded by what the rule names by its literal value (the grant).
    const scope = a.ruleScope;
    if (scope && !(typeof rule.params[scope.named] === 'string' && !isGlob(rule.params[scope.named] as string))) {
      throw new PolicyError(`${where}: a rule for ${a.name} names its ${scope.named} by its exact value (params.${scope.named} = "..."), which bounds ${scope.free.join(', ')}`);
    }
    return { id: rule.id, action: a.name, params: rule.params, free: scope?.free ?? [], cooldownMs: rule.cooldown_minutes * 60_000, dailyCap: rule.daily_cap };
  });
  return {
    digest: policyDigest(text),
    source,
    reads: p.reads,
    unattended: p.unattended,
    secondFactorFrom: p.approval.second_factor_from,
    highApprovers: p.approval.high,
    riskOverrides,
    rules,
    notify: p.notify,
    pseudonyms: [...new Set(p.masking.pseudonyms)],
    audit,
    store,
    passkeys,
    console: consoleIn,
  };
}

/** A glob whose fixed start says little: under 3 characters, or a top-level directory such as /etc/. */
const isWideGlob = (s: string) => {
  if (!isGlob(s)) return false;
  const fixed = s.slice(0, s.search(/[*?]/));
  return fixed.length < 3 || /^\/[a-z]*\/?$/.test(fixed);
};

/** Refuses glob text that could match an option or climb a directory whatever it is matched against. */
function globProblem(glob: string, err: (m: string) => Error): void {
  if (/[\u0000-\u001f]/.test(glob)) throw err('control characters are not allowed');
  if (!isGlob(glob)) return;
  if (/^[*?]/.test(glob)) throw err(`the glob ${JSON.stringify(glob)} starts with a wildcard, so it could match an option (-x) or any path: start it with fixed text`);
  if (glob.split('/').some((seg) => seg === '..' || seg === '.')) throw err('a glob must not contain . or .. segments');
}

/**
 * Whether one request value meets one constraint. A glob's `*` and `?` never match
 * '/', so `/srv/www/*` stays inside /srv/www; and a value that looks like an option
 * or holds a . or .. segment never matches a glob, whatever the glob says.
 */
export function valueMatches(value: unknown, want: string | number | boolean): boolean {
  if (typeof want !== 'string' || !isGlob(want)) return value === want;
  if (typeof value !== 'string') return false;
  if (/^[-+]/.test(value) || value.split('/').some((s) => s === '..' || s === '.') || /[\u0000-\u001f]/.test(value)) return false;
  const re = new RegExp(`^${want.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
  return re.test(value);
}

/**
 * Why `rule` does not cover this request, in a person's words, or null when it does (same
 * parameter names, each value meeting its constraint). `show` quotes a request value (the
 * daemon masks and escapes it: it is the agent's text).
 */
export function ruleMismatch(rule: Rule, params: Record<string, unknown>, show: (name: string, value: unknown) => string = (_n, v) => JSON.stringify(v)): string | null {
  const extra = Object.keys(params).filter((k) => !(k in rule.params) && !rule.free.includes(k));
  if (extra.length) return `the request sets ${extra.map((k) => `\`${k}\``).join(', ')}, which the rule does not list`;
  const missing = Object.keys(rule.params).filter((k) => !(k in params));
  if (missing.length) return `the rule needs ${missing.map((k) => `\`${k}\``).join(', ')}, which the request does not set`;
  for (const [k, want] of Object.entries(rule.params)) {
    if (valueMatches(params[k], want)) continue;
    const how = typeof want === 'string' && isGlob(want) ? `outside ${JSON.stringify(want)}` : `not ${JSON.stringify(want)}`;
    return `parameter \`${k}\` is ${show(k, params[k])}, ${how}`;
  }
  return null;
}

/**
 * How many distinct persons must approve a transaction of this stored risk under this policy:
 * [approval] high for High, one below. Read at each approval, so a reload between two approvals
 * applies to the next one (docs/security.md section 3).
 */
export const approvalsNeeded = (policy: Policy, risk: Risk): number => (risk === 'high' ? policy.highApprovers : 1);

/** The rule that covers this request exactly (same parameter names, each value meeting its constraint), if any. */
export function matchingRule(policy: Policy, action: string, params: Record<string, unknown>): Rule | null {
  return policy.rules.find((rule) => rule.action === action && ruleMismatch(rule, params) === null) ?? null;
}

/** One line per rule and setting for a person, with warnings for the dangerous ones. */
export function explainPolicy(policy: Policy): { lines: string[]; warnings: string[] } {
  const lines: string[] = [];
  const warnings: string[] = [];
  lines.push(policy.source === 'default' ? 'no policy file: the built-in default applies' : `policy ${policy.digest}`);
  lines.push(policy.reads === 'auto' ? `reads: low-risk reads declared non-sensitive are approved by the daemon (rule "${READS_RULE}"); sensitive reads wait for a person, and so do reads that reach the network when a token principal asks` : 'reads: every read waits for a person');
  lines.push(`no change: a change whose desired state already holds is approved by the daemon (rule "${NO_CHANGE_RULE}"), at any risk: nothing runs`);
  lines.push(`second factor: TOTP code required from ${policy.secondFactorFrom} risk up`);
  lines.push(
    policy.highApprovers === 2
      ? 'high risk: two distinct persons must approve; the receipt is minted only after the second ([approval] high = 2)'
      : 'high risk: one person approves ([approval] high = 2 asks two distinct persons)',
  );
  for (const [name, risk] of policy.riskOverrides) lines.push(`risk: ${name} raised from ${CATALOGUE.get(name)!.risk} to ${risk}`);
  if (policy.unattended.length) lines.push(`unattended (propose only, never approved): ${policy.unattended.join(', ')}`);
  for (const r of policy.rules) {
    const constraints = Object.entries(r.params).map(([k, v]) => `${k} ${typeof v === 'string' && isGlob(v) ? 'matches' : '='} ${JSON.stringify(v)}`);
    lines.push(`rule ${r.id}: approves ${r.action}${constraints.length ? ` when ${constraints.join(' and ')}` : ' with no parameters'}, at most once every ${r.cooldownMs / 60_000} min and ${r.dailyCap} times a day`);
    if (RUNS_PROGRAMS.includes(r.action)) warnings.push(`rule ${r.id}: ${r.action} makes the host run programs (scripts, units, containers, jobs); the rule is as wide as what they do`);
    for (const [k, v] of Object.entries(r.params)) {
      if (typeof v === 'string' && isWideGlob(v)) warnings.push(`rule ${r.id}: params.${k} ${JSON.stringify(v)} is a wide glob: name the values you mean`);
    }
    const a = CATALOGUE.get(r.action)!;
    const unlisted = Object.keys((a.params as unknown as { shape?: Record<string, unknown> }).shape ?? {}).filter((k) => !(k in r.params) && !r.free.includes(k));
    if (unlisted.length) lines.push(`  (a request that sets ${unlisted.join(', ')} is not covered)`);
    if (r.free.length) lines.push(`  (any ${r.free.filter((k) => !(k in r.params)).join(', ')}: bounded by the ${a.ruleScope!.named} it names)`);
  }
  if (policy.notify.command) lines.push(`notify: runs ${JSON.stringify(policy.notify.command)} (no shell) with the summary on stdin`);
  if (policy.notify.webhook) lines.push(`notify: POSTs the summary as JSON to ${policy.notify.webhook}`);
  if (policy.notify.ntfy) lines.push(`notify: pushes a message to the ntfy topic ${policy.notify.ntfy} (a tap opens the console's page)${policy.notify.ntfy_token_file ? `, with the access token in ${policy.notify.ntfy_token_file}` : ''}`);
  lines.push(
    policy.pseudonyms.length
      ? `masking: secrets become ⟦secret:KIND⟧, and ${policy.pseudonyms.join(', ')} become keyed pseudonyms (the same value, the same pseudonym on this host)`
      : 'masking: secrets become ⟦secret:KIND⟧; addresses and names are shown as they are ([masking] pseudonyms = ["email", "ip", "hostname"] to hide them)',
  );
  lines.push(...explainAudit(policy.audit));
  lines.push(...explainStore(policy.store));
  lines.push(...explainPasskeys(policy.passkeys));
  lines.push(explainConsole(policy.console));
  return { lines, warnings };
}
