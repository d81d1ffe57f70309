/**
 * Services, run state: start, stop, restart and reload a service or timer now (its
 * enablement at boot is unchanged), with the refusals that keep the host reachable. A start
 * and a stop are undone by each other, built from what the change also does to other units
 * (./cascade.ts); a restart of a running unit and a reload are events that leave the state
 * they found.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { params, serviceUnit } from '../../params.js';
import { describeState, isRunning, readUnit, refuseMissing, refuseProtected, refuseUnrunnable, type UnitState } from '../../lib/systemd.js';
import { unitRunning } from '../../lib/unit-probes.js';
import { changeText, dependents, lifelineWarnings, retriggerEffects, systemctl } from './unit-changes.js';
import { cascadeWarnings, readStartCascade, readStopCascade, startAgain, startProbes, startSteps, startUndoText, stopProbes, type StartCascade, type StopCascade } from './cascade.js';
import { exact } from '../../rollback.js';

/** A unit and what starting it also changes. */
type Starting = UnitState & { cascade: StartCascade };
/** A unit and what stopping (or restarting) it also stops. */
type Stopping = UnitState & { stops: StopCascade };

/** "also starts a, b; stops c (Conflicts=)": the units a start changes besides its own. */
function startEffects(c: StartCascade): string[] {
  return [
    ...(c.pulledIn.length ? [`it also starts the units it pulls in that are not running: ${c.pulledIn.join(', ')}`] : []),
    ...(c.stopped.length ? [`it stops running units that conflict with it (or with those), and the units that stop with them: ${c.stopped.join(', ')}`] : []),
  ];
}

export const startService = action({
  name: 'StartService',
  family: 'services',
  description: 'Start a stopped service or timer now (its enablement at boot is unchanged).',
  risk: 'medium',
  readOnly: false,
  // Undone by stopping it and what it pulled in, and starting again what it stopped; probed: whether each of them runs.
  rollback: exact<{ unit: string }, Starting>(({ unit }, cur) => startProbes(unit, cur.cascade)),
  runsPrograms: true,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: async ({ unit }, host): Promise<Starting> => ({ ...(await readUnit(host, unit)), cascade: await readStartCascade(host, unit) }),
  check: ({ unit }, cur) => {
    refuseUnrunnable('start', unit, cur);
    if (isRunning(cur)) return unchanged(`${unit} is already ${describeState(cur)}`);
    if (!cur.canStart) throw new AirlockError('conflict', 'manual_start_refused', `${unit} refuses to be started by hand (RefuseManualStart=yes)`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Start ${unit}`,
    change: { unit, state: { from: describeState(cur), to: 'active' }, text: changeText('starts', unit, cur), undo: startUndoText(unit, false, cur.cascade) },
    sideEffects: startEffects(cur.cascade),
    warnings: cascadeWarnings(cur.cascade),
  }),
  mechanism: ({ unit }, cur) => startSteps('start', unit, false, cur.cascade),
  effects: ({ unit }) => [{ kind: 'unit', unit, active: true }],
  outcome: ({ unit }, after) => `Started ${unit}: now ${describeState(after)}`,
});

export const stopService = action({
  name: 'StopService',
  family: 'services',
  description: 'Stop a running service or timer now (its enablement at boot is unchanged); refuses the units that keep the host reachable.',
  risk: 'medium',
  readOnly: false,
  // Undone by starting it again with the running units that stopped with it; probed: whether each of them runs.
  rollback: exact<{ unit: string }, Stopping>(({ unit }, cur) => stopProbes(unit, cur.stops)),
  runsPrograms: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: async ({ unit }, host): Promise<Stopping> => ({ ...(await readUnit(host, unit)), stops: await readStopCascade(host, unit) }),
  check: ({ unit }, cur) => {
    refuseProtected('stop', unit, cur);
    // A masked unit or one whose file was deleted may still run; stopping it is what one then wants.
    if (!isRunning(cur)) {
      refuseMissing(unit, cur);
      return unchanged(`${unit} is not running (${describeState(cur)})`);
    }
    if (!cur.canStop) throw new AirlockError('conflict', 'manual_stop_refused', `${unit} refuses to be stopped by hand (RefuseManualStop=yes)`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Stop ${unit} (${describeState(cur)})`,
    change: {
      unit,
      state: { from: describeState(cur), to: 'inactive' },
      text: changeText('stops', unit, cur, 'stop'),
      dependents: dependents(cur),
      stops_with_it: cur.stops.stopped,
      undo: `an undo starts ${[unit, ...cur.stops.stopped].join(', ')} again`,
    },
    sideEffects: [`${unit} is unavailable until started again`, ...(cur.stops.stopped.length ? [`these running units stop with it: ${cur.stops.stopped.join(', ')}`] : []), ...retriggerEffects(cur)],
    warnings: [...lifelineWarnings('stop', unit, cur), ...cascadeWarnings(cur.stops)],
  }),
  mechanism: ({ unit }, cur) => [{ ...systemctl('stop', unit), undo: startAgain(unit, cur.stops) }],
  effects: ({ unit }) => [{ kind: 'unit', unit, active: false, interrupts: true }],
  outcome: ({ unit }, after) => `Stopped ${unit}: now ${describeState(after)}`,
});

