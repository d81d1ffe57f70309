/**
 * Services, run state: start, stop, restart and reload a service or timer now (its
 * enablement at boot is unchanged), with the refusals that keep the host reachable.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { params, serviceUnit } from '../../params.js';
import { describeState, isRunning, readUnit, refuseMissing, refuseProtected, refuseUnrunnable } from '../../lib/systemd.js';
import { changeText, dependents, lifelineWarnings, retriggerEffects, systemctl } from './unit-changes.js';
import { noRollback } from '../../rollback.js';

export const startService = action({
  name: 'StartService',
  family: 'services',
  description: 'Start a stopped service or timer now (its enablement at boot is unchanged).',
  risk: 'medium',
  readOnly: false,
  rollback: noRollback('not yet declared: a started unit is not stopped again (issue 27)'),
  runsPrograms: true,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseUnrunnable('start', unit, cur);
    if (isRunning(cur)) return unchanged(`${unit} is already ${describeState(cur)}`);
    if (!cur.canStart) throw new AirlockError('conflict', 'manual_start_refused', `${unit} refuses to be started by hand (RefuseManualStart=yes)`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Start ${unit}`,
    change: { unit, state: { from: describeState(cur), to: 'active' }, text: changeText('starts', unit, cur) },
    sideEffects: ['units it requires are started first if they are not running'],
  }),
  mechanism: ({ unit }) => [systemctl('start', unit)],
  effects: ({ unit }) => [{ kind: 'unit', unit, active: true }],
  outcome: ({ unit }, after) => `Started ${unit}: now ${describeState(after)}`,
});

export const stopService = action({
  name: 'StopService',
  family: 'services',
  description: 'Stop a running service or timer now (its enablement at boot is unchanged); refuses the units that keep the host reachable.',
  risk: 'medium',
  readOnly: false,
  rollback: noRollback('not yet declared (issue 27)'),
  runsPrograms: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
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
    change: { unit, state: { from: describeState(cur), to: 'inactive' }, text: changeText('stops', unit, cur, 'stop'), dependents: dependents(cur) },
    sideEffects: [`${unit} is unavailable until started again`, ...retriggerEffects(cur)],
    warnings: lifelineWarnings('stop', unit, cur),
  }),
  mechanism: ({ unit }) => [systemctl('stop', unit)],
  effects: ({ unit }) => [{ kind: 'unit', unit, active: false, interrupts: true }],
  outcome: ({ unit }, after) => `Stopped ${unit}: now ${describeState(after)}`,
});

export const restartService = action({
  name: 'RestartService',
  family: 'services',
  description: 'Restart a service or timer (start it if it is stopped): its process is replaced by a new one.',
  risk: 'medium',
  readOnly: false,
  rollback: noRollback('not yet declared (issue 27)'),
  runsPrograms: true,
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
      state: { from: describeState(cur), to: isRunning(cur) ? 'restarted (active, with a new main process)' : 'active' },
      text: isRunning(cur) ? changeText('stops and starts', unit, cur, 'restart') : changeText('starts', unit, cur),
      dependents: dependents(cur),
    },
    sideEffects: isRunning(cur) ? [`${unit} is unavailable while it restarts and gets a new main process`] : [],
    warnings: lifelineWarnings('restart', unit, cur),
  }),
  mechanism: ({ unit }) => [systemctl('restart', unit)],
  effects: ({ unit }) => [{ kind: 'unit', unit, active: true, interrupts: true }],
  outcome: ({ unit }, after) => `Restarted ${unit}: now ${describeState(after)}`,
});

export const reloadService = action({
  name: 'ReloadService',
  family: 'services',
  description: 'Ask a running service to reload its configuration (its ExecReload), keeping its process.',
  risk: 'medium',
  readOnly: false,
  rollback: noRollback('not yet declared (issue 27)'),
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
  mechanism: ({ unit }) => [systemctl('reload', unit)],
  outcome: ({ unit }, after) => `Reloaded ${unit}: now ${describeState(after)}`,
});
