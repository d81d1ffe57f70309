/**
 * logging family: the systemd journal (queries, size, vacuum, journald settings kept in
 * the Airlock-owned drop-in /etc/systemd/journald.conf.d/60-airlock.conf) and logrotate
 * policies (Airlock-owned files /etc/logrotate.d/airlock-NAME, checked with
 * `logrotate -d` before the job counts as done; a failed check restores the file).
 *
 * logrotate, run as root every day, copies and truncates each log by name: a log path
 * passes the trusted-path rule (lib/trusted-path.ts) when its policy is written and again
 * before RunLogrotate, so no directory on the way to it can be swapped for a link (which
 * would make copytruncate empty /etc/shadow).
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, nothingToRead, type Host } from '../action.js';
import { command, fileDelete, fileScan, fileWrite, type CommandStep, type Step } from '../mechanism.js';
import { matchesGlob, params, token, unitName } from '../params.js';
import { fixedRead } from '../lib/fixed-read.js';
import { listDirectory } from '../lib/host-files.js';

// ---------------------------------------------------------------- journal queries

export const PRIORITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;

/**
 * At most 2000 lines: the daemon releases at most MAX_OUTPUT_LINES (2000) lines of output
 * per job (src/daemon/output.ts), so a larger count would only come back truncated.
 */
export const MAX_QUERY_LINES = 2000;
export const journalQueryLines = z.number().int().min(1).max(MAX_QUERY_LINES);

const SINCE_FORMS = /^(?:today|yesterday|-[1-9][0-9]{0,3}(?:s|min|h|d|w)|(\d{4})-(\d\d)-(\d\d)(?:[ T]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(Z)?)?)$/;

function realDate(s: string): boolean {
  const m = SINCE_FORMS.exec(s);
  if (!m?.[1]) return true; // a keyword or a relative time
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  const d = new Date(`${day}T00:00:00Z`);
  return Number(m[1]) >= 1970 && !Number.isNaN(d.getTime()) && d.toISOString().startsWith(day);
}

/**
 * journalctl --since, from a fixed vocabulary: `today`, `yesterday`, a relative time
 * `-N` + s|min|h|d|w (e.g. -1h, -30min), or a date YYYY-MM-DD with an optional time
 * HH:MM[:SS] (space or T; host local time, or UTC with a final Z). It is passed as one
 * `--since=VALUE` argument, so the leading '-' of a relative time is never an option.
 */
export const journalSince = z
  .string()
  .max(25, 'since must be at most 25 characters')
  .refine((s) => SINCE_FORMS.test(s), 'since must be today, yesterday, -N followed by s, min, h, d or w (e.g. -1h, -30min), or YYYY-MM-DD[ HH:MM[:SS]] (T and a final Z allowed)')
  .refine(realDate, 'since names a date that does not exist');

/** The form systemd 252 parses: no T separator, UTC spelt out. */
export const sinceArgument = (since: string) => `--since=${since.replace('T', ' ').replace(/Z$/, ' UTC')}`;

export const journalQuery = action({
  name: 'JournalQuery',
  family: 'logging',
  description: `Read journal lines (1 to ${MAX_QUERY_LINES}) of the whole system or of one unit, optionally filtered by priority and start time, with ISO timestamps.`,
  // Medium: the whole journal holds what sudo ran (COMMAND= lines with their arguments), failed
  // logins (a password typed as a user name), kernel and audit messages; Debian lets only the
  // adm and systemd-journal groups read it. Risk is per action, not per parameter, so it is
  // medium even with a unit; UnitLogs (services) is the low read of one service's lines.
  risk: 'medium',
  readOnly: true,
  // Sensitive: journal lines of the whole system.
  sensitive: true,
  reachesNetwork: false,
  params: params({ unit: unitName.optional(), priority: z.enum(PRIORITIES).optional(), since: journalSince.optional(), lines: journalQueryLines }),
  files: [],
  example: { unit: 'ssh.service', priority: 'warning', since: '-1h', lines: 200 },
  current: nothingToRead,
  preview: ({ unit, priority, since, lines }) => ({
    summary: [
      since ? `Read the first ${lines} journal lines since ${since}` : `Read the last ${lines} journal lines`,
      unit ? `of ${unit}` : 'of the whole system journal',
      ...(priority ? [`at priority ${priority} or more severe`] : []),
    ].join(' '),
    change: null,
    warnings: unit ? [] : ['the whole system journal may hold secrets that programs logged (command lines run through sudo, mistyped passwords in login failures)'],
  }),
  mechanism: ({ unit, priority, since, lines }) => [
    command('journalctl', [
      '--no-pager',
      '-o',
      'short-iso',
      '-n',
      String(lines),
      ...(unit ? ['-u', unit] : []),
      ...(priority ? ['-p', priority] : []),
      ...(since ? [sinceArgument(since)] : []),
    ]),
  ],
});

