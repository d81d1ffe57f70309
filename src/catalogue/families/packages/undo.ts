/**
 * How the packages family puts installed packages back (issue 27): what dpkg and apt say of the
 * packages a change touches, read before it (version, architecture, apt's automatic mark), and
 * the commands that bring that back.
 *
 * - A package a change installs new is purged (`dpkg --purge`), which leaves dpkg as if it had
 *   never been there. dpkg, not apt: it acts on exactly the packages named and refuses when
 *   another installed package still needs one, where apt would remove that one too.
 * - A package a change removes or upgrades is installed again at its exact former version from
 *   the .deb apt downloaded it as (apt-get keeps them in /var/cache/apt/archives). Without that
 *   file the former version may no longer exist anywhere, so there is no undo and the preview
 *   says a revert will not be possible. dpkg installs exactly those files, in one run (it orders
 *   them by their dependencies), downgrading where needed; stdin is closed and the admin's
 *   configuration files are kept, as for apt (./manager.ts).
 * - dpkg knows nothing of apt's automatic marks, and apt forgets the mark of a package it
 *   removes: `apt-mark auto` sets them back after the reinstall. Undos run last step first, so
 *   that one is the undo of a step before the change: `apt-mark showauto`, which changes nothing
 *   and shows the marks it records. An install that also upgrades packages has two undos the
 *   same way: the purge is its own, the downgrade that of a `dpkg-query` step before it.
 *
 * The state probes read the same things: dpkg's line for each package and apt's automatic marks,
 * and the .deb files an undo needs (one deleted since refuses the revert as drifted).
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import type { StateProbe } from '../../rollback.js';
import { dpkgEntries, requireDebianVersion } from '../../lib/apt.js';

export const APT_ARCHIVES = '/var/cache/apt/archives';
/** A package reinstall or purge may run maintainer scripts for a while, as an install does. */
const DPKG_TIMEOUT_MS = 600_000;

/**
 * dpkg's line for a package. The newline is dpkg-query's own escape (a backslash and an n), not a
 * newline character: the probes go to clients escaped, and a control character would not read back.
 */
const PKG_LINE = '--showformat=${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\\n';

/** A package as apt's simulation names it: NAME, or NAME:ARCH for another architecture's. */
const SIM_NAME = /^[a-z0-9][a-z0-9+.-]{0,99}(:[a-z0-9-]{1,32})?$/;
const ARCH = /^[a-z0-9-]{1,32}$/;

export function requireSimName(name: string): string {
  if (!SIM_NAME.test(name)) throw new AirlockError('execution', 'odd_package', `apt reports a package ${JSON.stringify(name)}, which Airlock will not pass on`);
  return name;
}

/** The file apt keeps a downloaded package as: NAME_VERSION_ARCH.deb, the epoch's ':' escaped as %3a. */
export const debFile = (name: string, version: string, arch: string) => `${APT_ARCHIVES}/${name.replace(/:.*$/, '')}_${version.replace(/:/g, '%3a')}_${arch}.deb`;

/**
 * dpkg's line for each package (arch, version, selection and status) and apt's automatic marks:
 * what a packages change alters. On a dnf host, rpm's line for each (what is installed).
 */
export function packageProbes(names: readonly string[], manager: 'apt' | 'dnf' = 'apt'): StateProbe[] {
  const sorted = [...new Set(names)].sort();
  if (sorted.length === 0) return [];
  if (manager === 'dnf') return [{ program: 'rpm', args: ['--query', '--queryformat=%{NAME}.%{ARCH} %{EVR}\\n', '--', ...sorted] }];
  return [
    { program: 'dpkg-query', args: ['-W', PKG_LINE, '--', ...sorted] },
    { program: 'apt-mark', args: ['showauto', '--', ...sorted] },
  ];
}

/**
 * The .deb files an undo installs, by name: one deleted since (apt-get clean) reads as a change,
 * so a revert that could no longer run is refused as drifted rather than failing half-way.
 */
export const debProbes = (prev: readonly PreviousPackage[]): StateProbe[] =>
  prev.length && notRestorable(prev) === null ? [{ program: 'ls', args: ['-1', '--', ...prev.map((p) => p.deb!)] }] : [];

/** One installed package as a change found it. */
export interface PreviousPackage {
  /** As apt's simulation names it (NAME or NAME:ARCH). */
  name: string;
  version: string;
  /** apt installed it as a dependency (apt-mark showauto). */
  auto: boolean;
  /** The .deb apt would have kept it as; null when its architecture could not be told. */
  deb: string | null;
  /** The .deb is in apt's archive cache, so this version can be installed again. */
  kept: boolean;
}

/**
 * The installed packages a change will remove or replace, as they are now: each one's
 * architecture (dpkg's native one for a name without a qualifier), its automatic mark and
 * whether apt still has its .deb. `pkgs` are apt's names and the installed versions it printed.
 * What cannot be read makes the change one without an undo (the preview says so), never a refusal.
 */
