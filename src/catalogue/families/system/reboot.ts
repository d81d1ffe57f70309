/**
 * system family: reboots. RebootHost reboots now; ScheduleReboot has systemd's `shutdown`
 * reboot in N minutes, warning logged-in users; CancelScheduledReboot cancels a scheduled one.
 * A change of these says `reboot: true` (needs_reboot), and the daemon finishes it after the
 * host came back: it records the boot id before it runs and, started in another boot,
 * reconciles the transaction as Succeeded (src/daemon/reboots.ts).
 *
 * The previews show this boot's id and uptime and any shutdown already scheduled, never who is
 * logged in: the requester sees a preview before anyone approves, and other users' sessions are
 * what a sensitive read shows (ReadDeclaration.sensitive).
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { CANCEL_SHUTDOWN } from '../../programs.js';
import { compensating, noRollback } from '../../rollback.js';
import { describeSchedule, readBootState, SCHEDULE_FILE, type BootState } from './boot-state.js';

/**
 * The message users are sent: plain words and punctuation only, one line, so nothing in it is a
 * terminal control, an option (never a leading '-', and it follows `--` on the command line) or
 * a systemd specifier.
 */
export const wallMessage = token(/^[A-Za-z0-9 .,:;!?'()/-]{1,200}$/, 'message', 200, "a short message for logged-in users: letters, digits, spaces and . , : ; ! ? ' ( ) / -, up to 200 characters, e.g. Kernel update: back in 5 minutes");
/** From one minute to one week ahead. */
export const rebootDelay = z.number().int().min(1, 'at least 1 minute').max(10_080, 'at most 10080 minutes (one week)');

/** A boot whose id cannot be read cannot be told from the next one: no reboot Airlock could reconcile. */
function refuseUnknownBoot(cur: BootState): void {
  if (cur.bootId === null) throw new AirlockError('unsupported_platform', 'no_boot_id', 'this host does not show its boot id (/proc/sys/kernel/random/boot_id), so Airlock could not tell when it came back from a reboot');
}

/** `shutdown -c`: the schedule cancelled, logged-in users told. */
const cancelShutdown = () => command(CANCEL_SHUTDOWN.program, [...CANCEL_SHUTDOWN.args], { timeoutMs: 30_000 });

const bootFacts = (cur: BootState) => ({ boot_id: cur.bootId, uptime_seconds: cur.uptimeSeconds, scheduled: cur.scheduled });

export const rebootHost = action({
  name: 'RebootHost',
  family: 'system',
  description: 'Reboot the host now (systemctl reboot). The transaction finishes once the host is back: the daemon, started in the new boot, reconciles it as Succeeded.',
  risk: 'high',
  reboot: true,
  // The daemon records NeedsReboot and this boot's id before the step starts: it is stopped by the reboot it starts.
  takesHostDown: true,
  readOnly: false,
  rollback: noRollback('a reboot cannot be undone: every process stopped, and what only lived in memory or /run is gone'),
  // Every unit that starts at boot runs again.
  runsPrograms: true,
  params: params({ message: wallMessage.optional() }),
  files: [],
  example: { message: 'Kernel update' },
  current: (_p, host) => readBootState(host),
  shown: bootFacts,
  check: (_p, cur) => refuseUnknownBoot(cur),
  preview: ({ message }, cur) => ({
    summary: `Reboot the host now${message ? ` (${message})` : ''}`,
    // The boot id binds the approval to this boot: approved, then rebooted by something else, the receipt no longer runs.
    change: { reboot: 'now', boot_id: cur.bootId, message: message ?? null },
    sideEffects: [
      'every service, session and connection on the host stops; the host is unreachable until it has booted again',
      'the transaction stays NeedsReboot until the daemon starts in the new boot, which records it Succeeded',
    ],
    // Rebooting now supersedes a scheduled shutdown: /run, which holds it, is cleared at boot.
    warnings: cur.scheduled ? [`${describeSchedule(cur.scheduled)} is scheduled: rebooting now drops it, and it does not run after the reboot`] : [],
  }),
  // --no-block: systemctl returns once the job is queued; systemd then stops the daemon with everything else.
  mechanism: ({ message }) => [command('systemctl', ['reboot', '--no-block', ...(message ? [`--message=${message}`] : [])], { timeoutMs: 30_000 })],
});

export const scheduleReboot = action({
  name: 'ScheduleReboot',
  family: 'system',
  description: 'Schedule a reboot in 1 to 10080 minutes with systemd\'s shutdown, warning logged-in users (with a message, when given). Refused while another shutdown is scheduled.',
  // High, as RebootHost: one minute ahead it is the same reboot, and a lower role must not get one by waiting a minute.
  risk: 'high',
  reboot: true,
  readOnly: false,
  // Undone by `shutdown -c` (CancelScheduledReboot); probed: the schedule file logind keeps, absent again.
  rollback: compensating('CancelScheduledReboot', () => [{ file: SCHEDULE_FILE }]),
  runsPrograms: true,
  params: params({ delay_minutes: rebootDelay, message: wallMessage.optional() }),
  files: [],
  example: { delay_minutes: 30, message: 'Kernel update: back in 5 minutes' },
  current: (_p, host) => readBootState(host),
  shown: bootFacts,
  check: (_p, cur) => {
    refuseUnknownBoot(cur);
    // A new schedule would replace it, and cancelling this one would not bring it back: the person cancels it first.
    if (cur.scheduled) throw new AirlockError('conflict', 'shutdown_scheduled', `${describeSchedule(cur.scheduled)} is scheduled already`, 'cancel it first (CancelScheduledReboot), or let it run');
  },
  preview: ({ delay_minutes, message }, cur) => ({
    summary: `Reboot the host in ${delay_minutes} minute(s)${message ? ` (${message})` : ''}`,
    change: { reboot: `in ${delay_minutes} minute(s)`, boot_id: cur.bootId, message: message ?? null },
    sideEffects: [
      `every logged-in user is told now and again as the time nears${message ? ', with the message' : ''}; new logins are refused in the last 5 minutes`,
      'at that time every service, session and connection stops; the transaction stays NeedsReboot until the daemon starts in the new boot, which records it Succeeded',
    ],
  }),
  mechanism: ({ delay_minutes, message }) => [
    command('shutdown', ['-r', '--', `+${delay_minutes}`, ...(message ? [message] : [])], { undo: cancelShutdown(), timeoutMs: 30_000 }),
  ],
  outcome: (_p, after) => (after.scheduled ? `Scheduled ${describeSchedule(after.scheduled)}` : 'Scheduled a reboot'),
});

export const cancelScheduledReboot = action({
  name: 'CancelScheduledReboot',
  family: 'system',
  description: 'Cancel the reboot (or other shutdown) scheduled with shutdown or ScheduleReboot (shutdown -c); no change when none is scheduled.',
  risk: 'medium',
  readOnly: false,
  rollback: noRollback('a cancelled schedule is not put back: its time has moved on, and scheduling again is a new ScheduleReboot for a person to approve'),
  runsPrograms: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readBootState(host),
  shown: bootFacts,
  check: (_p, cur) => (cur.scheduled ? undefined : unchanged('no reboot or shutdown is scheduled')),
  preview: (_p, cur) => ({
    summary: `Cancel ${cur.scheduled ? describeSchedule(cur.scheduled) : 'the scheduled shutdown'}`,
    change: { cancels: cur.scheduled },
    sideEffects: ['logged-in users are told the shutdown is cancelled'],
  }),
  mechanism: () => [cancelShutdown()],
  outcome: (_p, after) => (after.scheduled ? `Still scheduled: ${describeSchedule(after.scheduled)}` : 'No shutdown is scheduled now'),
});
