/** Searching the package names the lists offer (apt-cache search; dnf search). */
import { action, ALL_PLATFORMS } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { packageManager, stepsFor } from './manager.js';

/** Letters of a package name only: apt-cache gets it as a literal (see literalPattern). */
export const searchTerm = token(/^[a-z0-9][a-z0-9+.-]{1,63}$/, 'search term (2 to 64 of a-z 0-9 + . -)', 64);

/**
 * apt-cache search takes a POSIX regular expression, where '.' matches any character and '+'
 * repeats: the term is escaped so it matches literally (the term's alphabet has no other
 * metacharacter). Case does not matter to apt-cache.
 */
export const literalPattern = (term: string) => term.replace(/[.+]/g, '\\$&');

export const searchPackages = action({
  name: 'SearchPackages',
  family: 'packages',
  description: 'List the packages whose name contains a term, with their one-line description (apt-cache search --names-only; dnf search, which also matches the one-line summaries).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({ query: searchTerm }),
  files: [],
  example: { query: 'nginx' },
  current: async (_p, host) => ({ manager: packageManager(host.platform) }),
  preview: ({ query }, cur) => ({ summary: `Search package names ${cur.manager === 'apt' ? '' : 'and summaries '}containing "${query}" (as of the last AptUpdate)`, change: null }),
  mechanism: ({ query }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-cache', ['search', '--names-only', '--', literalPattern(query)])],
      // dnf matches a substring literally (the term has no glob character), from the cache; no `--` (dnf5 refuses it), and the term never starts with '-'.
      dnf: () => [command('dnf', ['--cacheonly', 'search', query])],
    }),
});
