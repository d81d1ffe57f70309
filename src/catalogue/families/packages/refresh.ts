/** Refreshing the package lists: apt-get update, or dnf makecache on Fedora and RHEL. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { firstError } from '../../lib/apt.js';
import { parseRepolist } from '../../lib/dnf.js';
import { APT_TIMEOUT_MS, packageManager, stepsFor } from './manager.js';
import { noRollback } from '../../rollback.js';

export const aptUpdate = action({
  name: 'AptUpdate',
  family: 'packages',
  description: "Refresh the package lists from the configured repositories (apt-get update; on Fedora and RHEL, dnf makecache --refresh).",
  risk: 'medium',
  readOnly: false,
  rollback: noRollback('the package lists are replaced by what the repositories publish now; Airlock keeps no copy of the former lists, and the archive no longer serves them'),
  runsPrograms: true,
  platforms: ALL_PLATFORMS,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const manager = packageManager(host.platform);
    const r =
      manager === 'apt'
        ? await host.run('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE) $(COMPONENT) [$(TARGET_OF)]'])
        : await host.run('dnf', ['--cacheonly', 'repolist', '--enabled']);
    if (r.code !== 0) throw new AirlockError('execution', `${manager}_failed`, `listing the repositories failed: ${firstError(r.stderr)}`);
    const repositories = manager === 'apt' ? r.stdout.split('\n').filter((l) => l.trim()) : parseRepolist(r.stdout);
    return { manager, repositories: [...new Set(repositories)].sort() };
  },
  check: (_p, cur) => {
    if (cur.repositories.length === 0) {
      throw new AirlockError('validation', 'no_sources', `${cur.manager} has no repositories configured`, cur.manager === 'apt' ? 'add a source under /etc/apt/sources.list.d first' : 'enable a repository in /etc/yum.repos.d first');
    }
  },
  preview: (_p, cur) => ({
    summary: `Refresh package lists from ${cur.repositories.length} ${cur.manager === 'apt' ? 'repository section(s)' : 'enabled dnf repositories'}`,
    change: { refreshes: cur.repositories, directory: cur.manager === 'apt' ? '/var/lib/apt/lists' : "dnf's metadata cache (/var/cache/dnf or /var/cache/libdnf5)" },
    sideEffects: ['downloads index files from the network', 'later install and upgrade previews see the new candidate versions'],
  }),
  mechanism: (_p, cur) =>
    stepsFor(cur.manager, {
      // Error-Mode=any (= --error-on=any): a repository that fails to refresh fails the job instead of
      // leaving stale lists silently. As a config key, older apt ignores it rather than refusing the run.
      apt: () => [command('apt-get', ['update', '-o', 'APT::Update::Error-Mode=any'], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS })],
      // --refresh expires the cache first; an unreachable repository fails the job rather than being skipped.
      dnf: () => [command('dnf', ['makecache', '--refresh', '--setopt=skip_if_unavailable=False'], { timeoutMs: APT_TIMEOUT_MS })],
    }),
});
