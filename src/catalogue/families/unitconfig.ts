/**
 * Unit configuration (family 'services'): how systemd runs a service, changed only
 * through Airlock's own drop-ins /etc/systemd/system/UNIT.d/airlock-*.conf (restart
 * policy, resource limits) and undone by deleting them; timers enabled and started
 * (or disabled and stopped) together; unit files and drop-ins shown; daemon-reload.
 * Unit files and drop-ins of packages and people are read, never written. The unit
 * refusals (rescue shells, aliases, lifelines, missing or masked units) are those of
 * the services family, imported from it.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, nothingToRead, type Host } from '../action.js';
import { command, fileDelete, fileWrite, type CommandStep, type Step } from '../mechanism.js';
import { params, serviceUnit, token, unitName } from '../params.js';
import { allNames, describeState, isRunning, lifelineOf, parseShow, readUnit, refuseMissing, refuseProtected, refuseUnrunnable, type UnitState } from '../lib/systemd.js';
import { LIFELINE_UNITS } from '../lib/guards.js';
import { listDirectory } from '../lib/host-files.js';

// ---------------------------------------------------------------- parameters

/** A .service unit: only services have the [Service] section the drop-ins here write. */
export const configurableService = serviceUnit.refine((u) => u.endsWith('.service'), 'only .service units take restart policies and resource limits');
/** A .timer unit (a template needs its instance). */
export const timerUnit = serviceUnit.refine((u) => u.endsWith('.timer'), 'only .timer units are enabled or disabled here (EnableService and DisableService handle services)');

export const RESTART_POLICIES = ['no', 'on-success', 'on-failure', 'on-abnormal', 'on-watchdog', 'on-abort', 'always'] as const;
/** Policies systemd refuses for Type=oneshot: the unit would stop loading (LoadState=bad-setting). */
const ONESHOT_FORBIDDEN: readonly string[] = ['always', 'on-success'];
/** RestartSec= in whole seconds: 0 (at once) to one hour. */
export const restartDelay = z.number().int().min(0).max(3600);

const MIN_MEMORY_BYTES = 32 * 1024 ** 2;
const SIZE_FACTOR: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
/**
 * MemoryMax=: a size with a K, M, G or T suffix (32M at least: below that most services
 * are killed as soon as they start), a share of the RAM from 1% to 100%, or infinity.
 */
export const memoryMax = token(/^([1-9][0-9]{0,6}[KMGT]|[1-9][0-9]?%|100%|infinity)$/, 'memory limit (e.g. 512M, 2G, 50% or infinity)', 9).refine((s) => {
  const m = /^([0-9]+)([KMGT])$/.exec(s);
  return !m || Number(m[1]) * SIZE_FACTOR[m[2]!]! >= MIN_MEMORY_BYTES;
}, 'a memory limit must be at least 32M');
/** CPUQuota= in percent of one CPU: 1 to 10000 (100 CPUs). */
export const cpuQuota = z.number().int().min(1).max(10_000);
/** TasksMax=: 16 processes and threads at least (fewer break most services at start), or infinity. */
export const tasksMax = z.union([z.number().int().min(16).max(4_194_304), z.literal('infinity')]);
/** LimitNOFILE= (soft and hard): 64 to 1048576, the kernel's default fs.nr_open. */
export const openFilesLimit = z.number().int().min(64).max(1_048_576);

/** The type filters of ListUnitFiles: the unit types that have unit files. */
export const UNIT_FILE_TYPES = ['service', 'socket', 'timer', 'target', 'path', 'mount', 'automount', 'swap', 'slice'] as const;

// ---------------------------------------------------------------- drop-ins

const UNIT_DIR = '/etc/systemd/system';
const dropInDir = (unit: string) => `${UNIT_DIR}/${unit}.d`;
const RESTART_DROPIN = 'airlock-restart.conf';
const LIMITS_DROPIN = 'airlock-limits.conf';
/** Airlock's own drop-ins: the only ones any action here writes or deletes. */
const OWN_DROPIN = /^airlock-[a-z0-9-]+\.conf$/;
const OWN_DROPINS_GLOB = `${UNIT_DIR}/*.d/airlock-*.conf`;

