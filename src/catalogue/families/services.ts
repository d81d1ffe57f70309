/**
 * Services: systemd .service and .timer units, read, started, stopped, enabled and
 * masked through systemctl, and their journal read through journalctl. Every action
 * reads the unit's real state with one `systemctl show` (readUnit) and refuses what
 * would lock the host or Airlock out: rescue shells, the journal, the system bus,
 * logind, SSH, Airlock and the daemon's own unit.
 */
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host } from '../action.js';
import { command, type CommandStep } from '../mechanism.js';
import { DEFAULT_LOG_LINES, journalLines, params, serviceUnit } from '../params.js';
import { fixedRead } from '../lib/fixed-read.js';
import { allNames, describeState, isRunning, lifelineOf, readUnit, refuseMasked, refuseMissing, refuseProtected, refuseUnrunnable, type UnitChange, type UnitState } from '../lib/systemd.js';
import { LIFELINE_UNITS, NETWORK_UNITS } from '../lib/guards.js';


/** The [Install] section of a unit as `systemctl cat` prints it (drop-ins included): what enable links and disable unlinks. */
export interface InstallSection {
  wantedBy: string[];
  requiredBy: string[];
  alias: string[];
  also: string[];
}

export function parseInstall(text: string): InstallSection {
  const out: InstallSection = { wantedBy: [], requiredBy: [], alias: [], also: [] };
  const keys: Record<string, keyof InstallSection> = { WantedBy: 'wantedBy', RequiredBy: 'requiredBy', Alias: 'alias', Also: 'also' };
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) {
      section = head[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    const key = keys[line.slice(0, eq).trim()];
    if (section !== 'Install' || eq < 0 || !key) continue;
    const values = line.slice(eq + 1).trim().split(/\s+/).filter(Boolean);
    if (values.length === 0) out[key] = []; // an empty assignment resets the list
    for (const v of values) if (!out[key].includes(v)) out[key].push(v);
  }
  return out;
}

async function readInstall(host: Host, unit: string): Promise<InstallSection> {
  const r = await host.run('systemctl', ['cat', '--no-pager', '--', unit]);
  return parseInstall(r.code === 0 ? r.stdout : '');
}

/** The symbolic links `systemctl enable` creates for this [Install] section (and `disable` removes). */
function installLinks(unit: string, inst: InstallSection): string[] {
  return [
    ...inst.wantedBy.map((t) => `/etc/systemd/system/${t}.wants/${unit}`),
    ...inst.requiredBy.map((t) => `/etc/systemd/system/${t}.requires/${unit}`),
    ...inst.alias.map((a) => `/etc/systemd/system/${a}`),
  ];
}
/** Units that go down (and, on restart, come back) with this one. */
const dependents = (u: UnitState) => [...new Set([...u.requiredBy, ...u.boundBy, ...u.consistsOf])];

function retriggerEffects(u: UnitState): string[] {
  return u.triggeredBy.length ? [`${u.triggeredBy.join(', ')} can start it again (on the next connection, path change or timer)`] : [];
}

function lifelineWarnings(change: UnitChange, unit: string, u: UnitState): string[] {
  const out: string[] = [];
  const lifeline = lifelineOf(unit, u);
  if (lifeline && change === 'restart') out.push(`${lifeline} is ${LIFELINE_UNITS[lifeline]!.why}: open sessions stay, but if it does not come back no new one can start`);
  const net = allNames(unit, u).find((n) => NETWORK_UNITS.includes(n));
  if (net && (change === 'stop' || change === 'restart' || change === 'disable' || change === 'mask')) {
    out.push(`${net} manages the network: this may take interfaces down and cut this host off, SSH sessions included`);
  }
  return out;
}

/** "stops nginx.service (active, running, PID 123); units that depend on it may stop too: a.service" */
function changeText(verb: string, unit: string, u: UnitState, cascade?: 'stop' | 'restart'): string {
  const deps = cascade ? dependents(u) : [];
  return `${verb} ${unit} (${describeState(u)})${deps.length ? `; units that depend on it may ${cascade} too: ${deps.join(', ')}` : ''}`;
}

const systemctl = (verb: string, unit: string): CommandStep => command('systemctl', [verb, '--', unit]);

// ---------------------------------------------------------------- reads

