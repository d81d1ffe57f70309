/** What an installed package holds: its files, whether they still match the package database, and which package owns a path. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS, type Host, type ReadDeclaration } from '../../action.js';
import { command, type Step } from '../../mechanism.js';
import { absolutePath, params } from '../../params.js';
import type { DpkgEntry } from '../../lib/apt.js';
import { linkTarget } from '../../lib/host-files.js';
import { anyPackageName, packageManager, stepsFor, type PackageManager } from './manager.js';
import { installedState, requireInstalled } from './state.js';

/** dpkg needs name:arch when several architectures of a package are installed (libc6:amd64 and libc6:i386). */
function dpkgInstances(cur: { name: string; dpkg: DpkgEntry[] }): string[] {
  const inst = cur.dpkg.filter((e) => e.status === 'installed');
  if (inst.length <= 1) return [cur.name];
  for (const e of inst) if (!/^[a-z0-9-]{1,32}$/.test(e.arch)) throw new AirlockError('execution', 'odd_arch', `dpkg reports architecture ${JSON.stringify(e.arch)} for ${cur.name}`);
  return inst.map((e) => `${cur.name}:${e.arch}`);
}

/** A low read about one installed package: its state, a refusal when it is not installed, its steps per manager. */
function installedPackageRead(
  spec: { name: string; description: string; summary: (name: string) => string; steps: Record<PackageManager, (name: string, cur: Awaited<ReturnType<typeof installedState>>) => Step[]> } & Omit<ReadDeclaration, 'readOnly'>,
) {
  return action({
    name: spec.name,
    family: 'packages',
    description: spec.description,
    risk: 'low',
    readOnly: true,
    sensitive: spec.sensitive,
    reachesNetwork: spec.reachesNetwork,
    platforms: ALL_PLATFORMS,
    params: params({ package: anyPackageName }),
    files: [],
    example: { package: 'openssh-server' },
    current: ({ package: name }, host) => installedState(host, name),
    check: (_p, cur) => requireInstalled(cur),
    preview: ({ package: name }) => ({ summary: spec.summary(name), change: null }),
    mechanism: ({ package: name }, cur) => spec.steps[cur.manager](name, cur),
  });
}

export const listPackageFiles = installedPackageRead({
  name: 'ListPackageFiles',
  sensitive: false,
  reachesNetwork: false,
  description: 'List the files an installed package put on this host (dpkg-query --listfiles; rpm --query --list).',
  summary: (name) => `List the files of ${name}`,
  steps: {
    apt: (_name, cur) => [command('dpkg-query', ['--listfiles', '--', ...dpkgInstances(cur)])],
    dnf: (name) => [command('rpm', ['--query', '--list', '--', name])],
  },
});

export const verifyPackage = installedPackageRead({
  name: 'VerifyPackage',
  sensitive: false,
  reachesNetwork: false,
  description: "Check an installed package's files against the package database (checksums; rpm also size, mode, owner): dpkg --verify, rpm --verify. Lists only what differs.",
  summary: (name) => `Verify the installed files of ${name}`,
  steps: {
    apt: (_name, cur) => [command('dpkg', ['--verify', '--', ...dpkgInstances(cur)])],
    // rpm exits 1 when a file differs: that is the answer asked for.
    dnf: (name) => [command('rpm', ['--verify', '--', name], { okCodes: [0, 1] })],
  },
});

/**
 * A path to look up in the package database: absolute, normalised, and without the glob
 * characters dpkg-query --search would expand, nor spaces.
 */
export const ownedPath = absolutePath
  .refine((p) => /^(\/[A-Za-z0-9._+@,:~%=-]+)+$/.test(p), 'path may hold letters, digits and . _ + @ , : ~ % = - between slashes (no glob characters or spaces)')
  .describe('an absolute path, e.g. /usr/bin/ssh');

const MERGED_DIRS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/**
 * Where dpkg may have recorded `path`: on a merged-/usr host (/bin -> usr/bin) packages
 * built before the merge list /bin/ls, others /usr/bin/ls, and both name the same file.
 */
async function dpkgSpellings(host: Host, path: string): Promise<string[]> {
  const m = /^(\/usr)?\/([a-z0-9]+)(\/.+)$/.exec(path);
  if (!m || !MERGED_DIRS.includes(m[2]!)) return [path];
  if ((await linkTarget(host, `/${m[2]}`)) !== `/usr/${m[2]}`) return [path];
  return [path, m[1] ? `/${m[2]}${m[3]}` : `/usr/${m[2]}${m[3]}`];
}

export const whichPackageOwns = action({
  name: 'WhichPackageOwns',
  family: 'packages',
  description: 'Name the installed package that owns a file (dpkg-query --search, also under the other spelling on a merged-/usr host; rpm --query --file). No package owning it is an answer, not a failure: dpkg then prints nothing, rpm says so.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({ path: ownedPath }),
  files: [],
  example: { path: '/usr/sbin/sshd' },
  current: async ({ path }, host) => {
    const manager = packageManager(host.platform);
    return { manager, spellings: manager === 'apt' ? await dpkgSpellings(host, path) : [path] };
  },
  preview: ({ path }, cur) => ({ summary: `Find the package that owns ${path}${cur.spellings.length > 1 ? ` (dpkg may list it as ${cur.spellings[1]})` : ''}`, change: null }),
  // Run as nobody: rpm looks at the file itself, and must not tell whether a path under /root exists.
  mechanism: ({ path }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('dpkg-query', ['--search', '--', ...cur.spellings], { okCodes: [0, 1], unprivileged: true })],
      dnf: () => [command('rpm', ['--query', '--file', '--', path], { okCodes: [0, 1], unprivileged: true })],
    }),
});
