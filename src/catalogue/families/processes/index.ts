import type { AnyAction } from '../../action.js';
import { processesOfUser, processInfo, processLimits, processTree, topProcesses } from './reads.js';
import { signalProcess, signalUnit } from './signals.js';

/** The processes family: processes listed and described (never their command lines), and a signal to one process or to a service's processes. */
export const actions: readonly AnyAction[] = [topProcesses, processInfo, signalProcess, signalUnit, processTree, processesOfUser, processLimits];