export const journalDiskUsage = fixedRead({
  name: 'JournalDiskUsage',
  sensitive: false,
  reachesNetwork: false,
  family: 'logging',
  description: 'Show how much disk space the archived and active journal files take.',
  summary: 'Show the disk space the journal takes',
  steps: [command('journalctl', ['--disk-usage'])],
});

// ---------------------------------------------------------------- journal files and vacuum

const JOURNAL_ROOTS = ['/var/log/journal', '/run/log/journal'];
const JOURNAL_FILE = /^[A-Za-z0-9@._:-]+\.journal~?$/;

export interface JournalFile {
  path: string;
  size: number;
  /** Archived (system@….journal, or a damaged …journal~): what vacuum may delete; the active files never are. */
  archived: boolean;
}

/** The journal files of this machine, persistent and volatile. */
export async function readJournalFiles(host: Host): Promise<{ directories: string[]; files: JournalFile[]; usage: string }> {
  const machineId = ((await host.readFile('/etc/machine-id')) ?? '').trim();
  const directories: string[] = [];
  const files: JournalFile[] = [];
  if (/^[0-9a-f]{32}$/.test(machineId)) {
    for (const root of JOURNAL_ROOTS) {
      const dir = `${root}/${machineId}`;
      const names = await listDirectory(host, dir);
      if (names === null) continue;
      directories.push(dir);
      for (const name of names.filter((n) => JOURNAL_FILE.test(n)).sort()) {
        const st = await host.stat(`${dir}/${name}`);
        if (st?.isFile) files.push({ path: `${dir}/${name}`, size: st.size, archived: name.includes('@') || name.endsWith('~') });
      }
    }
  }
  const du = await host.run('journalctl', ['--disk-usage']);
  return { directories, files, usage: du.code === 0 ? (du.stdout + du.stderr).trim() : '' };
}

const vacuumSize = token(/^[1-9][0-9]{0,5}[KMG]$/, 'size (a number followed by K, M or G, e.g. 100M)', 7);
/** A systemd time span: a number and one unit (30s, 12h, 2weeks, 6months). */
export const timeSpan = token(/^[1-9][0-9]{0,5}(s|min|h|d|days|w|weeks|months|years)$/, 'time span (a number followed by s, min, h, d, days, w, weeks, months or years, e.g. 2weeks)', 12);

