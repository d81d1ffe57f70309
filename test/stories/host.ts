/**
 * The host the story suite plans for: a Debian 12 host whose daemon supports every action the
 * catalogue declares for Debian, described as the daemon's actions.list would (from the
 * committed catalogue metadata, so the suite needs no daemon).
 */
import type { HostContext } from '../../src/planner/contract.js';
import { catalogueMetadata } from '../../src/protocol/catalogue-metadata.js';

export function storyHost(distribution: HostContext['distribution'] = { id: 'debian', version_id: '12', pretty_name: 'Debian GNU/Linux 12 (bookworm)' }): HostContext {
  const platform = ['fedora', 'rhel'].includes(distribution.id) ? distribution.id : distribution.id === 'ubuntu' ? 'ubuntu' : 'debian';
  return {
    distribution,
    actions: catalogueMetadata().actions.filter((a) => a.platforms.includes(platform)).map((a) => ({ ...a, supported_here: true })),
  };
}