export const listServices = fixedRead({
  name: 'ListServices',
  sensitive: false,
  reachesNetwork: false,
  family: 'services',
  description: 'List the service units systemd holds (running, stopped, failed, or referenced but not found) with their load, active and sub state.',
  summary: 'List all service units and their states',
  steps: [command('systemctl', ['list-units', '--type=service', '--all', '--no-pager', '--plain', '--no-legend'])],
});

export const failedUnits = fixedRead({
  name: 'FailedUnits',
  sensitive: false,
  reachesNetwork: false,
  family: 'services',
  description: 'List the units of any type that systemd reports as failed.',
  summary: 'List failed units',
  steps: [command('systemctl', ['list-units', '--state=failed', '--all', '--no-pager', '--plain', '--no-legend'])],
});

export const listTimers = fixedRead({
  name: 'ListTimers',
  sensitive: false,
  reachesNetwork: false,
  family: 'services',
  description: 'List every timer unit with its next and last run and the unit it activates.',
  summary: 'List all timers with their next and last runs',
  steps: [command('systemctl', ['list-timers', '--all', '--no-pager'])],
});

const STATUS_PROPERTIES = 'Id,LoadState,ActiveState,SubState,UnitFileState,MainPID,ExecMainStartTimestamp';

export const serviceStatus = action({
  name: 'ServiceStatus',
  family: 'services',
  description: 'Show the load, active and enablement state, main PID and start time of one service or timer.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  preview: ({ unit }, cur) => ({ summary: `Show the state of ${unit} (now ${describeState(cur)})`, change: null }),
  mechanism: ({ unit }) => [
    command('systemctl', ['show', '--no-pager', '-p', STATUS_PROPERTIES, '--', unit]),
    // is-enabled exits 1 for disabled, masked and unknown units: that is an answer, not a failure.
    command('systemctl', ['is-enabled', '--', unit], { okCodes: [0, 1] }),
  ],
});

export const unitLogs = action({
  name: 'UnitLogs',
  family: 'services',
  description: `Show the last journal lines (1 to 1000, ${DEFAULT_LOG_LINES} when omitted) of one service or timer, with ISO timestamps.`,
  risk: 'low',
  readOnly: true,
  // Sensitive: journal lines: cron's command lines, passwords mistyped as SSH user names, other users' sessions.
  sensitive: true,
  reachesNetwork: false,
  params: params({ unit: serviceUnit, lines: journalLines.optional() }),
  files: [],
  example: { unit: 'nginx.service', lines: 50 },
  current: ({ unit }, host) => readUnit(host, unit),
  preview: ({ unit, lines }, cur) => ({ summary: `Read the last ${lines ?? DEFAULT_LOG_LINES} journal lines of ${unit} (now ${describeState(cur)})`, change: null }),
  // The unit is the argument of -u, never an option of its own; it cannot start with '-' anyway.
  mechanism: ({ unit, lines }) => [command('journalctl', ['-u', unit, '-n', String(lines ?? DEFAULT_LOG_LINES), '--no-pager', '-o', 'short-iso'])],
});

// ---------------------------------------------------------------- run state

export const startService = action({
  name: 'StartService',
  family: 'services',
  description: 'Start a stopped service or timer now (its enablement at boot is unchanged).',
  risk: 'medium',
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseUnrunnable('start', unit, cur);
    if (isRunning(cur)) throw new AirlockError('conflict', 'already_active', `${unit} is already ${describeState(cur)}`, 'RestartService restarts it');
    if (!cur.canStart) throw new AirlockError('conflict', 'manual_start_refused', `${unit} refuses to be started by hand (RefuseManualStart=yes)`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Start ${unit}`,
    change: { unit, state: { from: describeState(cur), to: 'active' }, text: changeText('starts', unit, cur) },
    sideEffects: ['units it requires are started first if they are not running'],
  }),
  mechanism: ({ unit }) => [systemctl('start', unit)],
});

export const stopService = action({
  name: 'StopService',
  family: 'services',
  description: 'Stop a running service or timer now (its enablement at boot is unchanged); refuses the units that keep the host reachable.',
  risk: 'medium',
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('stop', unit, cur);
    // A masked unit or one whose file was deleted may still run; stopping it is what one then wants.
    if (!isRunning(cur)) {
      refuseMissing(unit, cur);
      throw new AirlockError('conflict', 'not_active', `${unit} is not running (${describeState(cur)})`);
    }
    if (!cur.canStop) throw new AirlockError('conflict', 'manual_stop_refused', `${unit} refuses to be stopped by hand (RefuseManualStop=yes)`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Stop ${unit} (${describeState(cur)})`,
    change: { unit, state: { from: describeState(cur), to: 'inactive' }, text: changeText('stops', unit, cur, 'stop'), dependents: dependents(cur) },
    sideEffects: [`${unit} is unavailable until started again`, ...retriggerEffects(cur)],
    warnings: lifelineWarnings('stop', unit, cur),
  }),
  mechanism: ({ unit }) => [systemctl('stop', unit)],
});

