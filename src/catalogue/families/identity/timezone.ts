/** The time zone: /etc/localtime's link into /usr/share/zoneinfo, and /etc/timezone where the host has one. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileScan, fileWrite } from '../../mechanism.js';
import { params, timezone } from '../../params.js';
import { linkTarget } from '../../lib/host-files.js';
import { exact } from '../../rollback.js';

const ZONEINFO = '/usr/share/zoneinfo';

export const getTimezone = action({
  name: 'GetTimezone',
  family: 'identity',
  description: 'Show the time zone: /etc/timezone, where /etc/localtime points, and the zone abbreviation and offset in effect.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: ['/etc/timezone', '/etc/localtime'],
  example: {},
  current: async (_p, host) => ({
    hasFile: (await host.stat('/etc/timezone'))?.isFile === true,
    isLink: (await host.stat('/etc/localtime'))?.isSymlink === true,
  }),
  preview: () => ({ summary: 'Read the configured time zone', change: null }),
  mechanism: (_p, cur) => [
    ...(cur.hasFile ? [fileScan('/etc/timezone')] : []),
    ...(cur.isLink ? [command('readlink', ['--', '/etc/localtime'])] : []),
    command('date', ['--', '+%Z %z']),
  ],
});

interface TimezoneState {
  /** The zone file the name resolves to, with its canonical name (UTC -> Etc/UTC), or null when there is none. */
  zone: { name: string; path: string } | null;
  /** Contents of /etc/timezone, or null when absent (Debian 13 drops the file). */
  timezoneFile: string | null;
  localtime: 'link' | 'absent' | 'not a link';
  /** Absolute target of the /etc/localtime link. */
  linkTarget: string | null;
}

/** Resolves a zone name to a regular file under /usr/share/zoneinfo, following one alias link that stays inside it. */
async function resolveZone(tz: string, host: Host): Promise<TimezoneState['zone']> {
  const path = `${ZONEINFO}/${tz}`;
  const st = await host.stat(path);
  if (st?.isFile) return { name: tz, path };
  const target = st?.isSymlink ? await linkTarget(host, path) : null;
  if (!target?.startsWith(`${ZONEINFO}/`)) return null;
  const name = target.slice(ZONEINFO.length + 1);
  if (!timezone.safeParse(name).success) return null; // posix/..., right/... and other trees are not zones we set
  return (await host.stat(target))?.isFile ? { name, path: target } : null;
}

export const setTimezone = action({
  name: 'SetTimezone',
  family: 'identity',
  description: 'Set the time zone: point /etc/localtime at the zone file and update /etc/timezone when the host has one.',
  risk: 'medium',
  // /etc/timezone from its snapshot; the link by `ln -sfn` to its old target. A link's probe is its target (a file probe reads only that it is a link).
  rollback: exact(() => [{ program: 'readlink', args: ['--', '/etc/localtime'] }]),
  readOnly: false,
  runsPrograms: false,
  params: params({ timezone }),
  files: ['/etc/timezone', '/etc/localtime'],
  example: { timezone: 'Europe/Paris' },
  current: async ({ timezone: tz }, host): Promise<TimezoneState> => {
    const lt = await host.stat('/etc/localtime');
    const file = await host.readFile('/etc/timezone');
    return {
      zone: await resolveZone(tz, host),
      timezoneFile: file === null ? null : file.trim(),
      localtime: lt === null ? 'absent' : lt.isSymlink ? 'link' : 'not a link',
      linkTarget: await linkTarget(host, '/etc/localtime'),
    };
  },
  check: ({ timezone: tz }, cur) => {
    if (!cur.zone) {
      throw new AirlockError('validation', 'unknown_timezone', `there is no zone file ${ZONEINFO}/${tz}`, 'use an Area/City name such as Europe/Paris; install tzdata if zones are missing');
    }
    if (cur.localtime !== 'link' || !cur.linkTarget) {
      throw new AirlockError('conflict', 'localtime_not_link', `/etc/localtime is ${cur.localtime === 'absent' ? 'missing' : 'not a symbolic link'}; Airlock only repoints the link, so the old setting could not be restored`, 'reinstall tzdata (dpkg-reconfigure tzdata) to restore the link');
    }
    if (cur.linkTarget === cur.zone.path && (cur.timezoneFile === null || cur.timezoneFile === cur.zone.name)) {
      return unchanged(`the time zone is already ${cur.zone.name}`);
    }
  },
  preview: ({ timezone: tz }, cur) => ({
    summary: `Set the time zone to ${cur.zone!.name}`,
    change: {
      localtime_link: { from: cur.linkTarget, to: cur.zone!.path },
      ...(cur.timezoneFile !== null ? { file: '/etc/timezone', from: cur.timezoneFile, to: cur.zone!.name } : {}),
    },
    sideEffects: ['programs that cached the zone at start (cron, syslog, long-running daemons) keep the old one until they restart'],
    warnings: cur.zone!.name !== tz ? [`${tz} is an alias of ${cur.zone!.name}; the canonical name is written`] : [],
  }),
  mechanism: (_p, cur) => [
    ...(cur.timezoneFile !== null ? [fileWrite('/etc/timezone', `${cur.zone!.name}\n`, { mode: 0o644 })] : []),
    command('ln', ['-sfn', '--', cur.zone!.path, '/etc/localtime'], { undo: command('ln', ['-sfn', '--', cur.linkTarget!, '/etc/localtime']) }),
  ],
});
