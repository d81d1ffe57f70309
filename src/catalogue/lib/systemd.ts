/**
 * systemd units as every family sees them: one `systemctl show` gives a unit's state
 * (readUnit), and the refusals every family shares keep the host and Airlock reachable:
 * rescue shells, the lifelines and the daemon's own unit (the lists are in ./guards.ts).
 */
import { AirlockError } from '../../protocol/errors.js';
import type { Host } from '../action.js';
import { isRescueUnit, LIFELINE_UNITS } from './guards.js';

/** What `systemctl show` says about a unit: the one source of current state for every action here. */
export interface UnitState {
  /** The unit's real name; differs from the name asked for when that is an alias. */
  id: string;
  names: string[];
  description: string;
  /** loaded, not-found, masked, bad-setting, error. */
  load: string;
  /** active, inactive, failed, activating, deactivating, reloading. */
  active: string;
  sub: string;
  /** enabled, disabled, static, masked, indirect, alias, generated, transient, ... or '' when there is no unit file. */
  unitFile: string;
  /** 0 when no process runs. */
  mainPid: number;
  since: string;
  canStart: boolean;
  canStop: boolean;
  canReload: boolean;
  /** Units that stop (and restart) with this one: Requires=, BindsTo= and PartOf= pointing at it. */
  requiredBy: string[];
  boundBy: string[];
  consistsOf: string[];
  wantedBy: string[];
  /** Sockets, paths or timers that can start it again. */
  triggeredBy: string[];
  fragmentPath: string;
  /** The account its processes run as: `User=`, 'dynamic' for `DynamicUser=yes`, '' when neither is set (root). */
  user: string;
  /** The service the Airlock daemon itself runs in, when it runs as one. */
  daemonUnit: string | null;
}

const SHOW_PROPERTIES = [
  'Id',
  'Names',
  'Description',
  'LoadState',
  'ActiveState',
  'SubState',
  'UnitFileState',
  'MainPID',
  'ExecMainStartTimestamp',
  'CanStart',
  'CanStop',
  'CanReload',
  'RequiredBy',
  'BoundBy',
  'ConsistsOf',
  'WantedBy',
  'TriggeredBy',
  'FragmentPath',
  'User',
  'DynamicUser',
];

/** Parses `systemctl show` output (KEY=VALUE lines, in systemd's own order). */
export function parseShow(text: string): Map<string, string> {
  const kv = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) kv.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return kv;
}

/** The service a process runs in, from its /proc/PID/cgroup ("0::/system.slice/airlock.service"). */
export function serviceOfCgroup(text: string): string | null {
  for (const line of text.split('\n')) {
    const path = line.split(':').slice(2).join(':');
    const unit = path.split('/').reverse().find((seg) => /\.service$/.test(seg));
    if (unit) return unit;
  }
  return null;
}

/** The service the Airlock daemon itself runs in, when it runs as one (from its own cgroup). */
export async function readDaemonUnit(host: Host): Promise<string | null> {
  const cgroup = await host.readFile(`/proc/${process.pid}/cgroup`).catch(() => null);
  return cgroup === null ? null : serviceOfCgroup(cgroup);
}

export async function readUnit(host: Host, unit: string): Promise<UnitState> {
  const r = await host.run('systemctl', ['show', '--no-pager', '-p', SHOW_PROPERTIES.join(','), '--', unit]);
  if (r.code !== 0) {
    throw new AirlockError('execution', 'unit_unreadable', `systemctl could not read the state of ${unit} (exit status ${r.code})`, 'is systemd the init system of this host?');
  }
  const kv = parseShow(r.stdout);
  const get = (k: string) => kv.get(k) ?? '';
  const list = (k: string) => get(k).split(/\s+/).filter(Boolean);
  const daemonUnit = await readDaemonUnit(host);
  return {
    id: get('Id') || unit,
    names: list('Names'),
    description: get('Description'),
    load: get('LoadState'),
    active: get('ActiveState'),
    sub: get('SubState'),
    unitFile: get('UnitFileState'),
    mainPid: Number(get('MainPID')) || 0,
    since: get('ExecMainStartTimestamp') === 'n/a' ? '' : get('ExecMainStartTimestamp'),
    canStart: get('CanStart') === 'yes',
    canStop: get('CanStop') === 'yes',
    canReload: get('CanReload') === 'yes',
    requiredBy: list('RequiredBy'),
    boundBy: list('BoundBy'),
    consistsOf: list('ConsistsOf'),
    wantedBy: list('WantedBy'),
    triggeredBy: list('TriggeredBy'),
    fragmentPath: get('FragmentPath'),
    user: get('DynamicUser') === 'yes' ? 'dynamic' : get('User'),
    daemonUnit,
  };
}

/** What an action does to a unit. */
export type UnitChange = 'start' | 'stop' | 'restart' | 'reload' | 'enable' | 'disable' | 'mask' | 'unmask';

/** Every name a unit is known by: the one asked for, its id and its aliases. */
export const allNames = (unit: string, u: UnitState) => [...new Set([unit, u.id, ...u.names])];
export const lifelineOf = (unit: string, u: UnitState) => allNames(unit, u).find((n) => n in LIFELINE_UNITS);

/**
 * The refusals every state-changing action shares: the name must be the unit's
 * real one (not an alias), rescue shells are never touched, and the lifelines and
 * the daemon's own unit are never stopped (or, for most of them, restarted).
 */
