/**
 * What the run-state and boot-state actions of the services family say about a change
 * to a unit (its dependents, what can start it again, the lifeline warnings), and the
 * `systemctl VERB... -- UNIT` step they and the timer actions run.
 */
import { command, type CommandStep } from '../../mechanism.js';
import { allNames, describeState, lifelineOf, type UnitChange, type UnitState } from '../../lib/systemd.js';
import { LIFELINE_UNITS, NETWORK_UNITS } from '../../lib/guards.js';

/** Units that go down (and, on restart, come back) with this one. */
export const dependents = (u: UnitState) => [...new Set([...u.requiredBy, ...u.boundBy, ...u.consistsOf])];

export function retriggerEffects(u: UnitState): string[] {
  return u.triggeredBy.length ? [`${u.triggeredBy.join(', ')} can start it again (on the next connection, path change or timer)`] : [];
}

export function lifelineWarnings(change: UnitChange, unit: string, u: UnitState): string[] {
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
export function changeText(verb: string, unit: string, u: UnitState, cascade?: 'stop' | 'restart'): string {
  const deps = cascade ? dependents(u) : [];
  return `${verb} ${unit} (${describeState(u)})${deps.length ? `; units that depend on it may ${cascade} too: ${deps.join(', ')}` : ''}`;
}

/** `systemctl VERB... -- UNIT`: the unit is never an option. */
export const systemctl = (verbs: string | string[], unit: string): CommandStep => command('systemctl', [...[verbs].flat(), '--', unit]);