/** Each drop-in key and the `systemctl show` property that reports its effective value. */
const SHOWN_AS: Record<string, string> = {
  Restart: 'Restart',
  RestartSec: 'RestartUSec',
  MemoryMax: 'MemoryMax',
  CPUQuota: 'CPUQuotaPerSecUSec',
  TasksMax: 'TasksMax',
  LimitNOFILE: 'LimitNOFILE',
};
const propertiesOf = (keys: string[]) => [...new Set(keys.map((k) => SHOWN_AS[k] ?? k))];

/** The content of an Airlock drop-in: a header saying whose it is, then [Service] KEY=VALUE lines. */
export function dropInText(settings: Array<[string, string]>): string {
  return `# Written by Airlock; ResetServiceOverrides removes it.\n[Service]\n${settings.map(([k, v]) => `${k}=${v}\n`).join('')}`;
}

/** The keys a unit file or drop-in assigns in one section (comments, other sections ignored). */
export function sectionKeys(text: string, section: string): string[] {
  const keys: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const head = /^\[(.+)\]$/.exec(line);
    if (head) current = head[1]!;
    else if (current === section && /^[A-Za-z][A-Za-z0-9]*\s*=/.test(line)) keys.push(line.slice(0, line.indexOf('=')).trim());
  }
  return keys;
}

// ---------------------------------------------------------------- state readers

/** The read of some properties of a unit: a state reader here, and a step showing the values before and after a change. */
const showValues = (unit: string, props: string[]): CommandStep => command('systemctl', ['show', '--no-pager', '-p', props.join(','), '--', unit]);

/** Some properties of a unit as `systemctl show` reports them ('' when it reports none). */
async function showProperties(host: Host, unit: string, props: string[]): Promise<Record<string, string>> {
  const show = showValues(unit, props);
  const r = await host.run(show.program, show.args);
  if (r.code !== 0) throw new AirlockError('execution', 'unit_unreadable', `systemctl could not read ${props.join(', ')} of ${unit} (exit status ${r.code})`);
  const kv = parseShow(r.stdout);
  return Object.fromEntries(props.map((p) => [p, kv.get(p) ?? '']));
}

/** Loaded units whose files changed on disk since systemd last read them (NeedDaemonReload=yes). */
async function unitsNeedingReload(host: Host): Promise<string[]> {
  // systemctl matches the pattern against the loaded units itself; no shell is involved.
  const r = await host.run('systemctl', ['show', '--no-pager', '-p', 'Id,NeedDaemonReload', '--', '*']);
  if (r.code !== 0) return [];
  return r.stdout
    .split('\n\n')
    .map(parseShow)
    .filter((kv) => kv.get('NeedDaemonReload') === 'yes')
    .map((kv) => kv.get('Id') ?? '')
    .filter(Boolean)
    .sort();
}

/** A file that configures a unit, and whether any user may read it (what the unprivileged reads here show). */
export interface UnitFile {
  path: string;
  airlock: boolean;
  readableByAll: boolean;
}

/** A unit's state plus the files systemd loaded it from: its unit file and drop-ins, in the order systemd applies them. */
export interface UnitFiles extends UnitState {
  dropIns: UnitFile[];
  /** Files of the unit an unprivileged read cannot show (readable by root only, or gone). */
  hidden: string[];
}

async function describeFile(host: Host, path: string, unit: string): Promise<UnitFile> {
  const st = await host.stat(path);
  return { path, airlock: posix.dirname(path) === dropInDir(unit) && OWN_DROPIN.test(posix.basename(path)), readableByAll: st !== null && (st.mode & 0o004) !== 0 };
}

async function readUnitFiles(host: Host, unit: string): Promise<UnitFiles> {
  const u = await readUnit(host, unit);
  const { DropInPaths } = await showProperties(host, unit, ['DropInPaths']);
  const dropIns = await Promise.all(DropInPaths!.split(/\s+/).filter(Boolean).map((p) => describeFile(host, p, unit)));
  const fragment = u.fragmentPath ? [await describeFile(host, u.fragmentPath, unit)] : [];
  return { ...u, dropIns, hidden: [...fragment, ...dropIns].filter((f) => !f.readableByAll).map((f) => f.path) };
}

