/**
 * Resource limits (family 'services'): a service's memory, CPU, tasks and open files,
 * set in Airlock's drop-in /etc/systemd/system/UNIT.d/airlock-limits.conf (which holds
 * exactly the limits given), then daemon-reload. Never for the lifelines or Airlock.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action } from '../../action.js';
import { params, token } from '../../params.js';
import { allNames, isRunning, lifelineOf } from '../../lib/systemd.js';
import { LIFELINE_UNITS } from '../../lib/guards.js';
import { configurableService, dropInText, fromTo, propertiesOf, readDropInTarget, unchangedDropIn, refuseUnconfigurable, reloadedChange, sectionKeys, UNIT_DIR, writeDropIn } from './dropins.js';
import { reloadEffect, showProperties } from './properties.js';
import { unitProperties } from '../../lib/unit-probes.js';
import { exact } from '../../rollback.js';

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

const LIMITS_DROPIN = 'airlock-limits.conf';

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
  // The drop-in is restored from its snapshot and systemd reloads it; probed: the values systemd applies.
  rollback: exact<{ unit: string }, unknown>(({ unit }) => [unitProperties(unit, propertiesOf(LIMIT_KEYS))]),
  readOnly: false,
  runsPrograms: false,
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
    return unchangedDropIn(unit, cur, dropInText(limitSettings(limits)));
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