const bytes = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)}M` : n >= 1 << 10 ? `${(n / (1 << 10)).toFixed(1)}K` : `${n}B`);

export const vacuumJournal = action({
  name: 'VacuumJournal',
  family: 'logging',
  description: 'Delete archived journal files, oldest first, down to a total size (maxSize) or older than an age (maxAge); the active files are kept.',
  risk: 'high',
  readOnly: false,
  params: params({ maxSize: vacuumSize.optional(), maxAge: timeSpan.optional() }).refine((p) => (p.maxSize === undefined) !== (p.maxAge === undefined), 'give exactly one of maxSize and maxAge'),
  files: [],
  example: { maxSize: '500M' },
  current: (_p, host) => readJournalFiles(host),
  shown: (cur) => ({ usage: cur.usage, directories: cur.directories, archived_files: cur.files.filter((f) => f.archived).length }),
  check: (_p, cur) => {
    if (!cur.files.some((f) => f.archived)) {
      throw new AirlockError('conflict', 'nothing_to_vacuum', `there are no archived journal files in ${cur.directories.join(' or ') || '/var/log/journal or /run/log/journal'}; vacuuming never deletes the active ones`, 'journald archives a file when it reaches its size limit or on `journalctl --rotate`');
    }
  },
  preview: ({ maxSize, maxAge }, cur) => {
    const archived = cur.files.filter((f) => f.archived);
    return {
      summary: maxSize ? `Delete the oldest archived journal files until the journal takes at most ${maxSize}` : `Delete archived journal files older than ${maxAge}`,
      change: {
        rule: maxSize
          ? `deletes archived journal files, oldest first, until the files of each journal directory take at most ${maxSize} (the active files count but are kept)`
          : `deletes the archived journal files whose entries are all older than ${maxAge}`,
        directories: cur.directories,
        may_delete: archived.map((f) => f.path),
      },
      sideEffects: [
        `now: ${cur.usage || 'usage unknown'}; ${archived.length} archived file(s) take ${bytes(archived.reduce((n, f) => n + f.size, 0))}`,
        'the deleted log entries are gone for good: there is no undo',
      ],
      warnings: ['investigations and audits lose the history these files hold'],
    };
  },
  mechanism: ({ maxSize, maxAge }) => [command('journalctl', [maxSize ? `--vacuum-size=${maxSize}` : `--vacuum-time=${maxAge}`])],
});

// ---------------------------------------------------------------- journald settings

export const JOURNALD_DROPIN = '/etc/systemd/journald.conf.d/60-airlock.conf';
export const JOURNALD_OPTIONS = ['SystemMaxUse', 'SystemKeepFree', 'MaxRetentionSec', 'Storage', 'Compress', 'RateLimitIntervalSec', 'RateLimitBurst'] as const;
export type JournaldOption = (typeof JOURNALD_OPTIONS)[number];

const journaldSize = token(/^[1-9][0-9]{0,5}[KMGT]$/, 'size (a number followed by K, M, G or T, e.g. 500M)', 7);

/** One journald option and a value valid for it; a value no other option would take is refused. */
export const journaldSetting = z.discriminatedUnion('option', [
  params({ option: z.literal('SystemMaxUse'), value: journaldSize }),
  params({ option: z.literal('SystemKeepFree'), value: journaldSize }),
  params({ option: z.literal('MaxRetentionSec'), value: timeSpan }),
  params({ option: z.literal('Storage'), value: z.enum(['auto', 'persistent', 'volatile', 'none']) }),
  params({ option: z.literal('Compress'), value: z.enum(['yes', 'no']) }),
  // 0 turns rate limiting off.
  params({ option: z.literal('RateLimitIntervalSec'), value: z.union([z.literal('0'), timeSpan]) }),
  params({ option: z.literal('RateLimitBurst'), value: z.number().int().min(0).max(1_000_000) }),
]);

/** KEY=VALUE lines of the [Journal] section, in file order (later ones win). */
export function journalSection(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) section = head[1]!;
    else if (section === 'Journal' && line.includes('=')) out.push([line.slice(0, line.indexOf('=')).trim(), line.slice(line.indexOf('=') + 1).trim()]);
  }
  return out;
}

/** Splits `systemd-analyze cat-config` output into its files ("# /path" headers). */
export function splitCatConfig(text: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const line of text.split('\n')) {
    const head = /^# (\/\S+\.conf)$/.exec(line);
    if (head) out.push({ file: head[1]!, text: '' });
    else if (out.length) out[out.length - 1]!.text += line + '\n';
  }
  return out;
}

export interface JournaldState {
  /** Options in the Airlock drop-in, in file order; null when there is none. */
  own: Array<[string, string]> | null;
  /** The value journald uses now for each option set anywhere, and the file that sets it. */
  effective: Record<string, { value: string; file: string }>;
  /** Drop-ins read after the Airlock one (they win), with the options they set. */
  later: Array<{ file: string; options: string[] }>;
}

export async function readJournald(host: Host): Promise<JournaldState> {
  const text = await host.readFile(JOURNALD_DROPIN);
  const r = await host.run('systemd-analyze', ['cat-config', '--no-pager', 'systemd/journald.conf']);
  if (r.code !== 0) throw new AirlockError('execution', 'journald_config_unreadable', `systemd-analyze could not read the journald configuration (exit status ${r.code})`);
  const effective: JournaldState['effective'] = {};
  const later: JournaldState['later'] = [];
  const ours = posix.basename(JOURNALD_DROPIN);
  for (const f of splitCatConfig(r.stdout)) {
    const entries = journalSection(f.text);
    for (const [k, v] of entries) effective[k] = { value: v, file: f.file };
    // Drop-ins are read in file-name order across /etc, /run and /usr/lib, all after the main file(s).
    if (posix.dirname(f.file).endsWith('/journald.conf.d') && posix.basename(f.file) > ours) later.push({ file: f.file, options: entries.map(([k]) => k) });
  }
  return { own: text === null ? null : journalSection(text), effective, later };
}

/** The drop-in holding these options; null when none is left (the file is then deleted). */
export function journaldDropin(entries: Array<[string, string]>): string | null {
  if (entries.length === 0) return null;
  return ['# Written by Airlock (SetJournaldOption, ResetJournaldOption): change it through those actions.', '[Journal]', ...entries.map(([k, v]) => `${k}=${v}`), ''].join('\n');
}

/** The options with `option` set to `value`: replaced where it is, appended otherwise. */
export function withOption(entries: Array<[string, string]>, option: string, value: string): Array<[string, string]> {
  return entries.some(([k]) => k === option) ? entries.map(([k, v]) => [k, k === option ? value : v]) : [...entries, [option, value]];
}

const JOURNALD_UNIT = 'systemd-journald.service';
const restartJournald = (): CommandStep => command('systemctl', ['restart', '--', JOURNALD_UNIT]);

/**
 * The drop-in change and the restart that makes journald read it. A few restarts in a row
 * hit journald's start rate limit (5 in 10 s), and a refused restart leaves the host without
 * a journal: so the counter is reset first (reset-failed), and that first step's undo restarts
 * journald, which, undos running in reverse, happens after the file is restored: a failed
 * restart ends with journald running on its former configuration.
 */
function journaldSteps(entries: Array<[string, string]>): Step[] {
  const text = journaldDropin(entries);
  return [
    command('systemctl', ['reset-failed', '--', JOURNALD_UNIT], { undo: restartJournald() }),
    text === null ? fileDelete(JOURNALD_DROPIN) : fileWrite(JOURNALD_DROPIN, text, { mode: 0o644, parent: { mode: 0o755 } }),
    restartJournald(),
  ];
}

const JOURNALD_RESTART_EFFECT = 'systemd-journald restarts to read it: services keep logging (journald keeps their connections across the restart), and a message sent at that very instant may be lost';

export const setJournaldOption = action({
  name: 'SetJournaldOption',
  family: 'logging',
  description: `Set one journald option (${JOURNALD_OPTIONS.join(', ')}) in ${JOURNALD_DROPIN}, keeping the others there, and restart systemd-journald.`,
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: journaldSetting,
  files: [JOURNALD_DROPIN],
  example: { option: 'SystemMaxUse', value: '500M' },
  current: (_p, host) => readJournald(host),
  check: ({ option, value }, cur) => {
    const now = cur.effective[option];
    if (now?.value === String(value)) throw new AirlockError('conflict', 'unchanged', `${now.file} already sets ${option}=${value}, and journald uses it`);
    const over = cur.later.filter((l) => l.options.includes(option)).map((l) => l.file);
    if (over.length) {
      throw new AirlockError('conflict', 'overridden', `${over.join(', ')} also set${over.length === 1 ? 's' : ''} ${option} and ${over.length === 1 ? 'is' : 'are'} read after ${JOURNALD_DROPIN}, so this setting would have no effect`, 'a person removes the option from that file');
    }
  },
  preview: ({ option, value }, cur) => {
    const next = withOption(cur.own ?? [], option, String(value));
    const was = cur.effective[option];
    return {
      summary: `Set journald ${option}=${value}`,
      change: { file: JOURNALD_DROPIN, option, from: was ? `${was.value} (from ${was.file})` : 'the built-in default', to: String(value), content: journaldDropin(next), restarts: JOURNALD_UNIT },
      sideEffects: [JOURNALD_RESTART_EFFECT],
      warnings: [
        ...(option === 'Storage' && value === 'none' ? ['Storage=none drops every log message: nothing is kept on disk or in memory (forwarding to syslog still works)'] : []),
        ...(option === 'Storage' && value === 'volatile' ? ['Storage=volatile keeps the journal in /run only: it is lost at every reboot'] : []),
        ...(option === 'RateLimitBurst' || option === 'RateLimitIntervalSec' ? ['rate limiting drops messages of a service that logs more than the burst within the interval'] : []),
      ],
    };
  },
  mechanism: ({ option, value }, cur) => journaldSteps(withOption(cur.own ?? [], option, String(value))),
});

export const resetJournaldOption = action({
  name: 'ResetJournaldOption',
  family: 'logging',
  description: `Remove one journald option from ${JOURNALD_DROPIN} (deleting the file when it was the last one) and restart systemd-journald.`,
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ option: z.enum(JOURNALD_OPTIONS) }),
  files: [JOURNALD_DROPIN],
  example: { option: 'SystemMaxUse' },
  current: (_p, host) => readJournald(host),
  check: ({ option }, cur) => {
    if (!cur.own?.some(([k]) => k === option)) throw new AirlockError('conflict', 'not_set', `${JOURNALD_DROPIN} does not set ${option}`, 'only options Airlock set with SetJournaldOption can be reset');
  },
  preview: ({ option }, cur) => {
    const next = cur.own!.filter(([k]) => k !== option);
    return {
      summary: `Reset journald ${option} to what the other configuration files say`,
      change: {
        file: JOURNALD_DROPIN,
        option,
        from: cur.own!.filter(([k]) => k === option).map(([, v]) => v).pop(),
        to: 'the value in /etc/systemd/journald.conf or other drop-ins, else the built-in default',
        content: journaldDropin(next),
        ...(next.length === 0 ? { deletes_file: true } : {}),
        restarts: JOURNALD_UNIT,
      },
      sideEffects: [JOURNALD_RESTART_EFFECT],
    };
  },
  mechanism: ({ option }, cur) => journaldSteps(cur.own!.filter(([k]) => k !== option)),
});

// ---------------------------------------------------------------- logrotate

const LOGROTATE_DIR = '/etc/logrotate.d';
const LOGROTATE_CONF = '/etc/logrotate.conf';
const policyFile = (name: string) => `${LOGROTATE_DIR}/airlock-${name}`;

/** The NAME of /etc/logrotate.d/airlock-NAME: no dot, so logrotate's ignored extensions (.dpkg-old, .disabled, ...) never apply. */
export const policyName = token(/^[a-z0-9][a-z0-9_-]{0,47}$/, 'policy name (lower-case letters, digits, - and _)', 48);
/** Any file name in /etc/logrotate.d (packages use dots: php8.2-fpm). */
export const logrotateConfigName = token(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$/, 'logrotate file name', 100);

/**
 * A log under /var/log: named segments of letters, digits, '.', '_' and '-' (none starting
 * with a dot), optionally ending with the one glob Airlock writes, `*.log`. Journal files
 * (/var/log/journal) belong to journald and are refused.
 */
export const rotatedLogPath = token(/^\/var\/log(\/[A-Za-z0-9][A-Za-z0-9._-]{0,99})+(\/\*\.log)?$/, 'log path (/var/log/..., optionally ending in /*.log)', 255).refine(
  (p) => p.split('/')[3] !== 'journal',
  '/var/log/journal holds the journal, which journald rotates itself',
);
const logrotateSize = token(/^[1-9][0-9]{0,5}[kMG]?$/, 'size (a number, optionally followed by k, M or G)', 7);

/** What the policy file says, line by line (it also goes into the preview). */
export function logrotatePolicy(name: string, p: { path: string; rotate: number; frequency: string; compress: boolean; maxsize?: string | undefined }): string {
  return [
    `# Written by Airlock (SetLogrotatePolicy ${name}); RemoveLogrotatePolicy removes it.`,
    `${p.path} {`,
    `\t${p.frequency}`,
    `\trotate ${p.rotate}`,
    ...(p.maxsize ? [`\tmaxsize ${p.maxsize}`] : []),
    `\t${p.compress ? 'compress' : 'nocompress'}`,
    '\tmissingok',
    '\tnotifempty',
    // No postrotate script can be given (it would be shell text), so the program cannot be told to
    // reopen its log: the file is copied, then truncated in place, and the writer keeps its descriptor.
    '\tcopytruncate',
    '}',
    '',
  ].join('\n');
}

