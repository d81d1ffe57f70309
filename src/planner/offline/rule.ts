/**
 * What one intent rule is: the words that trigger it and how it fills a step from the
 * clause's other words. The planner picks, for each clause, the rule whose triggers cover
 * the most words (so "restart the web container" is the container rule, not the service
 * one); rules of one family live in one file under rules/.
 */
import type { HostContext, PlanStep } from '../contract.js';
import { Clause, NAME, PACKAGE, UNIT, UNIT_BASE, type Token } from './words.js';

/** What the clauses of one intent share: the names said so far, for "its logs", "then start it". */
export interface Context {
  host: HostContext;
  /** Debian-like (apt, ssh.service) or RHEL-like (dnf, sshd.service). */
  rhel: boolean;
  last: { unit?: string; user?: string; container?: string; package?: string; group?: string };
  /** The package `last.unit` was taken from ("install nginx and start it"): said in the notes when "it" is read as its service. */
  unitOfPackage?: string;
  /** Plain sentences for the report's notes: what the planner assumed. */
  assumed: string[];
}

/**
 * What a rule made of its clause: steps, and any part of the clause it could not fill
 * ("create bob with this key" and no key written: the account, and the key missing); or
 * only what is missing.
 */
export type Built = { steps: PlanStep[]; missing?: string[] } | { missing: string };

export interface Rule {
  /** family.what, e.g. "services.restart". */
  id: string;
  /** Each group: synonyms (a word or a phrase); one of every group must be in the clause. */
  when: readonly (readonly string[])[];
  /** Any of these in the clause and the rule does not apply. */
  unless?: readonly string[];
  /** Words the rule understands without needing them ("service", "package"): taken when present. */
  also?: readonly string[];
  /** A rule that needs a value to apply at all (a port for "open port 443"). */
  needs?: (c: Clause) => boolean;
  build(c: Clause, ctx: Context): Built;
}

/** A rule, written as a declaration. */
export function rule(id: string, when: Rule['when'], build: Rule['build'], opts: Omit<Rule, 'id' | 'when' | 'build'> = {}): Rule {
  return { id, when, build, ...opts };
}

export function step(action_name: string, params: Record<string, unknown>, reason: string): PlanStep {
  return { action_name, params, reason };
}

export function steps(...s: PlanStep[]): Built {
  return { steps: s };
}

export function missing(what: string): Built {
  return { missing: what };
}

/** Steps, and the parts of the same clause that no step could carry out. */
export function partly(s: PlanStep[], missingParts: string[]): Built {
  return missingParts.length > 0 ? { steps: s, missing: missingParts } : { steps: s };
}

/**
 * The systemd unit a package installs, where its name is not the package's (Debian's):
 * any other package is taken to install NAME.service, said in the notes when it is used.
 */
const PACKAGE_UNITS: Record<string, { debian: string; rhel: string }> = {
  'openssh-server': { debian: 'ssh.service', rhel: 'sshd.service' },
  'docker.io': { debian: 'docker.service', rhel: 'docker.service' },
  'docker-ce': { debian: 'docker.service', rhel: 'docker.service' },
  'mariadb-server': { debian: 'mariadb.service', rhel: 'mariadb.service' },
  'mysql-server': { debian: 'mysql.service', rhel: 'mysqld.service' },
  'postgresql-server': { debian: 'postgresql.service', rhel: 'postgresql.service' },
  apache2: { debian: 'apache2.service', rhel: 'httpd.service' },
  httpd: { debian: 'apache2.service', rhel: 'httpd.service' },
  bind9: { debian: 'named.service', rhel: 'named.service' },
  'isc-dhcp-server': { debian: 'isc-dhcp-server.service', rhel: 'dhcpd.service' },
};

