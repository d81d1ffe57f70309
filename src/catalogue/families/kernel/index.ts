import type { AnyAction } from '../../action.js';
import { getSysctl, listSysctls, setSysctl } from './sysctl.js';
import { listKernelModules, loadModule } from './modules.js';
import { blacklistModule, listModuleBlacklist, unblacklistModule } from './blacklist.js';
import { kernelCommandLine, resourcePressure } from './proc-reads.js';

/** The kernel family: sysctl parameters, loaded modules and the module blacklist, the boot command line and pressure stall information. */
export const actions: readonly AnyAction[] = [
  getSysctl,
  setSysctl,
  listSysctls,
  listKernelModules,
  listModuleBlacklist,
  blacklistModule,
  unblacklistModule,
  loadModule,
  kernelCommandLine,
  resourcePressure,
];