export const restartService = action({
  name: 'RestartService',
  family: 'services',
  description: 'Restart a service or timer (start it if it is stopped): its process is replaced by a new one.',
  risk: 'medium',
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseUnrunnable('restart', unit, cur);
    if (!cur.canStart) throw new AirlockError('conflict', 'manual_start_refused', `${unit} refuses to be started by hand (RefuseManualStart=yes)`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Restart ${unit} (${describeState(cur)})`,
    change: {
      unit,
      state: { from: describeState(cur), to: 'active' },
      text: isRunning(cur) ? changeText('stops and starts', unit, cur, 'restart') : changeText('starts', unit, cur),
      dependents: dependents(cur),
    },
    sideEffects: isRunning(cur) ? [`${unit} is unavailable while it restarts and gets a new main process`] : [],
    warnings: lifelineWarnings('restart', unit, cur),
  }),
  mechanism: ({ unit }) => [systemctl('restart', unit)],
});

export const reloadService = action({
  name: 'ReloadService',
  family: 'services',
  description: 'Ask a running service to reload its configuration (its ExecReload), keeping its process.',
  risk: 'medium',
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseUnrunnable('reload', unit, cur);
    if (!cur.canReload) throw new AirlockError('conflict', 'cannot_reload', `${unit} cannot reload (it has no ExecReload)`, 'RestartService restarts it instead');
    if (cur.active !== 'active') throw new AirlockError('conflict', 'not_active', `${unit} is not active (${describeState(cur)}), so it cannot reload`, 'StartService starts it');
  },
  preview: ({ unit }, cur) => ({
    summary: `Reload ${unit} (${describeState(cur)})`,
    change: { unit, text: `asks ${unit} to reload its configuration${cur.mainPid ? `; PID ${cur.mainPid} keeps running` : ''}` },
    sideEffects: ['a configuration error may make the service fail or keep its old settings'],
  }),
  mechanism: ({ unit }) => [systemctl('reload', unit)],
});

// ---------------------------------------------------------------- boot-time state

const ENABLE_FROM = ['disabled', 'indirect'];

export const enableService = action({
  name: 'EnableService',
  family: 'services',
  description: 'Enable a service or timer at boot by creating the links its [Install] section names (does not start it now).',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: async ({ unit }, host) => ({ ...(await readUnit(host, unit)), install: await readInstall(host, unit) }),
  check: ({ unit }, cur) => {
    refuseProtected('enable', unit, cur);
    refuseMissing(unit, cur);
    refuseMasked(unit, cur, 'enable');
    if (cur.unitFile === 'enabled' || cur.unitFile === 'enabled-runtime') throw new AirlockError('conflict', 'already_enabled', `${unit} is already enabled`);
    if (!ENABLE_FROM.includes(cur.unitFile) || installLinks(unit, cur.install).length + cur.install.also.length === 0) {
      throw new AirlockError('conflict', 'not_installable', `${unit} cannot be enabled: its unit file state is ${cur.unitFile || 'unknown'} and it names no WantedBy=, RequiredBy= or Alias= to link`, 'a static unit starts when another unit pulls it in');
    }
  },
  preview: ({ unit }, cur) => ({
    summary: `Enable ${unit} at boot`,
    change: { unit, unit_file_state: { from: cur.unitFile, to: 'enabled' }, creates_links: installLinks(unit, cur.install), also_enables: cur.install.also },
    sideEffects: [
      `${unit} starts at boot${cur.install.wantedBy.length ? ` with ${cur.install.wantedBy.join(', ')}` : ''}`,
      isRunning(cur) ? `it is already running (${describeState(cur)})` : `it is not started now (${describeState(cur)}); StartService starts it`,
    ],
  }),
  mechanism: ({ unit }) => [{ ...systemctl('enable', unit), undo: systemctl('disable', unit) }],
});

export const disableService = action({
  name: 'DisableService',
  family: 'services',
  description: 'Stop a service or timer from starting at boot by removing its [Install] links (does not stop it now).',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: async ({ unit }, host) => ({ ...(await readUnit(host, unit)), install: await readInstall(host, unit) }),
  check: ({ unit }, cur) => {
    refuseProtected('disable', unit, cur);
    refuseMissing(unit, cur);
    refuseMasked(unit, cur, 'disable');
    if (cur.unitFile !== 'enabled') {
      throw new AirlockError('conflict', 'not_enabled', `${unit} is not enabled (its unit file state is ${cur.unitFile || 'unknown'})`, cur.unitFile === 'static' ? 'a static unit starts when another unit pulls it in; MaskService stops that' : undefined);
    }
  },
  preview: ({ unit }, cur) => ({
    summary: `Disable ${unit} at boot`,
    change: { unit, unit_file_state: { from: cur.unitFile, to: 'disabled' }, removes_links: installLinks(unit, cur.install), also_disables: cur.install.also },
    sideEffects: [
      `${unit} no longer starts at boot, unless another unit pulls it in`,
      isRunning(cur) ? `it keeps running now (${describeState(cur)}); StopService stops it` : `it is not running (${describeState(cur)})`,
    ],
    warnings: lifelineWarnings('disable', unit, cur),
  }),
  mechanism: ({ unit }) => [{ ...systemctl('disable', unit), undo: systemctl('enable', unit) }],
});

export const maskService = action({
  name: 'MaskService',
  family: 'services',
  description: 'Mask a service or timer (link /etc/systemd/system/UNIT to /dev/null) so nothing can start it, by hand or as a dependency.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('mask', unit, cur);
    refuseMissing(unit, cur);
    if (cur.load === 'masked' || cur.unitFile.startsWith('masked')) throw new AirlockError('conflict', 'already_masked', `${unit} is already masked`);
    if (cur.fragmentPath === `/etc/systemd/system/${unit}`) {
      throw new AirlockError('conflict', 'unit_file_in_etc', `${unit} is defined by /etc/systemd/system/${unit} itself; masking would have to replace that file`, 'DisableService and StopService keep it from running');
    }
  },
  preview: ({ unit }, cur) => ({
    summary: `Mask ${unit}`,
    change: { unit, creates_link: { path: `/etc/systemd/system/${unit}`, target: '/dev/null' }, unit_file_state: { from: cur.unitFile, to: 'masked' } },
    sideEffects: [
      `nothing can start ${unit} until UnmaskService: not a person, not boot, not another unit that requires it`,
      ...(dependents(cur).length ? [`units that require it cannot start either: ${dependents(cur).join(', ')}`] : []),
    ],
    warnings: [
      ...(isRunning(cur) ? [`${unit} is ${describeState(cur)} and keeps running until stopped: StopService stops it`] : []),
      ...lifelineWarnings('mask', unit, cur),
    ],
  }),
  mechanism: ({ unit }) => [{ ...systemctl('mask', unit), undo: systemctl('unmask', unit) }],
});

export const unmaskService = action({
  name: 'UnmaskService',
  family: 'services',
  description: 'Unmask a masked service or timer (remove its link to /dev/null) so it can be started again.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('unmask', unit, cur);
    if (cur.unitFile === 'masked-runtime') {
      throw new AirlockError('conflict', 'masked_at_runtime', `${unit} is masked only until the next boot (in /run/systemd); Airlock unmasks persistent masks only`);
    }
    if (cur.load !== 'masked' && cur.unitFile !== 'masked') throw new AirlockError('conflict', 'not_masked', `${unit} is not masked`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Unmask ${unit}`,
    change: { unit, removes_link: { path: `/etc/systemd/system/${unit}`, target: '/dev/null' }, text: `${unit} can be started again; its enablement at boot returns to what its links say` },
    sideEffects: [isRunning(cur) ? `it is ${describeState(cur)}` : `it is not started now (${describeState(cur)}); StartService starts it`],
  }),
  mechanism: ({ unit }) => [{ ...systemctl('unmask', unit), undo: systemctl('mask', unit) }],
});