/** What a drop-in action reads: the unit, the effective values of its keys, its own file, and what would defeat it. */
export interface DropInTarget extends UnitState {
  type: string;
  /** Effective values now, by `systemctl show` property. */
  values: Record<string, string>;
  file: string;
  /** The drop-in's content now; null when absent. */
  existing: string | null;
  /** Drop-ins systemd applies after this one that set one of its keys in [Service]: they would win. */
  overriddenBy: string[];
  pendingReload: string[];
}

async function readDropInTarget(host: Host, unit: string, name: string, keys: string[]): Promise<DropInTarget> {
  const u = await readUnit(host, unit);
  const values = await showProperties(host, unit, ['Type', 'DropInPaths', ...propertiesOf(keys)]);
  const file = `${dropInDir(unit)}/${name}`;
  const overriddenBy: string[] = [];
  // systemd applies drop-ins in the order of their file names, whatever their directory: later ones win.
  for (const path of values.DropInPaths!.split(/\s+/).filter(Boolean)) {
    if (path === file || posix.basename(path) <= name) continue;
    const text = await host.readFile(path).catch(() => null);
    if (text !== null && sectionKeys(text, 'Service').some((k) => keys.includes(k))) overriddenBy.push(path);
  }
  const { Type, DropInPaths: _paths, ...effective } = values;
  return { ...u, type: Type!, values: effective, file, existing: await host.readFile(file), overriddenBy, pendingReload: await unitsNeedingReload(host) };
}

// ---------------------------------------------------------------- refusals and preview pieces

/** What a drop-in can be written for: an existing, unmasked, persistent unit named by its real name. */
function refuseUnconfigurable(unit: string, cur: DropInTarget): void {
  refuseProtected('reload', unit, cur); // rescue shells and aliases; configuring takes nothing down
  refuseMissing(unit, cur);
  if (cur.load === 'masked' || cur.unitFile.startsWith('masked')) {
    throw new AirlockError('conflict', 'unit_masked', `${unit} is masked: a drop-in for it would have no effect`, 'unmask it first with UnmaskService');
  }
  if (cur.unitFile === 'transient') throw new AirlockError('conflict', 'transient_unit', `${unit} is a transient unit (created at run time, gone when it stops); it has no unit file to extend`);
  if (cur.overriddenBy.length) {
    throw new AirlockError('conflict', 'overridden', `${cur.overriddenBy.join(', ')} ${cur.overriddenBy.length === 1 ? 'is' : 'are'} applied after ${cur.file} and set${cur.overriddenBy.length === 1 ? 's' : ''} the same keys, so this change would have no effect`, 'a person changes that drop-in; ShowServiceOverrides shows it');
  }
}

function refuseUnchanged(unit: string, cur: DropInTarget, content: string): void {
  if (cur.existing === content) throw new AirlockError('conflict', 'unchanged', `${cur.file} already holds exactly these settings for ${unit}`);
}

const reloadEffect = (pending: string[]) =>
  `systemd reloads every unit file (daemon-reload)${pending.length ? `, which also loads the changes on disk not yet loaded of: ${pending.join(', ')}` : ''}`;

/** "Restart: on-failure -> always" pairs for the preview, by drop-in key. */
function fromTo(cur: DropInTarget, settings: Array<[string, string]>) {
  return Object.fromEntries(settings.map(([k, v]) => [k, { now: `${SHOWN_AS[k]}=${cur.values[SHOWN_AS[k]!] || 'unset'}`, to: v }]));
}

// ---------------------------------------------------------------- steps

const daemonReload = (): CommandStep => command('systemctl', ['daemon-reload']);

/**
 * Drop-in file steps between two reads of the values they change, then a reload. The
 * first read (the values before, in the output) carries the rollback's reload: undos run
 * in reverse order, so when a later step fails the files are restored first and systemd
 * then reloads them. The last read shows what systemd applies now.
 */
