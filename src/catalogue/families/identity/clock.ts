/**
 * The clock as systemd-timedated sees it, and network time synchronisation through it
 * (`timedatectl set-ntp`).
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { parseShow } from '../../lib/systemd.js';
import { exact } from '../../rollback.js';

const TIMESYNCD = 'systemd-timesyncd.service';

export interface TimeState {
  /** timedated's NTP property: an NTP service is active (or starting). */
  ntp: boolean;
  /** timedated knows an NTP service it can switch (systemd-timesyncd, chrony, ...). */
  canNtp: boolean;
  synchronized: boolean;
  timezone: string;
  timesyncd: { load: string; active: string; unitFile: string; condition: string };
}

export async function readTimeState(host: Host): Promise<TimeState> {
  const r = await host.run('timedatectl', ['show']);
  if (r.code !== 0) {
    throw new AirlockError('execution', 'timedated_unreachable', `timedatectl could not reach systemd-timedated (exit status ${r.code})`, 'is systemd the init system, with dbus running?');
  }
  const t = parseShow(r.stdout);
  const u = parseShow((await host.run('systemctl', ['show', '--no-pager', '-p', 'LoadState,ActiveState,UnitFileState,ConditionResult', '--', TIMESYNCD])).stdout);
  return {
    ntp: t.get('NTP') === 'yes',
    canNtp: t.get('CanNTP') === 'yes',
    synchronized: t.get('NTPSynchronized') === 'yes',
    timezone: t.get('Timezone') ?? '',
    timesyncd: { load: u.get('LoadState') ?? '', active: u.get('ActiveState') ?? '', unitFile: u.get('UnitFileState') ?? '', condition: u.get('ConditionResult') ?? '' },
  };
}

const describeNtp = (s: TimeState) =>
  `NTP ${s.ntp ? 'on' : 'off'}${s.ntp ? (s.synchronized ? ', clock synchronised' : ', clock not synchronised yet') : ''}${s.timesyncd.load === 'loaded' ? `; ${TIMESYNCD} ${s.timesyncd.active}, ${s.timesyncd.unitFile}` : ''}`;

export const timeStatus = action({
  name: 'TimeStatus',
  family: 'identity',
  description: 'Show the clock as systemd-timedated sees it (timedatectl show): time zone, local time, whether the RTC keeps local time, NTP on and synchronised.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readTimeState(host),
  preview: (_p, cur) => ({ summary: `Show the clock (time zone ${cur.timezone || 'unknown'}, NTP ${cur.ntp ? 'on' : 'off'}, ${cur.synchronized ? '' : 'not '}synchronised)`, change: null }),
  mechanism: () => [command('timedatectl', ['show'])],
});

export const ntpStatus = action({
  name: 'NtpStatus',
  family: 'identity',
  description: 'Show whether network time synchronisation is on and the clock synchronised, with the NTP server systemd-timesyncd talks to.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readTimeState(host),
  preview: (_p, cur) => ({ summary: `Show time synchronisation (now ${describeNtp(cur)})`, change: null }),
  mechanism: (_p, cur) => [
    command('timedatectl', ['show']),
    // timesync-status asks systemd-timesyncd itself: only when it runs (it fails otherwise).
    ...(cur.timesyncd.active === 'active' ? [command('timedatectl', ['timesync-status'])] : []),
  ],
});

export const setNtp = action({
  name: 'SetNtp',
  family: 'identity',
  description: 'Turn network time synchronisation on or off (timedatectl set-ntp: enables and starts, or stops and disables, the NTP service).',
  risk: 'medium',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ enabled: z.boolean() }),
  files: [],
  example: { enabled: true },
  current: (_p, host) => readTimeState(host),
  check: ({ enabled }, cur) => {
    if (!cur.canNtp) throw new AirlockError('unsupported_platform', 'no_ntp_service', 'systemd-timedated knows no NTP service on this host', 'install systemd-timesyncd (or chrony)');
    // Off means nothing runs and nothing starts at boot; on means timedated reports an active service.
    const alreadyOff = !cur.ntp && cur.timesyncd.unitFile !== 'enabled';
    if (enabled ? cur.ntp : alreadyOff) return unchanged(`network time synchronisation is already ${enabled ? 'on' : 'off'} (${describeNtp(cur)})`);
  },
  preview: ({ enabled }, cur) => {
    const service = cur.timesyncd.load === 'loaded' ? TIMESYNCD : 'the NTP service';
    return {
      summary: `Turn network time synchronisation ${enabled ? 'on' : 'off'}`,
      change: {
        ntp: { from: cur.ntp, to: enabled },
        text: enabled ? `systemd-timedated enables ${service} at boot and starts it now` : `systemd-timedated stops ${service} and disables it at boot`,
      },
      sideEffects: enabled
        ? ['the clock is adjusted to NTP time once a server answers (UDP port 123 must reach the configured servers)']
        : ['the clock drifts freely until synchronisation is turned on again: logs, TLS and Kerberos suffer from a wrong clock'],
      warnings:
        enabled && cur.timesyncd.condition === 'no'
          ? [`${TIMESYNCD} did not start last time because a start condition failed (it does not run in a container or without CAP_SYS_TIME): it is enabled, but may stay inactive`]
          : [],
    };
  },
  mechanism: ({ enabled }) => [command('timedatectl', ['set-ntp', String(enabled)], { undo: command('timedatectl', ['set-ntp', String(!enabled)]) })],
});
