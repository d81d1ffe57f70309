/**
 * Timers (family 'scheduling'): Airlock's own timers, /etc/systemd/system/airlock-NAME.timer,
 * each starting an existing service on a calendar schedule, created and removed. Every
 * command the service runs passes the one check for commands run on the agent's behalf
 * (../../lib/agent-command.ts), arguments included: root wrote them, but the agent
 * chooses which unit root runs on a schedule. A template instance, whose name the agent
 * would choose and systemd pastes into them, is refused.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { command, fileDelete, fileWrite, type CommandStep, type Step } from '../../mechanism.js';
import { params, serviceOnly } from '../../params.js';
import { agentCommandRefusal, throwRefusal, type CommandRefusal } from '../../lib/agent-command.js';
import { describeState, readUnit, refuseUnusableUnit } from '../../lib/systemd.js';
import { calendarExpression, jobName } from './job-params.js';
import { unitEnablement, unitProperties, unitRunning } from '../../lib/unit-probes.js';
import { exact } from '../../rollback.js';

const timerName = (name: string) => `airlock-${name}.timer`;
const TIMER_DIR = '/etc/systemd/system';
const timerPath = (name: string) => `${TIMER_DIR}/${timerName(name)}`;

/** What `systemd-analyze calendar` makes of an expression: its normalised form, or systemd's complaint. */
async function normaliseCalendar(host: Host, expr: string): Promise<{ ok: true; normalized: string } | { ok: false; error: string }> {
  const r = await host.run('systemd-analyze', ['calendar', '--', expr]);
  const m = /^\s*Normalized form: (.+)$/m.exec(r.stdout);
  if (r.code !== 0 || !m) return { ok: false, error: r.stderr.trim().split('\n')[0] || `systemd-analyze exited with status ${r.code}` };
  return { ok: true, normalized: m[1]!.trim() };
}

/** The whole timer unit CreateTimer writes. */
export function timerContent(name: string, onCalendar: string, unit: string): string {
  return [
    `# Written by Airlock (CreateTimer ${name}); RemoveTimer removes it.`,
    '[Unit]',
    `Description=Airlock timer ${name}: starts ${unit}`,
    '',
    '[Timer]',
    `OnCalendar=${onCalendar}`,
    `Unit=${unit}`,
    'Persistent=true',
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
}

/** OnCalendar= and Unit= of a timer file, for the preview; nothing else of it is shown. */
export function parseTimerFile(text: string): { onCalendar: string[]; unit: string } {
  let section = '';
  const out = { onCalendar: [] as string[], unit: '' };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const head = /^\[(.+)\]$/.exec(line);
    if (head) section = head[1]!;
    else if (section === 'Timer' && line.startsWith('OnCalendar=')) out.onCalendar.push(line.slice('OnCalendar='.length));
    else if (section === 'Timer' && line.startsWith('Unit=')) out.unit = line.slice('Unit='.length);
  }
  return out;
}

const systemctl = (...args: string[]): CommandStep => command('systemctl', args);

/**
 * The first step of a change that writes or deletes a timer file: the timer as systemd holds it
 * now (a read), carrying the undo that reloads systemd. Undos run last first, so that reload
 * comes after the file is put back and the timer's own undo ran: systemd then holds the timer
 * (or its absence) as before, not the copy it loaded during the change.
 */
const loadedTimer = (timer: string): CommandStep => ({ ...systemctl('show', '--no-pager', '-p', 'LoadState,UnitFileState,ActiveState', '--', timer), undo: systemctl('daemon-reload') });

/** What CreateTimer and RemoveTimer change besides the file: the timer's enablement, whether it runs, and whether systemd has it loaded. */
const timerProbes = (_p: unknown, cur: { timer: string }) => [unitEnablement(cur.timer), unitRunning(cur.timer), unitProperties(cur.timer, ['LoadState'])];

/** Every command systemd runs for a service's start, reload and stop, in the order it runs them. */
const EXEC_PROPERTIES = ['ExecCondition', 'ExecStartPre', 'ExecStart', 'ExecStartPost', 'ExecReload', 'ExecStop', 'ExecStopPost'];

/** One command a service runs: the program systemd executes, and argv as systemd reports it. */
export interface UnitCommand {
  program: string;
  argv: string[];
}

/**
 * The commands a service runs (`systemctl show`: `{ path=/usr/bin/x ; argv[]=x a b ; ...}`
 * per command), or null when systemd did not report them. systemd joins argv with spaces;
 * the one check's alphabet has none, so a unit whose arguments held one is refused.
 */