function reloadedChange(unit: string, props: string[], fileSteps: Step[]): Step[] {
  return [{ ...showValues(unit, props), undo: daemonReload() }, ...fileSteps, daemonReload(), showValues(unit, props)];
}

const writeDropIn = (path: string, content: string) => fileWrite(path, content, { mode: 0o644, parent: { mode: 0o755 } });

// ---------------------------------------------------------------- restart policy

const restartSettings = (restart: string, restartSec?: number): Array<[string, string]> => [['Restart', restart], ...(restartSec === undefined ? [] : [['RestartSec', `${restartSec}s`] as [string, string]])];
const RESTART_KEYS = ['Restart', 'RestartSec'];

export const setRestartPolicy = action({
  name: 'SetRestartPolicy',
  family: 'services',
  description: `Set when systemd restarts a service (Restart=, and RestartSec= in seconds) in the drop-in ${UNIT_DIR}/UNIT.d/${RESTART_DROPIN}, replacing that file, then daemon-reload.`,
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ unit: configurableService, restart: z.enum(RESTART_POLICIES), restartSec: restartDelay.optional() }),
  files: [`${UNIT_DIR}/*.d/${RESTART_DROPIN}`],
  example: { unit: 'nginx.service', restart: 'on-failure', restartSec: 5 },
  current: ({ unit }, host) => readDropInTarget(host, unit, RESTART_DROPIN, RESTART_KEYS),
  check: ({ unit, restart, restartSec }, cur) => {
    refuseUnconfigurable(unit, cur);
    if (cur.type === 'oneshot' && ONESHOT_FORBIDDEN.includes(restart)) {
      throw new AirlockError('validation', 'invalid_for_oneshot', `${unit} is Type=oneshot, for which systemd refuses Restart=${restart} (the unit would no longer load)`, 'use on-failure or on-abnormal');
    }
    refuseUnchanged(unit, cur, dropInText(restartSettings(restart, restartSec)));
  },
  preview: ({ unit, restart, restartSec }, cur) => {
    const settings = restartSettings(restart, restartSec);
    const lifeline = lifelineOf(unit, cur);
    return {
      summary: `Set ${settings.map(([k, v]) => `${k}=${v}`).join(', ')} for ${unit}`,
      change: { unit, file: cur.file, content: dropInText(settings), replaces: cur.existing, settings: fromTo(cur, settings), then: 'systemctl daemon-reload' },
      sideEffects: [reloadEffect(cur.pendingReload), `${unit} keeps running (${describeState(cur)}); the policy applies the next time its main process exits`],
      warnings: [
        ...(restart === 'no' && lifeline ? [`${lifeline} is ${LIFELINE_UNITS[lifeline]!.why}: with Restart=no it stays down if it crashes`] : []),
        ...(restart === 'always' && restartSec === 0 ? ['Restart=always with RestartSec=0 restarts at once: a service that keeps failing hits its start limit and stays failed'] : []),
      ],
    };
  },
  mechanism: ({ unit, restart, restartSec }, cur) => reloadedChange(unit, propertiesOf(RESTART_KEYS), [writeDropIn(cur.file, dropInText(restartSettings(restart, restartSec)))]),
});

// ---------------------------------------------------------------- resource limits

const LIMIT_KEYS = ['MemoryMax', 'CPUQuota', 'TasksMax', 'LimitNOFILE'];

interface LimitParams {
  memoryMax?: string;
  cpuQuota?: number;
  tasksMax?: number | 'infinity';
  limitNofile?: number;
}

/** The limits given, in a fixed order, as drop-in lines. */
function limitSettings(p: LimitParams): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (p.memoryMax !== undefined) out.push(['MemoryMax', p.memoryMax]);
  if (p.cpuQuota !== undefined) out.push(['CPUQuota', `${p.cpuQuota}%`]);
  if (p.tasksMax !== undefined) out.push(['TasksMax', String(p.tasksMax)]);
  if (p.limitNofile !== undefined) out.push(['LimitNOFILE', String(p.limitNofile)]);
  return out;
}