/** A package named: "it" in a later clause may be its service ("install nginx and start it"). */
export function rememberPackage(ctx: Context, pkg: string): void {
  ctx.last.package = pkg;
  const known = PACKAGE_UNITS[pkg];
  const unit = known ? known[ctx.rhel ? 'rhel' : 'debian'] : `${pkg}.service`;
  if (UNIT.test(unit)) {
    ctx.last.unit = unit;
    ctx.unitOfPackage = pkg;
  }
}

/** Service names people say, to the unit each distribution calls it. */
const UNIT_ALIASES: Record<string, { debian: string; rhel: string }> = {
  ssh: { debian: 'ssh.service', rhel: 'sshd.service' },
  sshd: { debian: 'ssh.service', rhel: 'sshd.service' },
  openssh: { debian: 'ssh.service', rhel: 'sshd.service' },
  apache: { debian: 'apache2.service', rhel: 'httpd.service' },
  apache2: { debian: 'apache2.service', rhel: 'httpd.service' },
  httpd: { debian: 'apache2.service', rhel: 'httpd.service' },
  cron: { debian: 'cron.service', rhel: 'crond.service' },
  crond: { debian: 'cron.service', rhel: 'crond.service' },
  postgres: { debian: 'postgresql.service', rhel: 'postgresql.service' },
  mysql: { debian: 'mysql.service', rhel: 'mysqld.service' },
  journald: { debian: 'systemd-journald.service', rhel: 'systemd-journald.service' },
  timesyncd: { debian: 'systemd-timesyncd.service', rhel: 'chronyd.service' },
  resolved: { debian: 'systemd-resolved.service', rhel: 'systemd-resolved.service' },
  php: { debian: 'php8.2-fpm.service', rhel: 'php-fpm.service' },
};

/** Pronouns that point at the unit, user or container a previous clause named. */
const BACK_REFERENCES = ['its', 'it', 'them', 'his', 'her', 'their', 'that', 'the same'];

/**
 * The unit a clause names: a full unit name as written, a name people use for a service
 * ("ssh" -> ssh.service on Debian, sshd.service on RHEL), any other plain name with
 * ".service" added (said in the notes), or the unit of an earlier clause ("its logs").
 */
export function takeUnit(c: Clause, ctx: Context, where: (i: number) => boolean = () => true): string | null {
  const full = c.takeToken((t, i) => where(i) && !t.literal && UNIT.test(t.raw));
  if (full !== null) return rememberUnit(ctx, full);
  const alias = c.takeToken((t, i) => where(i) && !t.literal && UNIT_ALIASES[t.low] !== undefined);
  if (alias !== null) {
    const unit = UNIT_ALIASES[alias.toLowerCase()]![ctx.rhel ? 'rhel' : 'debian'];
    if (unit !== `${alias.toLowerCase()}.service`) ctx.assumed.push(`"${alias}" is ${unit} on this distribution`);
    return rememberUnit(ctx, unit);
  }
  if (ctx.last.unit !== undefined && c.tokens.some((t, i) => where(i) && !t.used && BACK_REFERENCES.includes(t.low)) && c.takeAny(BACK_REFERENCES)) {
    if (ctx.unitOfPackage !== undefined) ctx.assumed.push(`took "it" as ${ctx.last.unit}, the service of the package ${ctx.unitOfPackage}`);
    return ctx.last.unit;
  }
  const plain = c.takeToken((t, i) => where(i) && c.isName(t) && UNIT_BASE.test(t.low) && !/^\d+$/.test(t.low));
  if (plain !== null) {
    const unit = `${plain.toLowerCase()}.service`;
    ctx.assumed.push(`took "${plain}" as the unit ${unit}`);
    return rememberUnit(ctx, unit);
  }
  return null;
}

/** A unit named outright: "it" is this unit now, not a package's. */
function rememberUnit(ctx: Context, unit: string): string {
  ctx.unitOfPackage = undefined;
  return remember(ctx, 'unit', unit);
}

