/**
 * What the package manager would do, asked before anything changes: apt's own simulation
 * (`apt-get -s`, which takes no lock) and, on Fedora and RHEL, the lists dnf answers from
 * its metadata cache (`check-update`, `repoquery --unneeded`, `--whatrequires`), read into
 * the same shape so previews and refusals are written once. dnf is then given each build
 * of the list as NAME-EVR.ARCH, so it acts on exactly the approved set and on no pattern.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { CommandOutput, Host } from '../../action.js';
import { firstError, parseKeptBack, parseSimulation, type Simulation } from '../../lib/apt.js';
import { parseCheckUpdate, parseUnneeded, rpmEntries, UNNEEDED_FORMAT, type Nevra } from '../../lib/dnf.js';
import { packageManager, type PackageManager } from './manager.js';

/** Asks apt what `install`/`remove` of this exact spec would do. Takes no lock. apt's refusal is a conflict. */
export async function simulate(host: Host, verb: 'install' | 'remove', opts: string[], spec: string): Promise<Simulation> {
  const r = await host.run('apt-get', ['-s', verb, ...opts, '--', spec]);
  if (r.code !== 0) {
    throw new AirlockError('conflict', 'apt_refuses', `apt cannot ${verb} ${spec}: ${firstError(r.stderr) || 'see apt-get output'}`, 'resolve the dependency problem apt reports, then preview again');
  }
  return parseSimulation(r.stdout);
}

/**
 * What `dnf remove` of `name` takes with it: the installed packages that require it, directly
 * or not (repoquery --whatrequires --recursive; dnf keeps any whose need another package meets).
 */
export async function dnfDependents(host: Host, name: string): Promise<{ name: string; version: string }[]> {
  const r = await host.run('dnf', ['--cacheonly', 'repoquery', '--installed', `--whatrequires=${name}`, '--recursive', '--queryformat=%{name} %{evr}\n']);
  if (r.code !== 0) throw new AirlockError('execution', 'dnf_failed', `dnf repoquery failed: ${firstError(r.stderr)}`);
  const seen = new Map<string, string>();
  for (const [n, evr] of r.stdout.split('\n').map((l) => l.trim().split(' '))) if (n && evr && n !== name) seen.set(n, evr);
  return [...seen].map(([n, version]) => ({ name: n, version }));
}

/** `apt-get -s VERB`: apt's own plan. Takes no lock; apt's refusal is a conflict. */
async function aptPlan(host: Host, verb: 'upgrade' | 'autoremove', opts: string[]): Promise<{ sim: Simulation; keptBack: string[] }> {
  const r = await host.run('apt-get', ['-s', verb, ...opts]);
  if (r.code !== 0) {
    throw new AirlockError('conflict', 'apt_refuses', `apt cannot ${verb}: ${firstError(r.stderr) || 'see apt-get output'}`, 'resolve the problem apt reports (dpkg --audit may help), then preview again');
  }
  return { sim: parseSimulation(r.stdout), keptBack: parseKeptBack(r.stdout) };
}

/**
 * A dnf read from its metadata cache only (no network, no lock). `answers` are the exit
 * codes that are answers (check-update: 100 = upgrades available); any other is a cache
 * dnf cannot use, which AptUpdate (dnf makecache) refreshes.
 */
async function dnfCached(host: Host, args: string[], answers: number[] = [0]): Promise<CommandOutput> {
  const r = await host.run('dnf', ['--cacheonly', ...args]);
  if (!answers.includes(r.code)) {
    throw new AirlockError('execution', 'dnf_cache_unreadable', `dnf could not answer from its metadata cache: ${firstError(r.stderr)}`, 'refresh the metadata with AptUpdate (dnf makecache)');
  }
  return r;
}

/** The plan a manager makes, as apt's simulation describes it, and the exact builds dnf is given. */
export interface Plan {
  manager: PackageManager;
  sim: Simulation;
  keptBack: string[];
  /** dnf: the builds the mechanism names. apt: none (the change binds its set). */
  builds: Nevra[];
}

/** dnf's upgrades, with the installed version(s) of each from rpm (several for kernels, which are installed side by side). */
async function dnfUpgradePlan(host: Host): Promise<Plan> {
  const r = await dnfCached(host, ['check-update'], [0, 100]);
  const { upgrades, keptBack } = r.code === 100 ? parseCheckUpdate(r.stdout) : { upgrades: [], keptBack: [] };
  if (r.code === 100 && upgrades.length === 0 && keptBack.length === 0) {
    throw new AirlockError('execution', 'dnf_output_unreadable', 'dnf check-update reports upgrades, but Airlock could not read which', 'ListUpgradable shows what dnf lists');
  }
  const installed = await rpmEntries(host, [...new Set(upgrades.map((p) => p.name))]);
  const from = (p: Nevra) => {
    const same = installed.filter((e) => e.name === p.name);
    const arch = same.filter((e) => e.arch === p.arch);
    return (arch.length ? arch : same).map((e) => e.version).join(', ') || '(not installed)';
  };
  const sim = { install: [], remove: [], upgrade: upgrades.map((p) => ({ name: `${p.name}.${p.arch}`, from: from(p), to: p.evr })) };
  return { manager: 'dnf', sim, keptBack, builds: upgrades };
}

async function dnfAutoremovePlan(host: Host): Promise<Plan> {
  const builds = parseUnneeded((await dnfCached(host, ['repoquery', '--unneeded', UNNEEDED_FORMAT])).stdout);
  return { manager: 'dnf', sim: { install: [], upgrade: [], remove: builds.map((p) => ({ name: p.name, version: p.evr })) }, keptBack: [], builds };
}

/** The plan for an upgrade or an autoremove on this host, from the package manager it has. */
export async function plan(host: Host, verb: 'upgrade' | 'autoremove', aptOpts: string[]): Promise<Plan> {
  const manager = packageManager(host.platform);
  if (manager === 'dnf') return verb === 'upgrade' ? dnfUpgradePlan(host) : dnfAutoremovePlan(host);
  return { manager, ...(await aptPlan(host, verb, aptOpts)), builds: [] };
}
