/**
 * The clock as systemd-timedated sees it, and network time synchronisation through it
 * (`timedatectl set-ntp`).
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import { params } from '../../params.js';
import { listDirectory } from '../../lib/host-files.js';
import { parseShow } from '../../lib/systemd.js';
import { exact, unitState } from '../../rollback.js';

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

type NtpUnitState = TimeState['timesyncd'];

async function readNtpUnit(host: Host, unit: string): Promise<NtpUnitState> {
  const u = parseShow((await host.run('systemctl', ['show', '--no-pager', '-p', 'LoadState,ActiveState,UnitFileState,ConditionResult', '--', unit])).stdout);
  return { load: u.get('LoadState') ?? '', active: u.get('ActiveState') ?? '', unitFile: u.get('UnitFileState') ?? '', condition: u.get('ConditionResult') ?? '' };
}

export async function readTimeState(host: Host): Promise<TimeState> {
  const r = await host.run('timedatectl', ['show']);
  if (r.code !== 0) {
    throw new AirlockError('execution', 'timedated_unreachable', `timedatectl could not reach systemd-timedated (exit status ${r.code})`, 'is systemd the init system, with dbus running?');
  }
  const t = parseShow(r.stdout);
  return {
    ntp: t.get('NTP') === 'yes',
    canNtp: t.get('CanNTP') === 'yes',
    synchronized: t.get('NTPSynchronized') === 'yes',
    timezone: t.get('Timezone') ?? '',
    timesyncd: await readNtpUnit(host, TIMESYNCD),
  };
}

/** Where systemd-timedated finds the NTP units it switches: *.list files, one unit a line; a name in an earlier directory hides the same name in a later one. */
const NTP_UNIT_DIRS = ['/etc/systemd/ntp-units.d', '/run/systemd/ntp-units.d', '/usr/local/lib/systemd/ntp-units.d', '/usr/lib/systemd/ntp-units.d'];
const NTP_LIST = /^[A-Za-z0-9_][A-Za-z0-9._@-]*\.list$/;
const NTP_UNIT = /^[A-Za-z0-9_][A-Za-z0-9:_.@-]*\.service$/;

/** The loaded NTP units timedated knows, in its order (lists sorted by file name), with their state. */
async function readNtpUnits(host: Host): Promise<Array<{ unit: string } & NtpUnitState>> {
  const lists = new Map<string, string>();
  for (const dir of NTP_UNIT_DIRS) for (const name of (await listDirectory(host, dir)) ?? []) if (NTP_LIST.test(name) && !lists.has(name)) lists.set(name, `${dir}/${name}`);
  const names: string[] = [];
  for (const name of [...lists.keys()].sort()) {
    for (const line of ((await host.readFile(lists.get(name)!)) ?? '').split('\n')) if (NTP_UNIT.test(line.trim()) && !names.includes(line.trim())) names.push(line.trim());
  }
  const units = await Promise.all(names.map(async (unit) => ({ unit, ...(await readNtpUnit(host, unit)) })));
  return units.filter((u) => u.load === 'loaded');
}

/** Not running: inactive or failed (what timedated counts as off). */
const running = (u: NtpUnitState) => !['inactive', 'failed', ''].includes(u.active);

/**
 * What puts the NTP unit back as it was, in one systemctl call that waits for its job (timedated
 * only queues them): turned on, it was enabled or not, stopped; turned off, it was enabled,
 * running, or both. Built from the state read, never from timedated's inverse, which would
 * disable a unit that was enabled but not running (a failed start condition, a container).
 */
function putBack(enabling: boolean, u: { unit: string } & NtpUnitState): CommandStep {
  const was = u.unitFile === 'enabled';
  const verb = enabling ? (was ? ['stop'] : ['disable', '--now']) : was ? (running(u) ? ['enable', '--now'] : ['enable']) : ['start'];
  return command('systemctl', [...verb, '--', u.unit]);
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
  // The NTP unit's enablement and activity, put back by one systemctl call (putBack).
  rollback: exact((_p: unknown, cur: { units: Array<{ unit: string }> }) => (cur.units.length === 1 ? unitState(cur.units[0]!.unit) : [])),
  readOnly: false,
  runsPrograms: false,
  params: params({ enabled: z.boolean() }),
  files: [],
  example: { enabled: true },
  current: async (_p, host) => ({ ...(await readTimeState(host)), units: await readNtpUnits(host) }),
  check: ({ enabled }, cur) => {
    if (!cur.canNtp || cur.units.length === 0) throw new AirlockError('unsupported_platform', 'no_ntp_service', 'systemd-timedated knows no NTP service on this host', 'install systemd-timesyncd (or chrony)');
    const u = cur.units[0]!;
    // Off means nothing runs and nothing starts at boot; on means timedated reports an active service.
    const alreadyOff = !cur.ntp && u.unitFile !== 'enabled';
    if (enabled ? cur.ntp : alreadyOff) return unchanged(`network time synchronisation is already ${enabled ? 'on' : 'off'} (${describeNtp(cur)})`);
    if (cur.units.length > 1) {
      throw new AirlockError('conflict', 'several_ntp_services', `systemd-timedated switches ${cur.units.length} NTP units here (${cur.units.map((x) => x.unit).join(', ')}): Airlock puts back one`, 'remove the NTP services not used, or switch them by hand');
    }
    if (u.unitFile !== 'enabled' && u.unitFile !== 'disabled') {
      throw new AirlockError('conflict', 'ntp_unit_state', `${u.unit} is ${u.unitFile || 'without a unit file state'}: Airlock puts back only an enabled or disabled unit`, 'a person looks at the unit');
    }
  },
  preview: ({ enabled }, cur) => {
    const service = cur.units[0]!.unit;
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
        enabled && cur.units[0]!.condition === 'no'
          ? [`${service} did not start last time because a start condition failed (${service === TIMESYNCD ? 'it does not run in a container or without CAP_SYS_TIME' : 'see systemctl status'}): it is enabled, but may stay inactive`]
          : [],
    };
  },
  mechanism: ({ enabled }, cur) => {
    const u = cur.units[0]!;
    return [
      command('timedatectl', ['set-ntp', String(enabled)], { undo: putBack(enabled, u) }),
      // timedated returns once the job is queued: the same start (or stop) waits for it, so the change is done when the job is.
      command('systemctl', [enabled ? 'start' : 'stop', '--', u.unit], { noUndo: 'undone_earlier' }),
    ];
  },
});
