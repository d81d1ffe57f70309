import type { AnyAction } from '../../action.js';
import { addCronJob, listCronJobs, removeCronJob } from './cron.js';
import { createTimer, removeTimer } from './timers.js';

/**
 * The scheduling family: cron jobs and systemd timers that run a program at set times.
 * Airlock writes and removes only files of its own (/etc/cron.d/airlock-NAME,
 * /etc/systemd/system/airlock-NAME.timer); what they run passes the one check for
 * commands run on the agent's behalf (lib/agent-command.ts).
 */
export const actions: readonly AnyAction[] = [listCronJobs, addCronJob, removeCronJob, createTimer, removeTimer];
