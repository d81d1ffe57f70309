/** Reads of the sudo policy as sudo reads it: its rules with file and line, and the rules that apply to one user. */
import { action, type Host } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, userName } from '../../params.js';
import { listDirectory } from '../../lib/host-files.js';
import { requireUser } from '../../lib/accounts.js';
import { GRANT_PREFIX } from './grant-file.js';
import { readSudo, refuseWithoutSudo, SUDOERS, SUDOERS_D, type SudoState } from './sudo-state.js';

/** Lines grep drops from a listing: blank ones and comments (a '#' not starting `#include` or a `#UID`). */
const BLANK_LINE = '^[[:space:]]*$';
const COMMENT_LINE = '^[[:space:]]*#([^0-9i]|i[^n]|in[^c]|$)';

interface PolicyFiles {
  sudo: SudoState;
  /** /etc/sudoers, then the drop-ins sudo reads, in sudo's (lexical) order. */
  files: string[];
  grants: string[];
  /** Drop-ins with unusual names (spaces, escapes) sudo may read but this listing leaves out. */
  unlisted: number;
}

/** Drop-in names sudo reads: it skips names that end in '~' or contain '.'. */
const sudoReads = (name: string) => !name.endsWith('~') && !name.includes('.');
const PLAIN_NAME = /^[A-Za-z0-9_@+-]+$/;

async function readPolicyFiles(host: Host): Promise<PolicyFiles> {
  const sudo = await readSudo(host, false);
  const names = sudo.installed && sudo.readsDropins ? ((await listDirectory(host, SUDOERS_D)) ?? []).filter(sudoReads).sort() : [];
  const plain = names.filter((n) => PLAIN_NAME.test(n));
  return {
    sudo,
    files: [SUDOERS, ...plain.map((n) => `${SUDOERS_D}/${n}`)],
    grants: plain.filter((n) => n.startsWith(GRANT_PREFIX)).map((n) => n.slice(GRANT_PREFIX.length)),
    unlisted: names.length - plain.length,
  };
}

// ---------------------------------------------------------------- actions

export const listSudoGrants = action({
  name: 'ListSudoGrants',
  family: 'privilege',
  description: 'List the rules of the sudo policy (/etc/sudoers and the drop-ins sudo reads), each line with its file and line number; Airlock grants are the 60-airlock-* files.',
  // Medium: it reveals who can become root, and how.
  risk: 'medium',
  readOnly: true,
  // Sensitive: the sudo policy's rules: who can become root, and how.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readPolicyFiles(host),
  check: (_p, cur) => refuseWithoutSudo(cur.sudo),
  preview: (_p, cur) => ({
    summary: `Read the sudo policy: ${SUDOERS} and ${cur.files.length - 1} drop-in(s) in ${SUDOERS_D} (${cur.grants.length} Airlock grant(s))`,
    change: null,
    warnings: [
      ...(cur.sudo.readsDropins ? [] : [`${SUDOERS} does not include ${SUDOERS_D}: sudo ignores the drop-ins there`]),
      ...(cur.unlisted ? [`${cur.unlisted} drop-in(s) with unusual names are not listed, though sudo reads them`] : []),
    ],
  }),
  mechanism: (_p, cur) => [command('grep', ['-H', '-n', '-v', '-E', '-e', BLANK_LINE, '-e', COMMENT_LINE, '--', ...cur.files], { okCodes: [0, 1] })],
});

export const showSudoPolicyFor = action({
  name: 'ShowSudoPolicyFor',
  family: 'privilege',
  description: 'Show the sudo rules and defaults that apply to one user, directly or through a group (cvtsudoers; sudo itself is not run).',
  risk: 'medium',
  readOnly: true,
  // Sensitive: the sudo policy's rules for one user.
  sensitive: true,
  reachesNetwork: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: async ({ user }, host) => ({ user: await requireUser(host, user), sudo: await readSudo(host, false) }),
  check: (_p, cur) => refuseWithoutSudo(cur.sudo),
  preview: ({ user }) => ({ summary: `Show the sudo rules that apply to ${user}`, change: null }),
  // -m user=NAME -M: rules naming the user, or a group the passwd and group files put them in; -p: only those names.
  mechanism: ({ user }) => [command('cvtsudoers', ['-f', 'sudoers', '-M', '-p', '-m', `user=${user}`, '--', SUDOERS])],
});
