/**
 * What the files family may show: a fixed allowlist of configuration files anyone on
 * the host may already read and of configuration directories whose listing is not
 * secret, and the walk that refuses a symbolic link anywhere on the way to one.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';

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
  // Network configuration, shown only when world-readable; a wifi password in it is masked (src/mask).
  '/etc/netplan/*.yaml',
  '/etc/wpa_supplicant/*.conf',
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
