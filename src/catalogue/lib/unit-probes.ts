/**
 * State probes (../rollback.ts) of systemd units, for the families whose changes start, stop,
 * enable or create them (services, scheduling): each reads one thing a change touches and
 * nothing that moves by itself (no PID, no timestamp), so it reads the same before a change
 * and after its undo.
 */
import type { StateProbe } from '../rollback.js';

/** A unit's enablement as `systemctl is-enabled` prints it (enabled, disabled, masked, ...; nothing and status 1 for no unit file). */
export const unitEnablement = (unit: string): StateProbe => ({ program: 'systemctl', args: ['is-enabled', '--', unit] });

/**
 * Whether a unit runs: the status of `systemctl is-active --quiet` (0: active or reloading),
 * which prints nothing. Not its exact ActiveState: a unit that had failed, started and was
 * stopped again by an undo is inactive, and no command can make it "failed" again; both
 * read as "not running", which is what a start or stop changes and its undo puts back.
 */
export const unitRunning = (unit: string): StateProbe => ({ program: 'systemctl', args: ['is-active', '--quiet', '--', unit] });

/** Some `systemctl show` properties of a unit (the effective values a drop-in sets, a unit's LoadState). */
export const unitProperties = (unit: string, props: readonly string[]): StateProbe => ({ program: 'systemctl', args: ['show', '--no-pager', '-p', props.join(','), '--', unit] });