export const restartService = action({
  name: 'RestartService',
  family: 'services',
  description: 'Restart a service or timer (start it if it is stopped): its process is replaced by a new one.',
  risk: 'medium',
  readOnly: false,
  // A running unit restarted is running again, with the ones restarted with it: an event. A stopped one is started, and undone as a start.
  rollback: exact<{ unit: string }, Starting & Stopping>(({ unit }, cur) => [...startProbes(unit, cur.cascade), ...stopProbes(unit, cur.stops).slice(1)]),
  runsPrograms: true,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: async ({ unit }, host): Promise<Starting & Stopping> => ({ ...(await readUnit(host, unit)), cascade: await readStartCascade(host, unit), stops: await readStopCascade(host, unit) }),
  check: ({ unit }, cur) => {
    refuseUnrunnable('restart', unit, cur);
    if (!cur.canStart) throw new AirlockError('conflict', 'manual_start_refused', `${unit} refuses to be started by hand (RefuseManualStart=yes)`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Restart ${unit} (${describeState(cur)})`,
    change: {
      unit,
      state: { from: describeState(cur), to: isRunning(cur) ? 'restarted (active, with a new main process)' : 'active' },
      text: isRunning(cur) ? changeText('stops and starts', unit, cur, 'restart') : changeText('starts', unit, cur),
      dependents: dependents(cur),
      undo: startUndoText(unit, isRunning(cur), cur.cascade),
    },
    sideEffects: [...(isRunning(cur) ? [`${unit} is unavailable while it restarts and gets a new main process`] : []), ...startEffects(cur.cascade)],
    warnings: [...lifelineWarnings('restart', unit, cur), ...cascadeWarnings(cur.cascade)],
  }),
  mechanism: ({ unit }, cur) => startSteps('restart', unit, isRunning(cur), cur.cascade),
  effects: ({ unit }) => [{ kind: 'unit', unit, active: true, interrupts: true }],
  outcome: ({ unit }, after) => `Restarted ${unit}: now ${describeState(after)}`,
});

export const reloadService = action({
  name: 'ReloadService',
  family: 'services',
  description: 'Ask a running service to reload its configuration (its ExecReload), keeping its process.',
  risk: 'medium',
  readOnly: false,
  // An event: the unit re-reads its configuration and keeps running (what it re-reads is the files', not Airlock's to undo).
  rollback: exact<{ unit: string }, UnitState>(({ unit }) => [unitRunning(unit)]),
  runsPrograms: true,
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
  mechanism: ({ unit }) => [{ ...systemctl('reload', unit), noUndo: 'leaves_state' }],
  outcome: ({ unit }, after) => `Reloaded ${unit}: now ${describeState(after)}`,
});
