/** files family: read a fixed allowlist of non-secret configuration files and list configuration directories. */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host } from '../action.js';
import { command, fileScan } from '../mechanism.js';
import { params, pathMatching } from '../params.js';

/**
 * Configuration files anyone on the host may already read. Deliberately absent:
 * /etc/shadow, /etc/gshadow, /etc/sudoers, SSH host and user keys, apt auth and
 * proxy settings (apt.conf.d, auth.conf.d), crontabs, anything under /root or /home.
 */
export const CONFIG_FILES = [
  '/etc/hosts',
  '/etc/hostname',
  '/etc/os-release',
  '/usr/lib/os-release',
  '/etc/debian_version',
  '/etc/fstab',
  '/etc/resolv.conf',
  '/etc/nsswitch.conf',
  '/etc/timezone',
  '/etc/passwd',
  '/etc/group',
  '/etc/ssh/sshd_config',
  '/etc/ssh/ssh_config',
  '/etc/ssh/sshd_config.d/*.conf',
  '/etc/sysctl.conf',
  '/etc/sysctl.d/*.conf',
  '/etc/apt/sources.list',
  '/etc/apt/sources.list.d/*.list',
  '/etc/apt/sources.list.d/*.sources',
  '/etc/systemd/system/*.service',
  '/etc/systemd/system/*.timer',
  '/etc/logrotate.conf',
  '/etc/logrotate.d/*',
];

/** Directories whose listing (names, sizes, owners, modes) is not secret. */
export const CONFIG_DIRS = [
  '/etc/sysctl.d',
  '/etc/apt/sources.list.d',
  '/etc/ssh/sshd_config.d',
  '/etc/systemd/system',
  '/etc/cron.d',
  '/etc/logrotate.d',
  '/etc/sudoers.d',
] as const;

interface PathState {
  /** The first component of the path that is a symbolic link, if any. */
  link: string | null;
  stat: Awaited<ReturnType<Host['stat']>>;
}

/** Looks at every component of `path` without following links: a link anywhere could lead out of the allowlist. */
export async function pathState(path: string, host: Host): Promise<PathState> {
  let cur = '';
  for (const seg of path.split('/').slice(1)) {
    cur += `/${seg}`;
    const st = await host.stat(cur);
    if (st === null) return { link: null, stat: null };
    if (st.isSymlink) return { link: cur, stat: null };
  }
  return { link: null, stat: await host.stat(path) };
}

export function refuseLink(path: string, s: PathState): void {
  if (s.link) {
    throw new AirlockError('authorization', 'symlink_in_path', `${s.link} is a symbolic link; Airlock opens ${path} only through real directories and files`, 'read the file the link points to, if it is on the allowlist');
  }
}

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
