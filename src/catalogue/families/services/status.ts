/**
 * Services, read: the service units, failed units and timers systemd holds, and one
 * unit's state and journal lines.
 */
import { action } from '../../action.js';
import { command } from '../../mechanism.js';
import { DEFAULT_LOG_LINES, journalLines, params, serviceUnit } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { describeState, readUnit } from '../../lib/systemd.js';

export const listServices = fixedRead({
  name: 'ListServices',
  sensitive: false,
  reachesNetwork: false,
  family: 'services',
  description: 'List the service units systemd holds (running, stopped, failed, or referenced but not found) with their load, active and sub state.',
  summary: 'List all service units and their states',
  steps: [command('systemctl', ['list-units', '--type=service', '--all', '--no-pager', '--plain', '--no-legend'])],
});

export const failedUnits = fixedRead({
  name: 'FailedUnits',
  sensitive: false,
  reachesNetwork: false,
  family: 'services',
  description: 'List the units of any type that systemd reports as failed.',
  summary: 'List failed units',
  steps: [command('systemctl', ['list-units', '--state=failed', '--all', '--no-pager', '--plain', '--no-legend'])],
});

export const listTimers = fixedRead({
  name: 'ListTimers',
  sensitive: false,
  reachesNetwork: false,
  family: 'services',
  description: 'List every timer unit with its next and last run and the unit it activates.',
  summary: 'List all timers with their next and last runs',
  steps: [command('systemctl', ['list-timers', '--all', '--no-pager'])],
});

const STATUS_PROPERTIES = 'Id,LoadState,ActiveState,SubState,UnitFileState,MainPID,ExecMainStartTimestamp';

export const serviceStatus = action({
  name: 'ServiceStatus',
  family: 'services',
  description: 'Show the load, active and enablement state, main PID and start time of one service or timer.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  preview: ({ unit }, cur) => ({ summary: `Show the state of ${unit} (now ${describeState(cur)})`, change: null }),
  mechanism: ({ unit }) => [
    command('systemctl', ['show', '--no-pager', '-p', STATUS_PROPERTIES, '--', unit]),
    // is-enabled exits 1 for disabled, masked and unknown units: that is an answer, not a failure.
    command('systemctl', ['is-enabled', '--', unit], { okCodes: [0, 1] }),
  ],
});

export const unitLogs = action({
  name: 'UnitLogs',
  family: 'services',
  description: `Show the last journal lines (1 to 1000, ${DEFAULT_LOG_LINES} when omitted) of one service or timer, with ISO timestamps.`,
  risk: 'low',
  readOnly: true,
  // Sensitive: journal lines: cron's command lines, passwords mistyped as SSH user names, other users' sessions.
  sensitive: true,
  reachesNetwork: false,
  params: params({ unit: serviceUnit, lines: journalLines.optional() }),
  files: [],
  example: { unit: 'nginx.service', lines: 50 },
  current: ({ unit }, host) => readUnit(host, unit),
  preview: ({ unit, lines }, cur) => ({ summary: `Read the last ${lines ?? DEFAULT_LOG_LINES} journal lines of ${unit} (now ${describeState(cur)})`, change: null }),
  // The unit is the argument of -u, never an option of its own; it cannot start with '-' anyway.
  mechanism: ({ unit, lines }) => [command('journalctl', ['-u', unit, '-n', String(lines ?? DEFAULT_LOG_LINES), '--no-pager', '-o', 'short-iso'])],
});
