/**
 * Timers (family 'services'): a timer enabled at boot and started now, or disabled and
 * stopped now, together; each undone back to where the timer was.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import type { CommandStep } from '../../mechanism.js';
import { params, serviceUnit } from '../../params.js';
import { describeState, isRunning, readUnit, refuseMissing, refuseProtected, refuseUnrunnable, type UnitState } from '../../lib/systemd.js';
import { showProperties } from './properties.js';
import { systemctl } from './unit-changes.js';
import { unitEnablement, unitRunning } from '../../lib/unit-probes.js';
import { exact } from '../../rollback.js';

/** A .timer unit (a template needs its instance). */
export const timerUnit = serviceUnit.refine((u) => u.endsWith('.timer'), 'only .timer units are enabled or disabled here (EnableService and DisableService handle services)');

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

/** The command that brings a timer back to where `before` was, from enabled and active (undo of EnableTimer). */
function undoEnable(unit: string, before: TimerState): CommandStep | undefined {
  if (!isEnabled(before)) return systemctl(before.active === 'active' ? ['disable'] : ['disable', '--now'], unit);
  return before.active === 'active' ? undefined : systemctl(['stop'], unit);
}

/** The command that brings a timer back to where `before` was, from disabled and inactive (undo of DisableTimer). */
function undoDisable(unit: string, before: TimerState): CommandStep | undefined {
  if (isEnabled(before)) return systemctl(before.active === 'active' ? ['enable', '--now'] : ['enable'], unit);
  return before.active === 'active' ? systemctl(['start'], unit) : undefined;
}

const withUndo = (step: CommandStep, undo: CommandStep | undefined): CommandStep => (undo ? { ...step, undo } : step);
/** What enable --now and disable --now change, and their undos put back: the timer's enablement and whether it runs. */
const timerProbes = ({ unit }: { unit: string }) => [unitEnablement(unit), unitRunning(unit)];
const activatesText = (t: TimerState) => (t.activates.length ? `; it activates ${t.activates.join(', ')} on its schedule (ListTimers shows when)` : '');

export const enableTimer = action({
  name: 'EnableTimer',
  family: 'services',
  description: 'Enable a timer at boot and start it now (systemctl enable --now), so the unit it activates runs on its schedule.',
  risk: 'medium',
  rollback: exact(timerProbes),
  readOnly: false,
  runsPrograms: true,
  params: params({ unit: timerUnit }),
  files: [],
  example: { unit: 'logrotate.timer' },
  current: ({ unit }, host) => readTimer(host, unit),
  check: ({ unit }, cur) => {
    refuseUnrunnable('enable', unit, cur); // rescue units, aliases, unknown, masked or broken timers
    if (isEnabled(cur) && cur.active === 'active') return unchanged(`${unit} is already enabled and active (${describeState(cur)})`);
    if (!isEnabled(cur) && cur.unitFile !== 'disabled') {
      throw new AirlockError('conflict', 'not_installable', `${unit} cannot be enabled: its unit file state is ${cur.unitFile || 'unknown'}`, 'a static timer starts when another unit pulls it in; StartService starts it now');
    }
  },
  preview: ({ unit }, cur) => ({
    summary: isEnabled(cur) ? `Start ${unit} (already enabled at boot)` : `Enable ${unit} at boot and start it now`,
    change: { unit, unit_file_state: { from: cur.unitFile, to: 'enabled' }, state: { from: describeState(cur), to: 'active' }, text: `${isEnabled(cur) ? 'starts' : 'enables and starts'} ${unit}${activatesText(cur)}` },
    sideEffects: [`${cur.activates.join(', ') || 'the unit it activates'} runs at the times the timer sets, and at once if a persistent timer missed a run`],
  }),
  mechanism: ({ unit }, cur) => [withUndo(systemctl(['enable', '--now'], unit), undoEnable(unit, cur))],
});

export const disableTimer = action({
  name: 'DisableTimer',
  family: 'services',
  description: 'Stop a timer now and keep it from starting at boot (systemctl disable --now); a run of the unit it activates that is under way goes on.',
  risk: 'medium',
  rollback: exact(timerProbes),
  readOnly: false,
  runsPrograms: false,
  params: params({ unit: timerUnit }),
  files: [],
  example: { unit: 'logrotate.timer' },
  current: ({ unit }, host) => readTimer(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('disable', unit, cur);
    refuseMissing(unit, cur);
    if (!isEnabled(cur)) {
      return unchanged(`${unit} is not enabled (its unit file state is ${cur.unitFile || 'unknown'})`);
    }
  },
  preview: ({ unit }, cur) => ({
    summary: `Disable ${unit} at boot and stop it now`,
    change: { unit, unit_file_state: { from: cur.unitFile, to: 'disabled' }, state: { from: describeState(cur), to: 'inactive' }, text: `stops and disables ${unit}${cur.activates.length ? `; ${cur.activates.join(', ')} no longer runs on its schedule` : ''}` },
    sideEffects: [`${cur.activates.join(', ') || 'the unit it activates'} can still be started by hand or by another unit`],
  }),
  mechanism: ({ unit }, cur) => [withUndo(systemctl(['disable', '--now'], unit), undoDisable(unit, cur))],
});
