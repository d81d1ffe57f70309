/**
 * Configuration file metadata (family 'files'): an allowlisted configuration directory
 * listed, and one allowlisted file or directory described with stat (a link is
 * described, not followed). Nothing here reads a file's content.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { command } from '../../mechanism.js';
import { entryIn } from '../../lib/trusted-path.js';
import { params, pathMatching } from '../../params.js';
import { CONFIG_DIRS, CONFIG_FILES, pathState, refuseLink } from './allowlist.js';

export const listConfigDirectory = action({
  name: 'ListConfigDirectory',
  family: 'files',
  description: 'List the entries of a configuration directory from a fixed allowlist (sysctl.d, sources.list.d, systemd/system, cron.d, ...).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ path: z.enum(CONFIG_DIRS) }),
  files: [...CONFIG_DIRS],
  example: { path: '/etc/sysctl.d' },
  current: async ({ path }, host) => {
    await host.trustedPath(path); // ls lists it by name
    return pathState(path, host);
  },
  check: ({ path }, cur) => {
    refuseLink(path, cur);
    if (!cur.stat) throw new AirlockError('validation', 'no_such_directory', `${path} does not exist on this host`);
    if (!cur.stat.isDir) throw new AirlockError('validation', 'not_a_directory', `${path} is not a directory`);
  },
  preview: ({ path }) => ({ summary: `List ${path}`, change: null }),
  // -b escapes non-printable characters in names, so a crafted file name cannot forge output lines.
  mechanism: ({ path }) => [command('ls', ['-l', '-a', '-b', '--time-style=long-iso', '--', path], { paths: [path] })],
});

/** What FileInfo may describe: the configuration files ReadConfigFile reads and the directories ListConfigDirectory lists. */
const DESCRIBABLE = [...CONFIG_FILES, ...CONFIG_DIRS];

const kindOf = (st: NonNullable<Awaited<ReturnType<Host['stat']>>>) => (st.isSymlink ? 'symbolic link' : st.isDir ? 'directory' : st.isFile ? `file, ${st.size} bytes` : 'special file');

export const fileInfo = action({
  name: 'FileInfo',
  family: 'files',
  description: 'Show the metadata of one allowlisted configuration file or directory with stat: type, size, mode, owner, group, inode, links and times. A symbolic link is described, not followed.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ path: pathMatching(DESCRIBABLE, 'path') }),
  // stat reads no content.
  files: [],
  example: { path: '/etc/ssh/sshd_config' },
  current: async ({ path }, host) => {
    await host.trustedPath(entryIn(path));
    const s = await pathState(path, host);
    // stat does not follow the final component: only a link on the way to it could lead out of the allowlist.
    return s.link === path ? { link: null, stat: await host.stat(path) } : s;
  },
  check: ({ path }, cur) => {
    refuseLink(path, cur);
    if (!cur.stat) throw new AirlockError('validation', 'no_such_file', `${path} does not exist on this host`);
  },
  preview: ({ path }, cur) => ({ summary: `Show the metadata of ${path} (${cur.stat ? kindOf(cur.stat) : 'absent'})`, change: null }),
  // stat describes a link rather than follow it: only the directories on the way matter.
  mechanism: ({ path }) => [command('stat', ['--', path], { paths: [entryIn(path)] })],
});
