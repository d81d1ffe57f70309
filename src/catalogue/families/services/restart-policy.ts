/**
 * Restart policy (family 'services'): when systemd restarts a service, set in Airlock's
 * drop-in /etc/systemd/system/UNIT.d/airlock-restart.conf, then daemon-reload.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action } from '../../action.js';
import { params } from '../../params.js';
import { describeState, lifelineOf } from '../../lib/systemd.js';
import { LIFELINE_UNITS } from '../../lib/guards.js';
import { configurableService, dropInText, fromTo, propertiesOf, readDropInTarget, unchangedDropIn, refuseUnconfigurable, reloadedChange, UNIT_DIR, writeDropIn } from './dropins.js';
import { reloadEffect } from './properties.js';
import { unitProperties } from '../../lib/unit-probes.js';
import { exact } from '../../rollback.js';

export const RESTART_POLICIES = ['no', 'on-success', 'on-failure', 'on-abnormal', 'on-watchdog', 'on-abort', 'always'] as const;
/** Policies systemd refuses for Type=oneshot: the unit would stop loading (LoadState=bad-setting). */
const ONESHOT_FORBIDDEN: readonly string[] = ['always', 'on-success'];
/** RestartSec= in whole seconds: 0 (at once) to one hour. */
export const restartDelay = z.number().int().min(0).max(3600);

const RESTART_DROPIN = 'airlock-restart.conf';

const restartSettings = (restart: string, restartSec?: number): Array<[string, string]> => [['Restart', restart], ...(restartSec === undefined ? [] : [['RestartSec', `${restartSec}s`] as [string, string]])];
const RESTART_KEYS = ['Restart', 'RestartSec'];

export const setRestartPolicy = action({
  name: 'SetRestartPolicy',
  family: 'services',
  description: `Set when systemd restarts a service (Restart=, and RestartSec= in seconds) in the drop-in ${UNIT_DIR}/UNIT.d/${RESTART_DROPIN}, replacing that file, then daemon-reload.`,
  risk: 'medium',
  // The drop-in is restored from its snapshot and systemd reloads it; probed: the values systemd applies.
  rollback: exact<{ unit: string }, unknown>(({ unit }) => [unitProperties(unit, propertiesOf(RESTART_KEYS))]),
  readOnly: false,
  runsPrograms: false,
  params: params({ unit: configurableService, restart: z.enum(RESTART_POLICIES), restartSec: restartDelay.optional() }),
  files: [`${UNIT_DIR}/*.d/${RESTART_DROPIN}`],
  example: { unit: 'nginx.service', restart: 'on-failure', restartSec: 5 },
  current: ({ unit }, host) => readDropInTarget(host, unit, RESTART_DROPIN, RESTART_KEYS),
  check: ({ unit, restart, restartSec }, cur) => {
    refuseUnconfigurable(unit, cur);
    if (cur.type === 'oneshot' && ONESHOT_FORBIDDEN.includes(restart)) {
      throw new AirlockError('validation', 'invalid_for_oneshot', `${unit} is Type=oneshot, for which systemd refuses Restart=${restart} (the unit would no longer load)`, 'use on-failure or on-abnormal');
    }
    return unchangedDropIn(unit, cur, dropInText(restartSettings(restart, restartSec)));
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
