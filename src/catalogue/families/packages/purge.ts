/** Purging a package: removing it with its configuration files, or deleting what a removed one left (apt only: dnf has no purge). */
import { AirlockError } from '../../../protocol/errors.js';
import { action } from '../../action.js';
import { command } from '../../mechanism.js';
import { packageName, params } from '../../params.js';
import { APT_TIMEOUT_MS, DPKG_NONINTERACTIVE, list, protectedSelf, requireVersion } from './manager.js';
import { removePackage } from './remove.js';
import { noRollback } from '../../rollback.js';

type RemoveState = Awaited<ReturnType<typeof removePackage.current>>;

export const purgePackage = action({
  name: 'PurgePackage',
  family: 'packages',
  description: 'Remove one package and delete its configuration files (apt-get purge), or delete what a removed package left behind; same refusals as RemovePackage.',
  risk: 'high',
  readOnly: false,
  rollback: noRollback('purging deletes the packages\' configuration files, an administrator\'s edits included, and what their purge scripts clean up; Airlock keeps no copy of them, so they cannot be put back'),
  runsPrograms: false,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'htop' },
  current: async (p, host): Promise<RemoveState & { leftover: string | null }> => {
    const cur = await removePackage.current(p, host);
    // Removed earlier with its configuration kept (dpkg state "rc"): only the files are left to purge.
    const rc = cur.version ? undefined : cur.dpkg.find((e) => e.status === 'config-files');
    return { ...cur, leftover: rc ? requireVersion(p.package, rc.version) : null };
  },
  check: (p, cur) => {
    if (!cur.leftover) return removePackage.check!(p, cur);
    const why = protectedSelf(p.package, cur.dpkg);
    if (why) throw new AirlockError('authorization', 'protected_package', `${p.package} is ${why}; Airlock never purges it`, 'this needs a person at the console');
  },
  preview: ({ package: name }, cur) => {
    const gone = cur.leftover ? [{ name, version: cur.leftover }] : (cur.sim?.remove ?? []);
    const also = gone.filter((p) => p.name !== name);
    return {
      summary: cur.leftover ? `Purge the configuration files ${name} ${cur.leftover} left behind` : `Purge ${name} ${cur.version ?? ''}`.trim() + (also.length ? ` and ${also.length} package(s) that depend on it` : ''),
      change: { purge: list(gone), deletes: 'the packages and their configuration files, including ones an administrator edited' },
      sideEffects: ['configuration under /etc that belongs to these packages is deleted for good', 'package maintainer scripts run as root'],
      warnings: also.length ? [`also removes and purges ${also.map((p) => p.name).join(', ')}`] : [],
    };
  },
  // Pinned to the version dpkg has, so the name is exact and never a pattern apt could widen.
  mechanism: ({ package: name }, cur) => [
    command('apt-get', ['purge', '-y', ...DPKG_NONINTERACTIVE, '--', `${name}=${cur.leftover ?? cur.version}`], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS }),
  ],
});
