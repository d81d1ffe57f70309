/**
 * Configuration file contents (family 'files'): one allowlisted, world-readable file
 * shown whole, or the lines of it that contain a plain text.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action } from '../../action.js';
import { command, fileScan } from '../../mechanism.js';
import { params, pathMatching, token } from '../../params.js';
import { CONFIG_FILES, pathState, refuseLink } from './allowlist.js';

export const readConfigFile = action({
  name: 'ReadConfigFile',
  family: 'files',
  description: 'Show a world-readable configuration file from a fixed allowlist (hosts, fstab, sshd_config, sysctl, apt sources, unit files, ...).',
  risk: 'low',
  readOnly: true,
  // Sensitive: a configuration file's contents: a password someone put there is shown too.
  sensitive: true,
  reachesNetwork: false,
  params: params({ path: pathMatching(CONFIG_FILES, 'path') }),
  files: CONFIG_FILES,
  example: { path: '/etc/ssh/sshd_config' },
  current: ({ path }, host) => pathState(path, host),
  check: ({ path }, cur) => {
    refuseLink(path, cur);
    if (!cur.stat) throw new AirlockError('validation', 'no_such_file', `${path} does not exist on this host`);
    if (!cur.stat.isFile) throw new AirlockError('validation', 'not_a_file', `${path} is not a regular file`);
    if ((cur.stat.mode & 0o004) === 0) {
      throw new AirlockError('authorization', 'not_world_readable', `${path} is not world-readable; a file kept private may hold secrets, so Airlock does not show it as a low-risk read`);
    }
  },
  preview: ({ path }, cur) => ({ summary: `Read ${path} (${cur.stat?.size ?? 0} bytes)`, change: null }),
  mechanism: ({ path }) => [fileScan(path)],
});

const SEARCH_WORD = '[A-Za-z0-9_.,:=@%+*/#()\\[\\]-]+';
/** Plain text to look for (grep --fixed-strings): words of safe characters, one space between words; never '..' or a shell metacharacter. */
export const searchText = token(new RegExp(`^${SEARCH_WORD}( ${SEARCH_WORD})*$`), 'search text (letters, digits, _ . , : = @ % + * / # ( ) [ ] - and single spaces between words)', 128).refine(
  (s) => !s.includes('..'),
  "search text must not contain '..'",
);

export const searchConfigFile = action({
  name: 'SearchConfigFile',
  family: 'files',
  description: 'Show, with their line numbers, the lines of one allowlisted configuration file (the files ReadConfigFile reads) that contain a text; the text is plain text, not a pattern.',
  risk: 'low',
  readOnly: true,
  // Sensitive: lines of a configuration file.
  sensitive: true,
  reachesNetwork: false,
  params: params({ path: pathMatching(CONFIG_FILES, 'path'), text: searchText, ignoreCase: z.boolean().optional() }),
  files: CONFIG_FILES,
  example: { path: '/etc/ssh/sshd_config', text: 'PermitRootLogin' },
  // It shows part of what ReadConfigFile shows, so the same file passes the same checks (no link, world-readable).
  current: async ({ path }, host) => {
    await host.trustedPath(path); // grep opens it by name
    return readConfigFile.current({ path }, host);
  },
  check: ({ path }, cur) => readConfigFile.check?.({ path }, cur),
  preview: ({ path, text, ignoreCase }) => ({ summary: `Show the lines of ${path} containing "${text}"${ignoreCase ? ' in any case' : ''}`, change: null }),
  // Exit 1: no line matches; an answer, not a failure.
  mechanism: ({ path, text, ignoreCase }) => [command('grep', ['--fixed-strings', '--line-number', ...(ignoreCase ? ['--ignore-case'] : []), '--', text, path], { okCodes: [0, 1], paths: [path] })],
});