export const setResourceLimits = action({
  name: 'SetResourceLimits',
  family: 'services',
  description: `Limit a service's memory (MemoryMax=), CPU (CPUQuota= in percent), tasks (TasksMax=) and open files (LimitNOFILE=) in the drop-in ${UNIT_DIR}/UNIT.d/${LIMITS_DROPIN}, which holds exactly the limits given, then daemon-reload.`,
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ unit: configurableService, memoryMax: memoryMax.optional(), cpuQuota: cpuQuota.optional(), tasksMax: tasksMax.optional(), limitNofile: openFilesLimit.optional() }).refine(
    (p) => limitSettings(p).length > 0,
    'give at least one of memoryMax, cpuQuota, tasksMax and limitNofile',
  ),
  files: [`${UNIT_DIR}/*.d/${LIMITS_DROPIN}`],
  example: { unit: 'nginx.service', memoryMax: '512M', cpuQuota: 50 },
  current: async ({ unit }, host) => {
    const cur = await readDropInTarget(host, unit, LIMITS_DROPIN, LIMIT_KEYS);
    // The soft open-files limit is what a process meets first; the drop-in sets both.
    return { ...cur, values: { ...cur.values, ...(await showProperties(host, unit, ['LimitNOFILESoft'])) } };
  },
  check: ({ unit, ...limits }, cur) => {
    refuseUnconfigurable(unit, cur);
    // A limit too tight kills the service: never risk that for the units that keep this host reachable, or for Airlock.
    const lifeline = lifelineOf(unit, cur);
    if (lifeline) throw new AirlockError('authorization', 'protected_unit', `${lifeline} is ${LIFELINE_UNITS[lifeline]!.why}; Airlock does not limit its resources`, 'a person does this by hand, from a console');
    if (cur.daemonUnit !== null && allNames(unit, cur).includes(cur.daemonUnit)) {
      throw new AirlockError('authorization', 'airlock_unit', `${unit} runs the Airlock daemon that is handling this request; it does not limit itself`, 'a person does this by hand');
    }
    refuseUnchanged(unit, cur, dropInText(limitSettings(limits)));
  },
  preview: ({ unit, ...limits }, cur) => {
    const settings = limitSettings(limits);
    const dropped = cur.existing === null ? [] : sectionKeys(cur.existing, 'Service').filter((k) => !settings.some(([s]) => s === k));
    const processLimit = settings.some(([k]) => k === 'LimitNOFILE');
    return {
      summary: `Set ${settings.map(([k, v]) => `${k}=${v}`).join(', ')} for ${unit}`,
      change: {
        unit,
        file: cur.file,
        content: dropInText(settings),
        replaces: cur.existing,
        settings: { ...fromTo(cur, settings), ...(processLimit ? { LimitNOFILE: { now: `soft ${cur.values.LimitNOFILESoft}, hard ${cur.values.LimitNOFILE}`, to: `soft and hard ${limits.limitNofile}` } } : {}) },
        no_longer_set_here: dropped,
        then: 'systemctl daemon-reload',
      },
      sideEffects: [
        reloadEffect(cur.pendingReload),
        ...(settings.some(([k]) => k !== 'LimitNOFILE') ? [`systemd applies the memory, CPU and task limits to the running ${unit} when it reloads`] : []),
        ...(processLimit ? [`LimitNOFILE applies from the next start of ${unit}${isRunning(cur) ? ' (RestartService restarts it)' : ''}`] : []),
      ],
      warnings: [
        ...(limits.memoryMax !== undefined && limits.memoryMax !== 'infinity' && isRunning(cur) ? [`if ${unit} already uses more than ${limits.memoryMax}, the kernel reclaims or kills its processes at once`] : []),
        ...(dropped.length ? [`${dropped.join(', ')} ${dropped.length === 1 ? 'is' : 'are'} no longer set by Airlock: the file holds only the limits given now`] : []),
      ],
    };
  },
  mechanism: ({ unit, ...limits }, cur) => reloadedChange(unit, propertiesOf(LIMIT_KEYS), [writeDropIn(cur.file, dropInText(limitSettings(limits)))]),
});

// ---------------------------------------------------------------- drop-ins: show and reset

