/** Reads of the package database and the manager's lists: what is installed, what could be upgraded, one package's versions and record. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS, type Host, type ReadDeclaration } from '../../action.js';
import { command, type Step } from '../../mechanism.js';
import { params } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { anyPackageName, APT_TIMEOUT_MS, installedVersion, packageManager, stepsFor, type PackageManager } from './manager.js';
import { packageState, requireKnown } from './state.js';

/**
 * A parameterless read whose steps depend only on the package manager: declared like
 * fixedRead, with the manager as its state so the preview shows which one runs.
 */
function managerRead(spec: { name: string; description: string; summary: string; steps: Record<PackageManager, Step[]> } & Omit<ReadDeclaration, 'readOnly'>) {
  return {
    ...fixedRead({ ...spec, family: 'packages', steps: spec.steps.apt }),
    platforms: ALL_PLATFORMS,
    current: async (_p: Record<string, never>, host: Host) => ({ manager: packageManager(host.platform) }),
    mechanism: (_p: Record<string, never>, cur: { manager: PackageManager }) => structuredClone(spec.steps[cur.manager]),
  };
}

/** rpm's answer in the same shape as dpkg's: name, version, architecture. */
const RPM_LIST_FORMAT = '%{NAME} %|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE} %{ARCH}\n';

export const listInstalledPackages = managerRead({
  name: 'ListInstalledPackages',
  sensitive: false,
  reachesNetwork: false,
  description: 'List the installed packages with their version (dpkg: with their state, ii = installed, rc = removed, config kept; rpm: with their architecture).',
  summary: 'List installed packages (package database)',
  steps: {
    apt: [command('dpkg-query', ['-W', '--showformat=${db:Status-Abbrev} ${binary:Package} ${Version}\n'])],
    dnf: [command('rpm', ['--query', '--all', `--queryformat=${RPM_LIST_FORMAT}`])],
  },
});

export const listUpgradable = managerRead({
  name: 'ListUpgradable',
  sensitive: false,
  reachesNetwork: false,
  description: 'Show what an upgrade would do now, without changing anything: `apt-get -s upgrade` ("Inst NAME [OLD] (NEW ...)" lines), or `dnf check-update` from the metadata cache.',
  summary: 'List upgradable packages (as of the last AptUpdate)',
  steps: {
    // A simulation takes no dpkg lock, so it needs no resource.
    apt: [command('apt-get', ['-s', 'upgrade'], { timeoutMs: APT_TIMEOUT_MS })],
    // check-update exits 100 when there are updates: an answer, not a failure.
    dnf: [command('dnf', ['--cacheonly', 'check-update'], { okCodes: [0, 100], timeoutMs: APT_TIMEOUT_MS })],
  },
});

export const packagePolicy = action({
  name: 'PackagePolicy',
  family: 'packages',
  description: "Show a package's installed and candidate versions and the repositories offering it (apt-cache policy; dnf list --showduplicates).",
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({ package: anyPackageName }),
  files: [],
  example: { package: 'openssl' },
  current: ({ package: name }, host) => packageState(host, name),
  check: (_p, cur) => requireKnown(cur),
  preview: ({ package: name }, cur) => ({
    summary: `Show the versions of ${name} (installed ${installedVersion(cur.dpkg) ?? 'no'}, candidate ${cur.policy.candidate ?? 'none'})`,
    change: null,
  }),
  mechanism: ({ package: name }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-cache', ['policy', '--', name])],
      dnf: () => [command('dnf', ['--cacheonly', 'list', '--showduplicates', name])],
    }),
});

export const packageInfo = action({
  name: 'PackageInfo',
  family: 'packages',
  description: "Show a package's record: description, dependencies, size, maintainer (apt-cache show; dnf info).",
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({ package: anyPackageName }),
  files: [],
  example: { package: 'openssl' },
  current: ({ package: name }, host) => packageState(host, name),
  check: ({ package: name }, cur) => {
    requireKnown(cur);
    if (!cur.policy.candidate && !cur.policy.installed) {
      throw new AirlockError('validation', 'no_versions', `${name} has no version to describe (a virtual package, or removed and no longer in the repositories)`, 'PackagePolicy shows what the package manager knows of it');
    }
  },
  preview: ({ package: name }) => ({ summary: `Show the package record of ${name}`, change: null }),
  mechanism: ({ package: name }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-cache', ['show', '--', name])],
      dnf: () => [command('dnf', ['--cacheonly', 'info', name])],
    }),
});