/** A token right after "and" or a comma: where a list of names goes on ("nginx, php-fpm and redis"). */
export function listed(c: Clause): (i: number) => boolean {
  return (i) => i > 0 && (c.tokens[i - 1]!.low === 'and' || c.tokens[i - 1]!.comma);
}

/** Every unit a clause names: the first, then those listed after it ("restart nginx and php-fpm"). */
export function takeUnits(c: Clause, ctx: Context): string[] {
  const first = takeUnit(c, ctx);
  if (first === null) return [];
  const units = [first];
  for (let u = takeUnit(c, ctx, listed(c)); u !== null && units.length < 16; u = takeUnit(c, ctx, listed(c))) if (!units.includes(u)) units.push(u);
  return units;
}

function nameToken(c: Clause, t: Token): boolean {
  return c.isName(t) && NAME.test(t.low) && !/^\d+$/.test(t.low);
}

/**
 * The user a clause names: after "user"/"account"/"for"/"as", a possessive ("alice's"),
 * or the first plain name; an earlier clause's user for "his", "her", "their".
 */
export function takeUser(c: Clause, ctx: Context): string | null {
  const t = c.after(['user', 'account', 'for', 'as', 'login'], (x) => nameToken(c, x)) ?? c.takeToken((x) => nameToken(c, x) && /['’]s$/.test(x.raw)) ?? c.takeToken((x) => nameToken(c, x));
  if (t !== null) return remember(ctx, 'user', t.toLowerCase().replace(/['’]s$/, ''));
  if (ctx.last.user !== undefined && c.takeAny(['his', 'her', 'their', 'them', 'him', 'that user'])) return ctx.last.user;
  return null;
}

/** Every user a clause names: the first, then those listed after it ("put alice and bob in it"). */
export function takeUsers(c: Clause, ctx: Context): string[] {
  const first = takeUser(c, ctx);
  if (first === null) return [];
  const users = [first];
  const more = listed(c);
  for (let u = c.takeToken((t, i) => more(i) && nameToken(c, t)); u !== null && users.length < 16; u = c.takeToken((t, i) => more(i) && nameToken(c, t))) {
    const name = u.toLowerCase();
    if (!users.includes(name)) users.push(name);
  }
  ctx.last.user = users[users.length - 1];
  return users;
}

/** The group a clause names: "docker group", "group docker", "to docker". */
export function takeGroup(c: Clause): string | null {
  const g = c.before(['group', 'groups'], (x) => nameToken(c, x)) ?? c.after(['group', 'groups'], (x) => nameToken(c, x));
  return g === null ? null : g.toLowerCase();
}

/** Every package a clause names: the first, then those listed after it ("install htop, jq and curl"). */
export function takePackages(c: Clause, ctx: Context): string[] {
  const isPackage = (t: Token) => c.isName(t) && PACKAGE.test(t.low) && !/^\d+$/.test(t.low);
  const first = c.takeToken(isPackage);
  if (first === null) return [];
  const names = [first.toLowerCase()];
  const more = listed(c);
  for (let p = c.takeToken((t, i) => more(i) && isPackage(t)); p !== null && names.length < 16; p = c.takeToken((t, i) => more(i) && isPackage(t))) names.push(p.toLowerCase());
  rememberPackage(ctx, names[names.length - 1]!);
  return names;
}

export function takePackage(c: Clause, ctx: Context): string | null {
  const p = c.takeToken((t) => c.isName(t) && PACKAGE.test(t.low) && !/^\d+$/.test(t.low));
  if (p !== null) {
    rememberPackage(ctx, p.toLowerCase());
    return p.toLowerCase();
  }
  if (ctx.last.package !== undefined && c.takeAny(BACK_REFERENCES)) return ctx.last.package;
  return null;
}

/** Keep the name a clause said, for the next clause's "it". */
export function remember<K extends keyof Context['last']>(ctx: Context, key: K, value: string): string {
  ctx.last[key] = value;
  return value;
}