export function refuseProtected(change: UnitChange, unit: string, u: UnitState): void {
  const rescue = allNames(unit, u).find(isRescueUnit);
  if (rescue) {
    throw new AirlockError('authorization', 'rescue_unit', `${rescue} gives a root shell on a console; Airlock does not start, stop, enable or mask it`, 'a person changes it by hand at the console');
  }
  const takesDown = change === 'stop' || change === 'restart' || change === 'disable' || change === 'mask';
  if (takesDown && u.daemonUnit !== null && allNames(unit, u).includes(u.daemonUnit)) {
    throw new AirlockError('authorization', 'airlock_unit', `${unit} runs the Airlock daemon that is handling this request; it will not ${change} itself`, 'a person does this by hand');
  }
  const lifeline = lifelineOf(unit, u);
  if (takesDown && lifeline && (change !== 'restart' || LIFELINE_UNITS[lifeline]!.restart === 'refuse')) {
    throw new AirlockError('authorization', 'protected_unit', `${lifeline} is ${LIFELINE_UNITS[lifeline]!.why}; Airlock does not ${change} it`, 'a person does this by hand, from a console');
  }
  // The record should name what changes: an alias (sshd.service for ssh.service) is refused with the real name.
  if (u.id !== unit && u.load !== 'not-found') {
    throw new AirlockError('validation', 'unit_alias', `${unit} is an alias of ${u.id}`, `name the unit itself: ${u.id}`);
  }
}

export function refuseMissing(unit: string, u: UnitState): void {
  if (u.load === 'not-found') throw new AirlockError('validation', 'no_such_unit', `there is no unit ${unit} on this host`, 'list units with the ListServices or ListTimers action');
}

export function refuseMasked(unit: string, u: UnitState, change: UnitChange): void {
  if (u.load === 'masked' || u.unitFile === 'masked' || u.unitFile === 'masked-runtime') {
    throw new AirlockError('conflict', 'unit_masked', `${unit} is masked, so it cannot ${change === 'enable' ? 'be enabled' : change}`, 'unmask it first with UnmaskService');
  }
}

function refuseBroken(unit: string, u: UnitState): void {
  if (u.load !== 'loaded') {
    throw new AirlockError('conflict', 'unit_not_loaded', `${unit} did not load (LoadState=${u.load}): its unit file has an error`, 'ServiceStatus and UnitLogs show what systemd found wrong');
  }
}

/** Refusals shared by start, restart and reload: the unit exists, is not masked and loaded. */
export function refuseUnrunnable(change: UnitChange, unit: string, u: UnitState): void {
  refuseProtected(change, unit, u);
  refuseMissing(unit, u);
  refuseMasked(unit, u, change);
  refuseBroken(unit, u);
}

export const isRunning = (u: UnitState) => ['active', 'reloading', 'activating', 'deactivating'].includes(u.active);

// ---------------------------------------------------------------- preview pieces

/** "active, running, PID 123, since Sun 2026-11-29 20:34:44 UTC" */
export function describeState(u: UnitState): string {
  if (u.load === 'not-found') return 'not found';
  const parts = [`${u.active}${u.sub && u.sub !== u.active ? `, ${u.sub}` : ''}`];
  if (u.mainPid > 0) parts.push(`PID ${u.mainPid}`);
  if (u.since && isRunning(u)) parts.push(`since ${u.since}`);
  return parts.join(', ');
}

/**
 * Units whose processes no action here signals, starts on a schedule or otherwise
 * drives: the daemon's own unit, rescue shells and the lifelines the services family
 * refuses to stop. SSH is allowed (with a warning from `lifelineWarning`).
 */
export function refuseProtectedUnit(names: string[], daemonUnit: string | null, what: string): void {
  // "ssh.service is ..." for a unit, "process 42 (sshd) belongs to ssh.service, ..." for a process.
  const subject = (unit: string) => (names.includes(what) ? unit : `${what} belongs to ${unit}, which`);
  if (daemonUnit !== null && names.includes(daemonUnit)) {
    throw new AirlockError('authorization', 'airlock_unit', `${subject(daemonUnit)} runs the Airlock daemon handling this request`, 'a person does this by hand');
  }
  const rescue = names.find(isRescueUnit);
  if (rescue) throw new AirlockError('authorization', 'rescue_unit', `${subject(rescue)} gives a root shell on a console; Airlock does not touch it`);
  const lifeline = names.find((n) => LIFELINE_UNITS[n]?.restart === 'refuse');
  if (lifeline) {
    throw new AirlockError('authorization', 'protected_unit', `${subject(lifeline)} is ${LIFELINE_UNITS[lifeline]!.why}; Airlock does not signal it or schedule it`, 'a person does this by hand, from a console');
  }
}

/** A unit an action drives (signals, starts on a schedule): not protected, present, and named by its real name. */
export function refuseUnusableUnit(unit: string, u: UnitState): void {
  refuseProtectedUnit(allNames(unit, u), u.daemonUnit, unit);
  if (u.load === 'not-found') throw new AirlockError('validation', 'no_such_unit', `there is no unit ${unit} on this host`, 'ListServices lists the services');
  if (u.id !== unit) throw new AirlockError('validation', 'unit_alias', `${unit} is an alias of ${u.id}`, `name the unit itself: ${u.id}`);
}

