/**
 * rpm and dnf as the families read them (Fedora and RHEL): what rpm has installed, what
 * dnf's metadata cache offers (repoquery, repolist, check-update) and the builds dnf names.
 * Every name, version and architecture dnf prints is checked before it can reach an argv:
 * dnf's argv carries no `--` (dnf5 refuses it), so no word may start with '-'.
 */
import { AirlockError } from '../../protocol/errors.js';
import type { Host } from '../action.js';
import { firstError, oddVersion, type DpkgEntry } from './apt.js';

/** An RPM [epoch:]version-release as rpm and dnf print it. */
export const RPM_EVR = /^([0-9]{1,10}:)?[0-9A-Za-z._+~^]{1,64}-[0-9A-Za-z._+~^]{1,64}$/;
/** An RPM architecture as rpm and dnf print it (x86_64, noarch, i686). */
export const ARCH = /^[A-Za-z0-9_]{1,32}$/;
/** An RPM name as dnf prints it; never starting with '-', so dnf cannot take it for an option (its argv has no `--`). */
const RPM_NAME = /^[A-Za-z0-9_][A-Za-z0-9_+.-]{0,99}$/;

export function requireEvr(name: string, evr: string): string {
  if (!RPM_EVR.test(evr)) throw oddVersion('dnf', name, evr);
  return evr;
}

// ---------------------------------------------------------------- installed packages: rpm

/** rpm's EVR, with the epoch only when the package has one (as dnf prints it). */
const RPM_FORMAT = '%{NAME}\t%{ARCH}\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\n';

/** Lines of `rpm --query --queryformat=RPM_FORMAT` for exactly these names (rpm also matches name-version forms). */
export function parseRpmEntries(stdout: string, names: string[]): DpkgEntry[] {
  return stdout
    .split('\n')
    .map((l) => l.split('\t'))
    .filter((f) => f.length === 3 && names.includes(f[0]!))
    .map(([name, arch, version]) => ({ name: name!, arch: arch!, version: version!, want: 'install', status: 'installed', essential: false, priority: '' }));
}

export async function rpmEntries(host: Host, names: string[]): Promise<DpkgEntry[]> {
  if (names.length === 0) return [];
  const r = await host.run('rpm', ['--query', `--queryformat=${RPM_FORMAT}`, '--', ...names]);
  // The exit status counts the names not installed ("package X is not installed" on stdout): an answer. Errors go to stderr.
  if (/^error:/m.test(r.stderr)) throw new AirlockError('execution', 'rpm_query_failed', `rpm --query failed: ${firstError(r.stderr)}`);
  return parseRpmEntries(r.stdout, names);
}

// ---------------------------------------------------------------- what dnf offers

/** A version dnf offers in its metadata cache. */
export interface DnfCandidate {
  arch: string;
  evr: string;
}

/**
 * The newest available build of exactly `name` from `repoquery --latest-limit=1` ("name arch evr"
 * lines, one per architecture): the installed architecture's, else a native one over 32-bit multilib.
 */
export function parseRepoquery(name: string, stdout: string, installedArch?: string): DnfCandidate | null {
  const all = stdout
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter((f) => f.length === 3 && f[0] === name)
    .map(([, arch, evr]) => ({ arch: arch!, evr: evr! }));
  return all.find((c) => c.arch === installedArch) ?? all.find((c) => c.arch !== 'i686') ?? all[0] ?? null;
}

const DNF_REPO_ID = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Repository ids of `dnf repolist --enabled` (a header line "repo id  repo name", then one repository per line). */
export function parseRepolist(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => !/^repo id\b/.test(l))
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((id) => DNF_REPO_ID.test(id));
}

// ---------------------------------------------------------------- exact builds: NAME-EVR.ARCH

/** One build dnf names exactly; a mechanism passes it as NAME-[EPOCH:]VERSION-RELEASE.ARCH, never as a pattern. */
export interface Nevra {
  name: string;
  evr: string;
  arch: string;
}
export const nevraSpec = (p: Nevra) => `${p.name}-${p.evr}.${p.arch}`;

/** A build dnf reported, checked before it can reach an argv. */
function readNevra(name: string, evr: string, arch: string): Nevra {
  if (!RPM_NAME.test(name) || !ARCH.test(arch)) {
    throw new AirlockError('execution', 'odd_package', `dnf reports a package ${JSON.stringify(`${name}.${arch}`)}, which Airlock will not pass on`);
  }
  return { name, evr: requireEvr(name, evr), arch };
}

const NAME_ARCH = /^(.+)\.([^.]+)$/;

/**
 * What `dnf check-update` lists: one "NAME.ARCH EVR REPO" line per upgrade (dnf4 puts a long
 * NAME.ARCH on a line of its own and the rest, indented, on the next); then, under "Obsoleting
 * packages", each package that replaces installed ones, with those indented below it. Other
 * lines (metadata age, security notices) have other fields, or no NAME.ARCH first.
 *
 * An obsoleting package removes what it obsoletes, a removal the preview would not show: like
 * apt's plain upgrade with what needs a removal, it is kept back (dnf5 lists it in both places).
 */
export function parseCheckUpdate(stdout: string): { upgrades: Nevra[]; keptBack: string[] } {
  const lines = stdout.split('\n');
  const listed: Nevra[] = [];
  const keptBack: string[] = [];
  let obsoleting = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^Obsoleting packages/i.test(line)) obsoleting = true;
    let f = line.trim().split(/\s+/);
    const na = NAME_ARCH.exec(f[0]!);
    if (obsoleting) {
      // The replacing package starts its line; what it replaces is indented.
      if (na && !/^\s/.test(line) && (f.length === 1 || f.length === 3) && RPM_NAME.test(na[1]!) && ARCH.test(na[2]!)) keptBack.push(f[0]!);
      continue;
    }
    const wrapped = lines[i + 1]?.match(/^\s+(\S+)\s+(\S+)\s*$/);
    if (f.length === 1 && wrapped) {
      f = [f[0]!, wrapped[1]!, wrapped[2]!];
      i++;
    }
    if (na && f.length === 3) listed.push(readNevra(na[1]!, f[1]!, na[2]!));
  }
  return { upgrades: listed.filter((p) => !keptBack.includes(`${p.name}.${p.arch}`)), keptBack };
}

/**
 * One argv element, no shell: dnf5 expands the `\n` escape but not `\t`, and dnf4 takes the real
 * newline this string holds (adding one of its own). The architecture tells the builds of a
 * multilib package apart: removing libfoo-1.0-1 by name and version alone would take the other,
 * needed, architecture and what requires it.
 */
export const UNNEEDED_FORMAT = '--queryformat=%{name} %{evr} %{arch}\n';

/** `dnf repoquery --unneeded` in UNNEEDED_FORMAT: "NAME EVR ARCH" lines (dnf4 adds blank lines). */
export function parseUnneeded(stdout: string): Nevra[] {
  return stdout
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter((f) => f.length === 3)
    .map(([name, evr, arch]) => readNevra(name!, evr!, arch!));
}