export const showServiceOverrides = action({
  name: 'ShowServiceOverrides',
  family: 'services',
  description: "List a unit's drop-ins (from /etc, /run and /usr/lib, in the order systemd applies them) and print those any user may read, line by line.",
  risk: 'low',
  readOnly: true,
  // Sensitive: drop-in contents: Environment= lines may carry secrets.
  sensitive: true,
  reachesNetwork: false,
  params: params({ unit: unitName }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnitFiles(host, unit),
  check: ({ unit }, cur) => {
    refuseMissing(unit, cur);
    if (cur.dropIns.length === 0) throw new AirlockError('conflict', 'no_overrides', `${unit} has no drop-ins: its unit file alone configures it`, 'ShowUnitFile prints it');
  },
  preview: ({ unit }, cur) => ({
    summary: `Show the ${cur.dropIns.length} drop-in${cur.dropIns.length === 1 ? '' : 's'} of ${unit}`,
    change: null,
    warnings: cur.hidden.filter((p) => cur.dropIns.some((d) => d.path === p)).map((p) => `${p} is readable by root only and is not shown`),
  }),
  // Read as nobody: a drop-in only root may read (Environment= secrets) stays unread; grep exits 2 for it and shows the rest.
  mechanism: (_p, cur) => [
    command('grep', ['--with-filename', '--line-number', '--regexp=', '--', ...cur.dropIns.map((d) => d.path)], { unprivileged: true, okCodes: cur.hidden.length ? [0, 1, 2] : [0, 1] }),
  ],
});

interface OwnDropIns extends UnitState {
  dir: string;
  files: Array<{ path: string; content: string }>;
  /** Effective values now of the keys those files set. */
  values: Record<string, string>;
  pendingReload: string[];
}

async function readOwnDropIns(host: Host, unit: string): Promise<OwnDropIns> {
  const u = await readUnit(host, unit);
  const dir = dropInDir(unit);
  const names = ((await listDirectory(host, dir)) ?? []).filter((n) => OWN_DROPIN.test(n)).sort();
  const files: OwnDropIns['files'] = [];
  for (const name of names) {
    const content = await host.readFile(`${dir}/${name}`).catch(() => null);
    if (content !== null) files.push({ path: `${dir}/${name}`, content });
  }
  const keys = files.flatMap((f) => sectionKeys(f.content, 'Service'));
  return { ...u, dir, files, values: keys.length ? await showProperties(host, unit, propertiesOf(keys)) : {}, pendingReload: await unitsNeedingReload(host) };
}

export const resetServiceOverrides = action({
  name: 'ResetServiceOverrides',
  family: 'services',
  description: `Delete Airlock's own drop-ins (${UNIT_DIR}/UNIT.d/airlock-*.conf: restart policy, resource limits) of a unit, then daemon-reload; drop-ins of packages and people stay.`,
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ unit: serviceUnit }),
  files: [OWN_DROPINS_GLOB],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readOwnDropIns(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('reload', unit, cur); // aliases: the drop-ins live under the real name
    if (cur.files.length === 0) throw new AirlockError('conflict', 'no_airlock_overrides', `${unit} has no Airlock drop-in in ${cur.dir}`, 'ShowServiceOverrides lists its drop-ins; only airlock-*.conf files are Airlock\'s');
  },
  preview: ({ unit }, cur) => ({
    summary: `Remove Airlock's drop-ins of ${unit}: ${cur.files.map((f) => posix.basename(f.path)).join(', ')}`,
    change: {
      unit,
      deletes: cur.files,
      settings_now: cur.values,
      after: `${unit} gets the values its unit file and other drop-ins set`,
      then: 'systemctl daemon-reload',
    },
    sideEffects: [reloadEffect(cur.pendingReload), `${unit} keeps running (${describeState(cur)}); a restart policy applies at its next exit, an open-files limit at its next start`],
  }),
  mechanism: ({ unit }, cur) => reloadedChange(unit, Object.keys(cur.values).length ? Object.keys(cur.values) : ['Id'], cur.files.map((f) => fileDelete(f.path))),
});

