import type { AnyAction } from '../../action.js';
import { journalDiskUsage, listBoots, vacuumJournal, verifyJournal } from './journal-files.js';
import { journalQuery, kernelMessages } from './journal-query.js';
import { resetJournaldOption, setJournaldOption, showJournaldConfig } from './journald.js';
import { listLogrotateConfigs, removeLogrotatePolicy, runLogrotate, setLogrotatePolicy, showLogrotateConfig } from './logrotate.js';

/**
 * The logging family: the systemd journal (queries, kernel messages, boots, size,
 * integrity, vacuum, journald settings kept in an Airlock-owned drop-in) and logrotate
 * policies (Airlock-owned files /etc/logrotate.d/airlock-NAME).
 */
export const actions: readonly AnyAction[] = [
  journalQuery,
  journalDiskUsage,
  vacuumJournal,
  setJournaldOption,
  resetJournaldOption,
  listLogrotateConfigs,
  showLogrotateConfig,
  setLogrotatePolicy,
  removeLogrotatePolicy,
  runLogrotate,
  listBoots,
  kernelMessages,
  showJournaldConfig,
  verifyJournal,
];
