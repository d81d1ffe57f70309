/**
 * Version pins: apt preferences files Airlock owns (`/etc/apt/preferences.d/60-airlock-*.pref`).
 * apt reads the preferences back before the job counts as done: a file it cannot parse fails
 * the job, and the executor restores every file it wrote.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileDelete, fileWrite } from '../../mechanism.js';
import { packageName, params, token } from '../../params.js';
import { DEBIAN_VERSION, policyWithVersions, type PolicyWithVersions } from '../../lib/apt.js';
import { listDirectory } from '../../lib/host-files.js';
import { requireVersion } from './manager.js';
import { exact } from '../../rollback.js';

export const debianVersion = token(DEBIAN_VERSION, 'Debian version ([epoch:]upstream[-revision])', 128);

const PREFERENCES = '/etc/apt/preferences';
const PIN_DIR = '/etc/apt/preferences.d';
const PIN_PRIORITY = 1001;

/** apt silently skips preferences.d files whose name has other characters or another extension. */
const APT_READS_PREFERENCE = /^[A-Za-z0-9_.-]+$/;

/**
 * Airlock's pin file for a package. apt reads only names of [A-Za-z0-9_.-] that end in
 * ".pref" or have no dot at all, so the name ends in .pref and '+' becomes '_' (which never
 * occurs in a package name, so two packages never share a file).
 */
export const pinFile = (name: string) => `${PIN_DIR}/60-airlock-${name.replace(/\+/g, '_')}.pref`;
export const pinContent = (name: string, version: string) =>
  `Explanation: written by Airlock (PinPackageVersion); remove it with UnpinPackage\nPackage: ${name}\nPin: version ${version}\nPin-Priority: ${PIN_PRIORITY}\n`;
const pinnedVersion = (text: string | null) => (text === null ? null : (/^Pin: version (\S+)$/m.exec(text)?.[1] ?? null));

/** Other apt preferences files with a stanza naming this package (their pins and ours interact). */
async function otherPins(host: Host, name: string, own: string): Promise<string[]> {
  const files = [PREFERENCES, ...((await listDirectory(host, PIN_DIR)) ?? []).sort().filter((f) => APT_READS_PREFERENCE.test(f) && (!f.includes('.') || f.endsWith('.pref'))).map((f) => `${PIN_DIR}/${f}`)];
  const hits: string[] = [];
  for (const path of files.filter((f) => f !== own)) {
    const text = await host.readFile(path).catch(() => null);
    if (text && [...text.matchAll(/^Package:(.*)$/gm)].some((m) => m[1]!.trim().split(/\s+/).includes(name))) hits.push(path);
  }
  return hits;
}

interface PinState {
  name: string;
  path: string;
  existing: string | null;
  policy: PolicyWithVersions;
  others: string[];
}

async function pinState(host: Host, name: string): Promise<PinState> {
  const path = pinFile(name);
  return { name, path, existing: await host.readFile(path), policy: await policyWithVersions(host, name), others: await otherPins(host, name, path) };
}

/** apt reads the preferences back: a file it cannot parse fails the job (exit 100) and is restored. */
const policyCheck = (name: string) => command('apt-cache', ['policy', '--', name], { noUndo: 'changes_nothing' });

export const pinPackageVersion = action({
  name: 'PinPackageVersion',
  family: 'packages',
  description: 'Pin a package to one version apt offers (apt preferences, priority 1001): installs and upgrades keep it there, downgrading if needed.',
  risk: 'medium',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ package: packageName, version: debianVersion }),
  files: [`${PIN_DIR}/60-airlock-*.pref`],
  example: { package: 'nginx', version: '1.22.1-9' },
  current: async ({ package: name, version }, host) => {
    const cur = await pinState(host, name);
    // dpkg answers whether the pin is below what is installed (0 = yes): that is a downgrade.
    const installed = cur.policy.installed;
    const downgrade = installed !== null && installed !== version && (await host.run('dpkg', ['--compare-versions', requireVersion(name, installed), 'gt', version])).code === 0;
    return { ...cur, downgrade };
  },
  check: ({ package: name, version }, cur) => {
    if (!cur.policy.known) throw new AirlockError('validation', 'no_such_package', `apt knows no package named ${name}`, 'check the name, or refresh the lists with AptUpdate');
    if (!cur.policy.versions.some((v) => v.version === version)) {
      throw new AirlockError('validation', 'no_such_version', `apt offers no version ${version} of ${name} (it has ${cur.policy.versions.map((v) => v.version).join(', ') || 'none'})`, 'PackagePolicy lists the versions apt knows');
    }
    if (cur.existing === pinContent(name, version)) return unchanged(`${name} is already pinned to ${version} by ${cur.path}`);
  },
  preview: ({ package: name, version }, cur) => ({
    summary: `Pin ${name} to ${version} (priority ${PIN_PRIORITY})`,
    change: { file: cur.path, content: pinContent(name, version), replaces_pin: pinnedVersion(cur.existing), candidate: { from: cur.policy.candidate, to: version } },
    sideEffects: [`InstallPackage and UpgradeAll now choose ${name} ${version}, even over newer versions (security updates included), until UnpinPackage`],
    warnings: [
      ...(cur.downgrade ? [`${name} ${cur.policy.installed} is installed: the next upgrade DOWNGRADES it to ${version}`] : []),
      ...cur.others.map((f) => `${f} also has a stanza for ${name}; apt applies the first matching pin in file order`),
    ],
  }),
  mechanism: ({ package: name, version }, cur) => [fileWrite(cur.path, pinContent(name, version), { mode: 0o644, parent: { mode: 0o755 } }), policyCheck(name)],
});

export const unpinPackage = action({
  name: 'UnpinPackage',
  family: 'packages',
  description: "Remove Airlock's version pin of a package (its file in /etc/apt/preferences.d), so apt's default candidate applies again.",
  risk: 'medium',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ package: packageName }),
  files: [`${PIN_DIR}/60-airlock-*.pref`],
  example: { package: 'nginx' },
  current: ({ package: name }, host) => pinState(host, name),
  check: ({ package: name }, cur) => {
    // Pinned by a file that is not Airlock's: the package stays pinned, which this request cannot change.
    if (cur.existing === null && cur.others.length) {
      throw new AirlockError('conflict', 'not_pinned', `Airlock has no pin for ${name} (${cur.path} does not exist)`, `pins in ${cur.others.join(', ')} are not Airlock's: edit them at the console`);
    }
    if (cur.existing === null) return unchanged(`Airlock has no pin for ${name} (${cur.path} does not exist)`);
  },
  preview: ({ package: name }, cur) => ({
    summary: `Unpin ${name} (pinned to ${pinnedVersion(cur.existing) ?? 'an unreadable version'})`,
    change: { delete: cur.path, pinned_version: pinnedVersion(cur.existing), installed: cur.policy.installed },
    sideEffects: [`the next UpgradeAll may move ${name} to the newest version apt offers`],
    warnings: cur.others.map((f) => `${f} still has a stanza for ${name}`),
  }),
  mechanism: ({ package: name }, cur) => [fileDelete(cur.path), policyCheck(name)],
});