const SCRIPT_START = /^(postrotate|prerotate|firstaction|lastaction|preremove)\b/;

/** The log patterns a logrotate configuration names (the words before each `{`); scripts are skipped. */
export function logrotateEntries(text: string): string[] {
  const out: string[] = [];
  let pending: string[] = [];
  let inBlock = false;
  let inScript = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (inScript) {
      if (line === 'endscript') inScript = false;
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    if (inBlock) {
      if (SCRIPT_START.test(line)) inScript = true;
      else if (line.startsWith('}')) inBlock = false;
      continue;
    }
    const brace = line.indexOf('{');
    const words = (brace >= 0 ? line.slice(0, brace) : line).match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
    const paths = words.map((w) => w.replace(/^["']|["']$/g, ''));
    if (paths.length && paths.every((w) => w.startsWith('/'))) pending.push(...paths);
    else if (paths.length) pending = []; // a global directive, not a log pattern
    if (brace >= 0) {
      out.push(...pending);
      pending = [];
      inBlock = !line.slice(brace + 1).includes('}');
    }
  }
  return out;
}

/** Two patterns name a common file: equal, or one matches the other's `*` glob (the finer glob syntax is left to `logrotate -d`). */
const overlaps = (a: string, b: string) => a === b || matchesGlob(a, b) || matchesGlob(b, a);

interface PolicyState {
  file: string;
  /** The policy file as it is now, or null when absent. */
  text: string | null;
}

async function readPolicy(host: Host, name: string): Promise<PolicyState> {
  const file = policyFile(name);
  return { file, text: await host.readFile(file) };
}

function refuseNoPolicy(cur: PolicyState): void {
  if (cur.text === null) throw new AirlockError('validation', 'no_such_policy', `there is no ${cur.file}`, 'ListLogrotateConfigs lists the policies; SetLogrotatePolicy writes one');
}

interface SetPolicyState extends PolicyState {
  /** Other configurations (logrotate.conf and the rest of logrotate.d) that name an overlapping log. */
  clashes: Array<{ file: string; pattern: string }>;
  /** The directory holding the log(s). */
  parent: { path: string; exists: boolean; isDir: boolean; uid: number; gid: number; mode: number };
  /** For a single file: what is at the path now. */
  target: 'absent' | 'file' | 'symlink' | 'other';
  /** Whether `logrotate -d /etc/logrotate.conf` passes before the change: then the whole configuration is checked after it. */
  configOk: boolean;
}

async function readSetPolicy(host: Host, name: string, path: string): Promise<SetPolicyState> {
  // Every directory on the way to the log (and the log's own, for DIR/*.log) must be root's alone.
  await host.trustedPath(path);
  const own = await readPolicy(host, name);
  const clashes: SetPolicyState['clashes'] = [];
  const others = [LOGROTATE_CONF, ...((await listDirectory(host, LOGROTATE_DIR)) ?? []).filter((n) => logrotateConfigName.safeParse(n).success).map((n) => `${LOGROTATE_DIR}/${n}`)];
  for (const file of others.filter((f) => f !== own.file)) {
    const text = await host.readFile(file).catch(() => null);
    for (const pattern of logrotateEntries(text ?? '')) if (overlaps(path, pattern)) clashes.push({ file, pattern });
  }
  const dir = posix.dirname(path);
  const d = await host.stat(dir);
  const t = path.endsWith('/*.log') ? null : await host.stat(path);
  const baseline = await host.run('logrotate', ['-d', '--', LOGROTATE_CONF]);
  return {
    ...own,
    clashes,
    parent: { path: dir, exists: d !== null, isDir: d?.isDir === true, uid: d?.uid ?? 0, gid: d?.gid ?? 0, mode: d?.mode ?? 0 },
    target: t === null ? 'absent' : t.isSymlink ? 'symlink' : t.isFile ? 'file' : 'other',
    configOk: baseline.code === 0,
  };
}

export const listLogrotateConfigs = fixedRead({
  name: 'ListLogrotateConfigs',
  sensitive: false,
  reachesNetwork: false,
  family: 'logging',
  description: 'List the logrotate configuration files in /etc/logrotate.d (airlock-* ones are Airlock policies).',
  summary: 'List the files in /etc/logrotate.d',
  steps: [command('ls', ['-l', '--', LOGROTATE_DIR])],
});

export const showLogrotateConfig = action({
  name: 'ShowLogrotateConfig',
  family: 'logging',
  description: 'Show one logrotate configuration file of /etc/logrotate.d.',
  // Low: these files say which logs rotate how; scripts in them run commands but seldom hold secrets.
  risk: 'low',
  readOnly: true,
  // Sensitive: a logrotate file in full: its scripts may carry credentials.
  sensitive: true,
  reachesNetwork: false,
  params: params({ name: logrotateConfigName }),
  files: [`${LOGROTATE_DIR}/*`],
  example: { name: 'apt' },
  current: async ({ name }, host) => {
    const st = await host.stat(`${LOGROTATE_DIR}/${name}`);
    return { path: `${LOGROTATE_DIR}/${name}`, kind: st === null ? 'absent' : st.isSymlink ? 'symlink' : st.isFile ? 'file' : 'other' };
  },
  check: (_p, cur) => {
    if (cur.kind === 'absent') throw new AirlockError('validation', 'not_found', `there is no ${cur.path}`, 'ListLogrotateConfigs lists the files');
    if (cur.kind !== 'file') throw new AirlockError('conflict', 'not_a_file', `${cur.path} is a ${cur.kind === 'symlink' ? 'symbolic link' : 'directory or special file'}, not a configuration file Airlock reads`);
  },
  preview: (_p, cur) => ({ summary: `Read ${cur.path}`, change: null }),
  mechanism: (_p, cur) => [fileScan(cur.path)],
});

const FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;

export const setLogrotatePolicy = action({
  name: 'SetLogrotatePolicy',
  family: 'logging',
  description: 'Write (or replace) the logrotate policy /etc/logrotate.d/airlock-NAME for one log under /var/log, then check the whole logrotate configuration with logrotate -d.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({
    name: policyName,
    path: rotatedLogPath,
    rotate: z.number().int().min(1).max(365),
    frequency: z.enum(FREQUENCIES),
    compress: z.boolean(),
    maxsize: logrotateSize.optional(),
  }),
  files: [`${LOGROTATE_DIR}/airlock-*`],
  example: { name: 'myapp', path: '/var/log/myapp/*.log', rotate: 14, frequency: 'daily', compress: true, maxsize: '100M' },
  current: ({ name, path }, host) => readSetPolicy(host, name, path),
  shown: (cur) => ({ file: cur.file, exists: cur.text !== null, clashes: cur.clashes, parent: cur.parent, target: cur.target, config_ok: cur.configOk }),
  check: ({ name, ...p }, cur) => {
    if (cur.text === logrotatePolicy(name, p)) throw new AirlockError('conflict', 'unchanged', `${cur.file} already says exactly this`);
    if (cur.clashes.length) {
      throw new AirlockError('conflict', 'already_rotated', `${cur.clashes.map((c) => `${c.file} (${c.pattern})`).join(', ')} already rotate${cur.clashes.length === 1 ? 's' : ''} ${p.path}; logrotate refuses a log named twice`, 'change that policy instead, or a person removes the entry');
    }
    const dir = cur.parent;
    // A directory (or one above it) that is not root's alone was refused by the trusted-path rule, a link too:
    // a policy for such a log is written by a person, with an `su USER GROUP` directive.
    if (!dir.exists || !dir.isDir) throw new AirlockError('validation', 'no_such_directory', `${dir.path} is not a directory on this host`, 'the program that writes the log creates it; set the policy afterwards');
    if (cur.target === 'symlink' || cur.target === 'other') throw new AirlockError('conflict', 'not_a_file', `${p.path} is ${cur.target === 'symlink' ? 'a symbolic link' : 'not a regular file'}`);
  },
  preview: ({ name, ...p }, cur) => ({
    summary: `${cur.text === null ? 'Create' : 'Replace'} the logrotate policy airlock-${name} for ${p.path}`,
    change: {
      file: cur.file,
      ...(cur.text !== null ? { replaces: cur.text } : {}),
      content: logrotatePolicy(name, p),
      then: cur.configOk ? `checks the whole configuration with logrotate -d ${LOGROTATE_CONF}; on an error the file is restored` : `checks ${cur.file} alone with logrotate -d; on an error the file is restored`,
    },
    sideEffects: [
      `the daily logrotate run (logrotate.timer or cron) rotates ${p.path} ${p.frequency}${p.maxsize ? ` or once it exceeds ${p.maxsize}` : ''}, keeping ${p.rotate} old cop${p.rotate === 1 ? 'y' : 'ies'}`,
      'copytruncate: the log is copied and then emptied in place, so the program keeps writing to it without a restart; lines written between the copy and the truncation are lost',
    ],
    warnings: [
      ...(cur.configOk ? [] : [`logrotate -d ${LOGROTATE_CONF} already reports errors, so only this file is checked: a log named twice across files is not detected`]),
      ...(cur.target === 'absent' ? [`${p.path} does not exist yet (missingok: nothing happens until it does)`] : []),
    ],
  }),
  mechanism: ({ name, ...p }, cur) => [
    fileWrite(cur.file, logrotatePolicy(name, p), { mode: 0o644 }),
    // Debug mode changes nothing and exits 1 on a duplicate entry or an insecure directory: the job then fails and the file is restored.
    command('logrotate', ['-d', '--', cur.configOk ? LOGROTATE_CONF : cur.file], { paths: [p.path] }),
  ],
});

export const removeLogrotatePolicy = action({
  name: 'RemoveLogrotatePolicy',
  family: 'logging',
  description: 'Delete an Airlock logrotate policy /etc/logrotate.d/airlock-NAME (the logs and their rotated copies stay).',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ name: policyName }),
  files: [`${LOGROTATE_DIR}/airlock-*`],
  example: { name: 'myapp' },
  current: ({ name }, host) => readPolicy(host, name),
  shown: (cur) => ({ file: cur.file, exists: cur.text !== null }),
  check: (_p, cur) => refuseNoPolicy(cur),
  preview: ({ name }, cur) => ({
    summary: `Remove the logrotate policy airlock-${name}`,
    change: { deletes: cur.file, content: cur.text, logs: logrotateEntries(cur.text ?? '') },
    sideEffects: ['these logs are no longer rotated and grow until another policy covers them; the logs and their old copies stay'],
  }),
  mechanism: (_p, cur) => [fileDelete(cur.file)],
});