export async function readUnitCommands(host: Host, unit: string): Promise<UnitCommand[] | null> {
  const r = await host.run('systemctl', ['show', '--no-pager', '-p', EXEC_PROPERTIES.join(','), '--', unit]);
  if (r.code !== 0) return null;
  // Up to the next field systemd prints, so an argument holding " ; " stays in argv (and is refused there).
  return [...r.stdout.matchAll(/\{ path=(\S+) ; argv\[\]=(.*?) ; ignore_errors=/g)].map((m) => ({ program: m[1]!, argv: m[2]!.split(' ') }));
}

/** Why the timer may not start this service: a template instance, a command the one check refuses, or commands unknown. */
async function timerTargetRefusal(host: Host, unit: string, commands: UnitCommand[] | null): Promise<CommandRefusal | null> {
  const what = `the timer for ${unit}`;
  if (unit.includes('@')) {
    const instance = unit.slice(unit.indexOf('@') + 1, unit.lastIndexOf('.'));
    return {
      category: 'authorization',
      code: 'template_instance',
      message: `refusing ${what}: it is an instance of a template unit, and systemd pastes the instance name (${instance}) into the template's command lines (%i), so the name would be a command argument the agent chose`,
      hint: 'a person writes a unit of its own for this job',
    };
  }
  if (!commands || commands.length === 0) {
    return { category: 'validation', code: 'unit_commands_unknown', message: `refusing ${what}: systemd reported no command for it`, hint: 'ServiceStatus and ShowUnitFile show what systemd found' };
  }
  for (const { program, argv } of commands) {
    // ExecStart=@/usr/bin/x name ...: argv[0] differs from the program, and multi-call programs act on argv[0].
    if (argv[0] !== program && argv[0] !== program.slice(program.lastIndexOf('/') + 1)) {
      return { category: 'authorization', code: 'program_refused', message: `refusing ${what}: it runs ${program} under the name ${argv[0]}`, hint: 'a person writes the timer by hand' };
    }
    const r = await agentCommandRefusal(host, { what, program, args: argv.slice(1) });
    if (r) return r;
  }
  return null;
}

export const createTimer = action({
  name: 'CreateTimer',
  family: 'scheduling',
  description:
    'Start an existing service on a calendar schedule with a new timer /etc/systemd/system/airlock-NAME.timer (Persistent=true), enabled and started now. Every command the service runs must be on the allowlist of programs and usage lines that AddCronJob and CreateSudoGrant accept; template instances are refused.',
  risk: 'high',
  // Undone by disable --now, the file removed, systemd reloaded.
  rollback: exact(timerProbes),
  readOnly: false,
  runsPrograms: true,
  params: params({ name: jobName, onCalendar: calendarExpression, unit: serviceOnly }),
  files: [`${TIMER_DIR}/airlock-*.timer`],
  example: { name: 'nightly-backup', onCalendar: '*-*-* 02:30:00', unit: 'backup.service' },
  current: async ({ name, onCalendar, unit }, host) => {
    const commands = await readUnitCommands(host, unit);
    return {
      path: timerPath(name),
      timer: timerName(name),
      fileExists: (await host.stat(timerPath(name))) !== null,
      timerUnit: await readUnit(host, timerName(name)),
      calendar: await normaliseCalendar(host, onCalendar),
      target: await readUnit(host, unit),
      /** What the service runs, checked like every command run on the agent's behalf. */
      commands,
      refusal: await timerTargetRefusal(host, unit, commands),
    };
  },
  check: ({ unit }, cur) => {
    if (cur.fileExists || cur.timerUnit.load !== 'not-found') {
      throw new AirlockError('conflict', 'already_exists', `${cur.timer} already exists${cur.fileExists ? ` (${cur.path})` : ''}`, 'RemoveTimer removes it, or pick another name');
    }
    if (!cur.calendar.ok) throw new AirlockError('validation', 'bad_calendar', `systemd does not accept this calendar expression: ${cur.calendar.error}`, 'see systemd.time(7), e.g. "daily", "Mon..Fri *-*-* 03:00:00", "*:0/15"');
    refuseUnusableUnit(unit, cur.target);
    if (cur.target.load === 'masked' || cur.target.unitFile.startsWith('masked')) throw new AirlockError('conflict', 'unit_masked', `${unit} is masked, so no timer can start it`, 'UnmaskService unmasks it');
    if (cur.target.load !== 'loaded') throw new AirlockError('conflict', 'unit_not_loaded', `${unit} did not load (LoadState=${cur.target.load})`, 'ServiceStatus and UnitLogs show what systemd found wrong');
    throwRefusal(cur.refusal);
  },
  preview: ({ name, onCalendar, unit }, cur) => {
    const normalized = cur.calendar.ok ? cur.calendar.normalized : '';
    return {
      summary: `Start ${unit} on schedule "${onCalendar}" (${normalized}) with ${cur.timer}`,
      change: {
        file: cur.path,
        mode: '0644',
        owner: 'root:root',
        content: timerContent(name, onCalendar, unit).split('\n'),
        timer: cur.timer,
        activates: unit,
        runs: (cur.commands ?? []).map((c) => c.argv.join(' ')),
        on_calendar: { given: onCalendar, normalized },
        text: `writes ${cur.path}, checks it with systemd-analyze verify, reloads systemd, then enables and starts ${cur.timer}`,
      },
      sideEffects: [
        `systemd starts ${unit} at every ${normalized}; a run missed while the host was off happens at the next boot (Persistent=true)`,
        `${cur.timer} starts at boot from now on (linked into timers.target.wants)`,
        `if ${unit} is still running when the timer elapses, nothing more happens for that elapse`,
      ],
      warnings: cur.target.triggeredBy.length ? [`${unit} is already started by ${cur.target.triggeredBy.join(', ')}`] : [],
    };
  },
  mechanism: ({ name, onCalendar, unit }, cur) => [
    loadedTimer(cur.timer),
    fileWrite(cur.path, timerContent(name, onCalendar, unit), { mode: 0o644, owner: { uid: 0, gid: 0 } }),
    // A unit file systemd cannot parse fails the job here, before it is loaded; the file step is then undone.
    command('systemd-analyze', ['verify', '--man=no', '--', cur.path], { noUndo: 'changes_nothing' }),
    { ...systemctl('daemon-reload'), noUndo: 'undone_earlier' },
    { ...systemctl('enable', '--now', '--', cur.timer), undo: systemctl('disable', '--now', '--', cur.timer) },
  ],
});

export const removeTimer = action({
  name: 'RemoveTimer',
  family: 'scheduling',
  description: 'Stop, disable and delete a timer that CreateTimer created (/etc/systemd/system/airlock-NAME.timer); the service it started stays.',
  risk: 'high',
  // Undone by the file put back, the timer enabled and started again as it was, systemd reloaded.
  rollback: exact(timerProbes),
  readOnly: false,
  runsPrograms: false,
  params: params({ name: jobName }),
  files: [`${TIMER_DIR}/airlock-*.timer`],
  example: { name: 'nightly-backup' },
  current: async ({ name }, host) => {
    const text = await host.readFile(timerPath(name));
    return { path: timerPath(name), timer: timerName(name), exists: text !== null, ...parseTimerFile(text ?? ''), state: await readUnit(host, timerName(name)) };
  },
  check: ({ name }, cur) => {
    if (!cur.exists) throw new AirlockError('validation', 'no_such_timer', `there is no Airlock timer ${name} (${cur.path})`, 'ListTimers lists the timers');
  },
  preview: ({ name }, cur) => ({
    summary: `Remove the timer ${cur.timer} (${describeState(cur.state)})`,
    change: {
      file: cur.path,
      deletes: true,
      timer: cur.timer,
      activates: cur.unit,
      on_calendar: cur.onCalendar,
      text: `stops and disables ${cur.timer}, deletes ${cur.path}, reloads systemd`,
    },
    sideEffects: [`${cur.unit || 'the service it activates'} is no longer started on schedule; a run in progress is not stopped`, `the name ${name} is free again`],
  }),
  mechanism: (_p, cur) => {
    const enabled = cur.state.unitFile === 'enabled';
    const active = cur.state.active === 'active';
    // If a later step fails, the file comes back first (it was deleted after this step), then this undo restores the run state.
    const undo = enabled ? systemctl('enable', ...(active ? ['--now'] : []), '--', cur.timer) : active ? systemctl('start', '--', cur.timer) : undefined;
    const steps: Step[] = [
      loadedTimer(cur.timer),
      { ...systemctl('disable', '--now', '--', cur.timer), ...(undo ? { undo } : { noUndo: 'changes_nothing' as const }) },
      fileDelete(cur.path),
      { ...systemctl('daemon-reload'), noUndo: 'undone_earlier' },
    ];
    return steps;
  },
});

