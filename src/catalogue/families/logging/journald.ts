/**
 * journald settings (family 'logging'): the configuration journald reads shown, and one
 * option at a time set or reset in the Airlock-owned drop-in
 * /etc/systemd/journald.conf.d/60-airlock.conf, then systemd-journald restarted.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileDelete, fileWrite, type CommandStep, type Step } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { timeSpan } from './quantities.js';
import { exact } from '../../rollback.js';

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
/**
 * The drop-in is probed as the file its step writes; journald running again after the restart
 * (and after the undo's) is the live state, which reads the same before and after.
 */
const journaldRollback = exact(() => [{ program: 'systemctl', args: ['is-active', '--', JOURNALD_UNIT] }]);
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
    { ...restartJournald(), noUndo: 'undone_earlier' },
  ];
}

const JOURNALD_RESTART_EFFECT = 'systemd-journald restarts to read it: services keep logging (journald keeps their connections across the restart), and a message sent at that very instant may be lost';

export const setJournaldOption = action({
  name: 'SetJournaldOption',
  family: 'logging',
  description: `Set one journald option (${JOURNALD_OPTIONS.join(', ')}) in ${JOURNALD_DROPIN}, keeping the others there, and restart systemd-journald.`,
  risk: 'medium',
  rollback: journaldRollback,
  readOnly: false,
  runsPrograms: false,
  params: journaldSetting,
  files: [JOURNALD_DROPIN],
  example: { option: 'SystemMaxUse', value: '500M' },
  current: (_p, host) => readJournald(host),
  check: ({ option, value }, cur) => {
    const now = cur.effective[option];
    if (now?.value === String(value)) return unchanged(`${now.file} already sets ${option}=${value}, and journald uses it`);
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
  rollback: journaldRollback,
  readOnly: false,
  runsPrograms: false,
  params: params({ option: z.enum(JOURNALD_OPTIONS) }),
  files: [JOURNALD_DROPIN],
  example: { option: 'SystemMaxUse' },
  current: (_p, host) => readJournald(host),
  check: ({ option }, cur) => {
    if (!cur.own?.some(([k]) => k === option)) return unchanged(`${JOURNALD_DROPIN} does not set ${option}`);
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

export const showJournaldConfig = fixedRead({
  name: 'ShowJournaldConfig',
  // Sensitive: journald's configuration files, in full.
  sensitive: true,
  reachesNetwork: false,
  family: 'logging',
  description: 'Show the journald configuration as journald reads it: /etc/systemd/journald.conf (or the vendor copy) and every drop-in, in order, each under a "# /path" header.',
  summary: 'Show journald.conf and its drop-ins (systemd-analyze cat-config)',
  steps: [command('systemd-analyze', ['cat-config', '--no-pager', 'systemd/journald.conf'])],
});