// ---------------------------------------------------------------- timers

/** A timer's state plus the unit it activates. */
interface TimerState extends UnitState {
  activates: string[];
}

async function readTimer(host: Host, unit: string): Promise<TimerState> {
  const u = await readUnit(host, unit);
  const { Triggers } = await showProperties(host, unit, ['Triggers']);
  return { ...u, activates: Triggers!.split(/\s+/).filter(Boolean) };
}

const isEnabled = (t: TimerState) => t.unitFile === 'enabled';
const systemctlTimer = (verbs: string[], unit: string): CommandStep => command('systemctl', [...verbs, '--', unit]);

/** The command that brings a timer back to where `before` was, from enabled and active (undo of EnableTimer). */
function undoEnable(unit: string, before: TimerState): CommandStep | undefined {
  if (!isEnabled(before)) return systemctlTimer(before.active === 'active' ? ['disable'] : ['disable', '--now'], unit);
  return before.active === 'active' ? undefined : systemctlTimer(['stop'], unit);
}

/** The command that brings a timer back to where `before` was, from disabled and inactive (undo of DisableTimer). */
function undoDisable(unit: string, before: TimerState): CommandStep | undefined {
  if (isEnabled(before)) return systemctlTimer(before.active === 'active' ? ['enable', '--now'] : ['enable'], unit);
  return before.active === 'active' ? systemctlTimer(['start'], unit) : undefined;
}

const withUndo = (step: CommandStep, undo: CommandStep | undefined): CommandStep => (undo ? { ...step, undo } : step);
const activatesText = (t: TimerState) => (t.activates.length ? `; it activates ${t.activates.join(', ')} on its schedule (ListTimers shows when)` : '');

export const enableTimer = action({
  name: 'EnableTimer',
  family: 'services',
  description: 'Enable a timer at boot and start it now (systemctl enable --now), so the unit it activates runs on its schedule.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ unit: timerUnit }),
  files: [],
  example: { unit: 'logrotate.timer' },
  current: ({ unit }, host) => readTimer(host, unit),
  check: ({ unit }, cur) => {
    refuseUnrunnable('enable', unit, cur); // rescue units, aliases, unknown, masked or broken timers
    if (isEnabled(cur) && cur.active === 'active') throw new AirlockError('conflict', 'already_enabled', `${unit} is already enabled and active (${describeState(cur)})`);
    if (!isEnabled(cur) && cur.unitFile !== 'disabled') {
      throw new AirlockError('conflict', 'not_installable', `${unit} cannot be enabled: its unit file state is ${cur.unitFile || 'unknown'}`, 'a static timer starts when another unit pulls it in; StartService starts it now');
    }
  },
  preview: ({ unit }, cur) => ({
    summary: isEnabled(cur) ? `Start ${unit} (already enabled at boot)` : `Enable ${unit} at boot and start it now`,
    change: { unit, unit_file_state: { from: cur.unitFile, to: 'enabled' }, state: { from: describeState(cur), to: 'active' }, text: `${isEnabled(cur) ? 'starts' : 'enables and starts'} ${unit}${activatesText(cur)}` },
    sideEffects: [`${cur.activates.join(', ') || 'the unit it activates'} runs at the times the timer sets, and at once if a persistent timer missed a run`],
  }),
  mechanism: ({ unit }, cur) => [withUndo(systemctlTimer(['enable', '--now'], unit), undoEnable(unit, cur))],
});

export const disableTimer = action({
  name: 'DisableTimer',
  family: 'services',
  description: 'Stop a timer now and keep it from starting at boot (systemctl disable --now); a run of the unit it activates that is under way goes on.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ unit: timerUnit }),
  files: [],
  example: { unit: 'logrotate.timer' },
  current: ({ unit }, host) => readTimer(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('disable', unit, cur);
    refuseMissing(unit, cur);
    if (!isEnabled(cur)) {
      throw new AirlockError('conflict', 'not_enabled', `${unit} is not enabled (its unit file state is ${cur.unitFile || 'unknown'})`, isRunning(cur) ? 'StopService stops it until the next boot; MaskService keeps it from running at all' : undefined);
    }
  },
  preview: ({ unit }, cur) => ({
    summary: `Disable ${unit} at boot and stop it now`,
    change: { unit, unit_file_state: { from: cur.unitFile, to: 'disabled' }, state: { from: describeState(cur), to: 'inactive' }, text: `stops and disables ${unit}${cur.activates.length ? `; ${cur.activates.join(', ')} no longer runs on its schedule` : ''}` },
    sideEffects: [`${cur.activates.join(', ') || 'the unit it activates'} can still be started by hand or by another unit`],
  }),
  mechanism: ({ unit }, cur) => [withUndo(systemctlTimer(['disable', '--now'], unit), undoDisable(unit, cur))],
});

