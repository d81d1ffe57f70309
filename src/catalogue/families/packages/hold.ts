/** Holds: keeping an installed package at its version through upgrades (apt only: dnf needs its versionlock plugin). */
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { packageName, params } from '../../params.js';
import { dpkgEntries } from '../../lib/apt.js';
import { installedVersion, isHeld, isInstalled } from './manager.js';
import { exact } from '../../rollback.js';
import { packageProbes } from './undo.js';

/** dpkg's line for the package: its selection (hold or install) is the first letter of its status. */
const selection = exact(({ package: name }: { package: string }) => packageProbes([name]).slice(0, 1));

const mark = (verb: 'hold' | 'unhold', name: string) => command('apt-mark', [verb, '--', name], { resource: 'dpkg' });

export const holdPackage = action({
  name: 'HoldPackage',
  family: 'packages',
  description: 'Put an installed package on hold so upgrades leave it at its current version (apt; dnf would need its versionlock plugin).',
  risk: 'medium',
  rollback: selection,
  readOnly: false,
  runsPrograms: false,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'linux-image-amd64' },
  current: async ({ package: name }, host) => ({ name, dpkg: await dpkgEntries(host, [name]) }),
  check: ({ package: name }, cur) => {
    if (!isInstalled(cur.dpkg)) throw new AirlockError('conflict', 'not_installed', `${name} is not installed`, 'see ListInstalledPackages');
    if (isHeld(cur.dpkg)) return unchanged(`${name} is already on hold`);
  },
  preview: ({ package: name }, cur) => ({
    summary: `Hold ${name} at ${installedVersion(cur.dpkg)}`,
    change: { package: name, selection: { from: 'install', to: 'hold' } },
    sideEffects: [`security updates for ${name} are no longer installed until it is released with UnholdPackage`],
  }),
  mechanism: ({ package: name }) => [{ ...mark('hold', name), undo: mark('unhold', name) }],
});

export const unholdPackage = action({
  name: 'UnholdPackage',
  family: 'packages',
  description: 'Release a held package so upgrades may change it again (apt).',
  risk: 'medium',
  rollback: selection,
  readOnly: false,
  runsPrograms: false,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'linux-image-amd64' },
  current: async ({ package: name }, host) => ({ name, dpkg: await dpkgEntries(host, [name]) }),
  check: ({ package: name }, cur) => {
    if (!isHeld(cur.dpkg)) return unchanged(`${name} is not on hold`);
  },
  preview: ({ package: name }, cur) => ({
    summary: `Release the hold on ${name}`,
    change: { package: name, selection: { from: 'hold', to: 'install' }, installed: installedVersion(cur.dpkg) },
    sideEffects: [`the next upgrade may move ${name} to a newer version`],
  }),
  mechanism: ({ package: name }) => [{ ...mark('unhold', name), undo: mark('hold', name) }],
});