export async function previousPackages(host: Host, pkgs: ReadonlyArray<{ name: string; version: string }>): Promise<PreviousPackage[]> {
  if (pkgs.length === 0) return [];
  for (const p of pkgs) requireSimName(p.name);
  const printed = await host.run('dpkg', ['--print-architecture']);
  const native = printed.code === 0 && ARCH.test(printed.stdout.trim()) ? printed.stdout.trim() : null;
  const entries = await dpkgEntries(host, [...new Set(pkgs.map((p) => p.name))]);
  const marks = await host.run('apt-mark', ['showauto', '--', ...new Set(pkgs.map((p) => p.name))]);
  const auto = new Set(marks.code === 0 ? marks.stdout.split('\n').map((l) => l.trim()) : []);
  const out: PreviousPackage[] = [];
  for (const p of pkgs) {
    const [base, qualifier] = p.name.split(':') as [string, string | undefined];
    // A name without a qualifier is the native architecture's (or an Architecture: all package).
    const matching = entries.filter((x) => x.name === base && x.status === 'installed' && (qualifier ? x.arch === qualifier : native === null || x.arch === native || x.arch === 'all'));
    const e = matching.length === 1 ? matching[0] : undefined;
    const version = requireDebianVersion(p.name, e?.version ?? p.version);
    const arch = e?.arch ?? qualifier ?? native;
    if (arch !== null && !ARCH.test(arch)) throw new AirlockError('execution', 'odd_arch', `dpkg reports architecture ${JSON.stringify(arch)} for ${p.name}`);
    const deb = arch === null ? null : debFile(p.name, version, arch);
    out.push({ name: p.name, version, auto: auto.has(p.name) || auto.has(base), deb, kept: deb !== null && (await host.stat(deb))?.isFile === true });
  }
  return out;
}

/** Why these packages cannot be put back (their .deb files are gone), for the preview; null when they can. */
export function notRestorable(prev: readonly PreviousPackage[]): string | null {
  const gone = prev.filter((p) => !p.kept);
  if (gone.length === 0) return null;
  return `a revert will not be possible: apt no longer has the .deb of ${gone.map((p) => `${p.name} ${p.version}`).join(', ')} in ${APT_ARCHIVES}, so that version cannot be installed again`;
}

/** dpkg installing exactly these former versions again (downgrading where a newer one is installed). */
export function reinstall(prev: readonly PreviousPackage[]): CommandStep {
  const debs = prev.map((p) => p.deb!);
  return command('dpkg', ['--force-confdef', '--force-confold', '--install', '--', ...debs], { paths: debs, resource: 'dpkg', timeoutMs: DPKG_TIMEOUT_MS });
}

/** dpkg purging exactly these packages, which were not there before; it refuses if another package now needs one. */
export const purge = (names: readonly string[]): CommandStep => command('dpkg', ['--purge', '--', ...names.map(requireSimName)], { resource: 'dpkg', timeoutMs: DPKG_TIMEOUT_MS });

/**
 * The step to run before a change that removes packages apt installed as dependencies: it shows
 * their marks, and its undo (which runs after the reinstall, undos going last step first) sets
 * them again. None when no such package is among them.
 */
export function autoMarks(prev: readonly PreviousPackage[]): CommandStep[] {
  const auto = prev.filter((p) => p.auto).map((p) => p.name);
  if (auto.length === 0) return [];
  return [command('apt-mark', ['showauto', '--', ...auto], { undo: command('apt-mark', ['auto', '--', ...auto], { resource: 'dpkg' }) })];
}

/**
 * A step that changes nothing (it shows dpkg's lines for these packages) and carries `undo`,
 * for a change with two undos of which this one must run last.
 */
export const showing = (names: readonly string[], undo: CommandStep): CommandStep =>
  command('dpkg-query', ['-W', PKG_LINE, '--', ...names.map(requireSimName)], { okCodes: [0, 1], undo });

/** What undoes an install: the new packages purged, and those it upgraded put back; or why nothing can. */
export interface InstallUndo {
  /** Packages the install adds (apt's names). */
  added: string[];
  /** Installed packages it upgrades, as they are now. */
  upgraded: PreviousPackage[];
  /** Why a revert will not be possible; null when it will. */
  impossible: string | null;
}

/**
 * Reads what undoing an install (apt's simulation of it) needs. A package dpkg already has
 * an entry for (configuration files left by a removal) cannot be taken back to that entry
 * by a purge, which would delete those files too: such an install has no undo.
 */
export async function installUndo(host: Host, sim: { install: Array<{ name: string }>; upgrade: Array<{ name: string; from: string }> }): Promise<InstallUndo> {
  const added = sim.install.map((p) => requireSimName(p.name));
  const upgraded = await previousPackages(host, sim.upgrade.map((u) => ({ name: u.name, version: u.from })));
  const known = (await dpkgEntries(host, [...new Set(added.map((n) => n.replace(/:.*$/, '')))])).map((e) => `${e.name} (${e.status} ${e.version})`);
  const impossible = known.length
    ? `a revert will not be possible: dpkg still has ${known.join(', ')}, which a purge would not leave as it is`
    : notRestorable(upgraded);
  return { added, upgraded, impossible };
}

/** The install command with its undo (and, before it, the step carrying the downgrades), or as it is when it has none. */
export function withInstallUndo(main: CommandStep, u: InstallUndo): CommandStep[] {
  if (u.impossible !== null || u.added.length === 0) return [main];
  return [...(u.upgraded.length ? [showing(u.upgraded.map((p) => p.name), reinstall(u.upgraded))] : []), { ...main, undo: purge(u.added) }];
}

/**
 * A removing or upgrading command with its undo (the former versions installed again, then, for
 * a removal, their automatic marks), or as it is when it has none. An upgrade keeps the marks,
 * and so does dpkg installing the former version over the new one.
 */
export function withReinstallUndo(main: CommandStep, prev: readonly PreviousPackage[], opts: { removes: boolean }): CommandStep[] {
  if (prev.length === 0 || notRestorable(prev) !== null) return [main];
  return [...(opts.removes ? autoMarks(prev) : []), { ...main, undo: reinstall(prev) }];
}