// ---------------------------------------------------------------- unit files and daemon-reload

/** systemctl cat stops at the first file it cannot read: that one and every later one go unshown. */
function unshownByCat(cur: UnitFiles): string[] {
  const files = [...(cur.fragmentPath ? [cur.fragmentPath] : []), ...cur.dropIns.map((d) => d.path)];
  const first = files.findIndex((f) => cur.hidden.includes(f));
  if (first < 0) return [];
  const after = files.slice(first + 1);
  return [`${files[first]} is readable by root only: it is not shown${after.length ? `, nor the files systemctl cat prints after it (${after.join(', ')}); ShowServiceOverrides shows the drop-ins any user may read` : ''}`];
}

export const showUnitFile = action({
  name: 'ShowUnitFile',
  family: 'services',
  description: 'Print the unit file of an existing unit and its drop-ins, as systemd applies them (systemctl cat), read as an unprivileged user.',
  risk: 'low',
  readOnly: true,
  // Sensitive: unit file contents: Environment= and command lines may carry secrets.
  sensitive: true,
  reachesNetwork: false,
  params: params({ unit: unitName }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnitFiles(host, unit),
  check: ({ unit }, cur) => refuseMissing(unit, cur),
  preview: ({ unit }, cur) => ({
    summary: `Show the unit file of ${unit}${cur.dropIns.length ? ` and its ${cur.dropIns.length} drop-in${cur.dropIns.length === 1 ? '' : 's'}` : ''}`,
    change: null,
    warnings: unshownByCat(cur),
  }),
  // As nobody: systemctl cat prints what any user may read and exits 1 at a file only root may read.
  mechanism: ({ unit }, cur) => [command('systemctl', ['cat', '--no-pager', '--', unit], { unprivileged: true, okCodes: cur.hidden.length ? [0, 1] : [0] })],
});

export const listUnitFiles = action({
  name: 'ListUnitFiles',
  family: 'services',
  description: `List the installed unit files with their enablement state and vendor preset, optionally of one type (${UNIT_FILE_TYPES.join(', ')}).`,
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ type: z.enum(UNIT_FILE_TYPES).optional() }),
  files: [],
  example: { type: 'timer' },
  current: nothingToRead,
  preview: ({ type }) => ({ summary: `List the ${type ? `${type} ` : ''}unit files and their enablement`, change: null }),
  mechanism: ({ type }) => [command('systemctl', ['list-unit-files', '--no-pager', '--no-legend', ...(type ? [`--type=${type}`] : [])])],
});

export const daemonReloadAction = action({
  name: 'DaemonReload',
  family: 'services',
  description: 'Make systemd read every unit file and drop-in again and rerun its generators (systemctl daemon-reload); running services keep running.',
  risk: 'medium',
  readOnly: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => ({ pendingReload: await unitsNeedingReload(host) }),
  preview: (_p, cur) => ({
    summary: 'Reload the systemd configuration (daemon-reload)',
    change: {
      reloads: 'every unit file and drop-in; generators (fstab, ...) run again',
      changed_on_disk: cur.pendingReload,
      text: cur.pendingReload.length ? `loads the changes on disk of ${cur.pendingReload.join(', ')}` : 'no loaded unit reports changes on disk; new unit files are found too',
    },
    sideEffects: ['running services keep running; changed settings apply to them as systemd allows (most at their next start)'],
  }),
  mechanism: () => [daemonReload()],
});