export const runLogrotate = action({
  name: 'RunLogrotate',
  family: 'logging',
  description: 'Rotate the logs of one Airlock policy now (logrotate -f /etc/logrotate.d/airlock-NAME), whether or not they are due.',
  risk: 'medium',
  readOnly: false,
  params: params({ name: policyName }),
  files: [],
  example: { name: 'myapp' },
  current: async ({ name }, host) => {
    const policy = await readPolicy(host, name);
    const logs: Array<{ path: string; size: number }> = [];
    const patterns = logrotateEntries(policy.text ?? '');
    // Checked before anything is listed or looked at: the policy was safe when written, its directories may not be now.
    for (const pattern of patterns) await host.trustedPath(pattern);
    for (const pattern of patterns) {
      const names = pattern.endsWith('/*.log') ? ((await listDirectory(host, posix.dirname(pattern))) ?? []).filter((n) => /^[A-Za-z0-9][A-Za-z0-9._-]*\.log$/.test(n)) : [posix.basename(pattern)];
      for (const n of names) {
        const path = `${posix.dirname(pattern)}/${n}`;
        const st = await host.stat(path);
        if (st?.isFile) logs.push({ path, size: st.size });
      }
    }
    return { ...policy, patterns, logs };
  },
  shown: (cur) => ({ file: cur.file, exists: cur.text !== null, logs: cur.logs }),
  check: (_p, cur) => {
    refuseNoPolicy(cur);
    if (cur.logs.length === 0) throw new AirlockError('conflict', 'nothing_to_rotate', `no log named by ${cur.file} exists yet`);
  },
  preview: ({ name }, cur) => ({
    summary: `Rotate the logs of airlock-${name} now`,
    change: { policy: cur.file, logs: cur.logs.map((l) => l.path), text: 'each non-empty log is rotated as the policy says (copied to NAME.1, emptied, older copies shifted, the oldest beyond the count deleted)' },
    sideEffects: [...cur.logs.map((l) => `${l.path}: ${bytes(l.size)} now${l.size === 0 ? ' (empty: notifempty leaves it alone)' : ''}`), 'the copy beyond the rotate count is deleted'],
  }),
  mechanism: (_p, cur) => [command('logrotate', ['-f', '--', cur.file], { paths: cur.patterns })],
});
