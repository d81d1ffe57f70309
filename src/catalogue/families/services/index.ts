import type { AnyAction } from '../../action.js';
import { disableService, enableService, maskService, unmaskService } from './boot-state.js';
import { resetServiceOverrides, showServiceOverrides } from './overrides.js';
import { setResourceLimits } from './resource-limits.js';
import { setRestartPolicy } from './restart-policy.js';
import { reloadService, restartService, startService, stopService } from './run-state.js';
import { failedUnits, listServices, listTimers, serviceStatus, unitLogs } from './status.js';
import { disableTimer, enableTimer } from './timers.js';
import { daemonReloadAction, listUnitFiles, showUnitFile } from './unit-files.js';

/**
 * The services family: systemd .service and .timer units read, started, stopped, enabled
 * and masked, their journal read, and how systemd runs them changed only through
 * Airlock's own drop-ins. Every action reads the unit's real state with one `systemctl
 * show` (lib/systemd.ts) and refuses what would lock the host or Airlock out.
 */
export const actions: readonly AnyAction[] = [
  listServices,
  failedUnits,
  listTimers,
  serviceStatus,
  unitLogs,
  startService,
  stopService,
  restartService,
  reloadService,
  enableService,
  disableService,
  maskService,
  unmaskService,
  setRestartPolicy,
  setResourceLimits,
  showServiceOverrides,
  resetServiceOverrides,
  enableTimer,
  disableTimer,
  showUnitFile,
  listUnitFiles,
  daemonReloadAction,
];
