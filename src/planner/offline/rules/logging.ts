/** Rules of the logging family: reading the journal (of a unit or the system), its size, journald and logrotate. */
import { missing, rule, step, steps, takeUnit, type Context } from '../rule.js';
import { takeCount, takeDuration, takeNumberAfter, takeNumberBefore, takePath, takeSize, type Clause } from '../words.js';

const LOGS = ['logs', 'log', 'journal', 'errors', 'error', 'warnings', 'journalctl', 'messages', 'log lines'];
const PRIORITY_WORDS: [string[], string][] = [[['errors', 'error', 'err', 'failures'], 'err'], [['warnings', 'warning', 'warn'], 'warning'], [['critical', 'crit'], 'crit']];

/** The priority a person names ("errors", "warnings"), even when the word was the rule's trigger. */
function priority(c: Clause): string | null {
  for (const [words, p] of PRIORITY_WORDS) {
    const t = c.tokens.find((x) => !x.literal && words.includes(x.low));
    if (t !== undefined) {
      t.used = true;
      return p;
    }
  }
  return null;
}

/** "in the last hour", "since yesterday", "today", "last 30 minutes" as journalctl --since takes them. */
function since(c: Clause): string | null {
  if (c.takeAny(['today', 'since today', 'this morning'])) return 'today';
  if (c.takeAny(['yesterday', 'since yesterday'])) return 'yesterday';
  if (c.takeAny(['last hour', 'past hour', 'an hour', 'hour'])) return '-1h';
  if (c.takeAny(['last day', 'past day', '24 hours', 'last 24 hours'])) return '-1d';
  if (c.takeAny(['last week', 'past week', 'this week'])) return '-1w';
  const d = takeDuration(c);
  if (d === null) return null;
  const m = /^(\d+)(s|min|h|d|w|days|weeks)$/.exec(d);
  return m ? `-${m[1]}${({ days: 'd', weeks: 'w' } as Record<string, string>)[m[2]!] ?? m[2]}` : null;
}

function journalRead(c: Clause, ctx: Context) {
  const lines = takeCount(c);
  const p = priority(c);
  const s = since(c);
  const unitNamed = takeUnit(c, ctx);
  if (unitNamed !== null && p === null && s === null) {
    return steps(step('UnitLogs', { unit: unitNamed, ...(lines !== null ? { lines: Math.min(lines, 1000) } : {}) }, `the last journal lines of ${unitNamed}`));
  }
  return steps(step('JournalQuery', { ...(unitNamed !== null ? { unit: unitNamed } : {}), ...(p !== null ? { priority: p } : {}), ...(s !== null ? { since: s } : {}), lines: Math.min(lines ?? 200, 2000) },
    `${p === 'err' ? 'error lines' : p === 'warning' ? 'warnings' : 'journal lines'}${unitNamed !== null ? ` of ${unitNamed}` : ' of the whole system'}`));
}

export const loggingRules = [
  rule('logging.read', [LOGS], journalRead, { also: ['show', 'read', 'last', 'latest', 'recent', 'the', 'of', 'from', 'in', 'tail', 'see', 'check', 'what', 'any', 'since', 'lines', 'system', 'why', 'did', 'fail', 'failed', 'print'],
    unless: ['vacuum', 'shrink', 'trim', 'rotate', 'logrotate', 'container', 'kernel', 'dmesg', 'size', 'big', 'space', 'verify', 'corrupt', 'journald', 'disk usage', 'clean', 'delete', 'purge', 'prune', 'older', 'cap', 'limit', 'max'] }),
  rule('logging.journal-size', [['journal', 'logs', 'journald'], ['size', 'big', 'space', 'disk usage', 'usage', 'take', 'taking', 'large', 'much']], () => steps(step('JournalDiskUsage', {}, 'the disk space the journal takes')), { also: ['how', 'is', 'the', 'does', 'show', 'disk', 'up', 'of'], unless: ['vacuum', 'shrink', 'trim', 'cap', 'limit', 'reduce', 'max', 'to', 'clean'] }),
  rule('logging.vacuum', [['vacuum', 'shrink', 'trim', 'prune', 'clean', 'clean up', 'delete', 'purge', 'clear', 'reduce', 'free'], ['journal', 'logs', 'journal logs', 'log', 'journald']], (c) => {
    const size = takeSize(c);
    const age = takeDuration(c);
    if (size !== null && size.unit !== 'T') return steps(step('VacuumJournal', { maxSize: `${size.value}${size.unit}` }, `delete archived journal files down to ${size.value}${size.unit}`));
    if (age !== null) return steps(step('VacuumJournal', { maxAge: age }, `delete archived journal files older than ${age}`));
    return missing('how far to shrink the journal (a size such as 500M, or an age such as 2weeks)');
  }, { also: ['to', 'older', 'than', 'the', 'old', 'up', 'down', 'keep', 'only', 'files', 'archived', 'systemd', 'size'], unless: ['rotate', 'logrotate'] }),
  rule('logging.journald-cap', [['cap', 'limit', 'max', 'maximum', 'at most', 'never more than'], ['journal', 'journald']], (c) => {
    const size = takeSize(c);
    if (size !== null) return steps(step('SetJournaldOption', { option: 'SystemMaxUse', value: `${size.value}${size.unit}` }, `keep the journal under ${size.value}${size.unit} from now on`));
    const age = takeDuration(c);
    return age === null ? missing('the cap (a size such as 1G)') : steps(step('SetJournaldOption', { option: 'MaxRetentionSec', value: age }, `keep journal entries at most ${age}`));
  }, { also: ['size', 'to', 'at', 'the', 'use', 'disk', 'of', 'set', 'from now on', 'on', 'now'], unless: ['vacuum'] }),
  rule('logging.journald-persistent', [['persistent', 'volatile'], ['journal', 'journald', 'logs']], (c) => {
    const value = c.take('persistent') ? 'persistent' : (c.take('volatile'), 'volatile');
    return steps(step('SetJournaldOption', { option: 'Storage', value }, `journald storage ${value}`));
  }, { also: ['make', 'the', 'set', 'keep', 'across', 'reboots', 'storage'] }),
  rule('logging.journald-config', [['journald'], ['config', 'configuration', 'settings', 'conf', 'options']], () => steps(step('ShowJournaldConfig', {}, 'the journald configuration')), { also: ['show', 'the', 'what', 'is'] }),
  rule('logging.journald-reset', [['reset', 'remove', 'undo'], ['journald', 'journal'], ['option', 'setting', 'cap', 'limit', 'systemmaxuse', 'storage']], (c) => {
    const option = c.takeAny(['storage']) ? 'Storage' : 'SystemMaxUse';
    return steps(step('ResetJournaldOption', { option }, `remove Airlock's ${option} setting of journald`));
  }, { also: ['the', 'size'] }),
  rule('logging.verify', [['verify', 'corrupt', 'corrupted', 'damaged', 'damage', 'integrity', 'check'], ['journal', 'journal files']], () => steps(step('VerifyJournal', {}, 'check every journal file for damage')), { also: ['the', 'is', 'for', 'files'] }),
  rule('logging.boots', [['boots', 'reboots', 'boot history', 'previous boots', 'list boots', 'rebooted']], () => steps(step('ListBoots', {}, 'the boots the journal knows')), { also: ['show', 'list', 'when', 'did', 'it', 'last', 'the', 'how', 'many', 'times'] }),
  rule('logging.dmesg', [['dmesg', 'kernel messages', 'kernel log', 'kernel logs', 'kernel errors', 'kernel ring buffer']], (c) => {
    const lines = takeCount(c);
    const p = priority(c);
    return steps(step('KernelMessages', { lines: Math.min(lines ?? 200, 2000), ...(p !== null ? { priority: p } : {}) }, 'the last kernel messages of this boot'));
  }, { also: ['show', 'the', 'last', 'recent', 'any', 'read'] }),
  rule('logging.logrotate-list', [['logrotate', 'log rotation', 'rotation'], ['list', 'show', 'which', 'what', 'configs', 'configurations', 'policies', 'config']], (c) => {
    const name = c.after(['for', 'of'], (t) => c.isName(t) && /^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$/.test(t.raw));
    return name === null ? steps(step('ListLogrotateConfigs', {}, 'the logrotate configurations')) : steps(step('ShowLogrotateConfig', { name }, `the logrotate configuration of ${name}`));
  }, { also: ['the', 'are', 'is', 'there', 'configured', 'files'] }),
  rule('logging.logrotate-set', [['rotate', 'rotation', 'logrotate']], (c) => {
    const frequency = c.takeAny(['daily', 'weekly', 'monthly']) ?? (c.take('every day') ? 'daily' : c.take('every week') ? 'weekly' : null);
    const rotate = takeNumberAfter(c, ['keep', 'keeping']) ?? takeNumberBefore(c, ['copies', 'rotations', 'files', 'days', 'weeks', 'months']);
    const path = takePath(c, ['/var/log']);
    const now = c.takeAny(['now', 'force', 'immediately', 'right now']) !== null;
    const name = path === null ? c.takeToken((t) => c.isName(t) && /^[a-z0-9][a-z0-9_-]{0,47}$/.test(t.low))?.toLowerCase() ?? null : path.split('/').filter((p) => p !== '' && p !== '*.log')[2]?.replace(/\.log$/, '').toLowerCase().replace(/[^a-z0-9_-]/g, '-') ?? null;
    if (now && name !== null && path === null) return steps(step('RunLogrotate', { name }, `rotate the ${name} logs now`));
    if (path === null || name === null) return missing('the log to rotate (a path under /var/log)');
    if (frequency === null) return missing('how often (daily, weekly or monthly)');
    return steps(step('SetLogrotatePolicy', { name, path, rotate: rotate ?? 7, frequency, compress: !c.take('uncompressed') }, `rotate ${path} ${frequency}, keeping ${rotate ?? 7}`));
  }, { also: ['logs', 'log', 'the', 'and', 'of', 'compress', 'compressed', 'keep', 'them', 'every', 'policy'] }),
  rule('logging.logrotate-remove', [['remove', 'delete', 'drop'], ['logrotate', 'rotation', 'rotation policy', 'logrotate policy']], (c) => {
    const name = c.takeToken((t) => c.isName(t) && /^[a-z0-9][a-z0-9_-]{0,47}$/.test(t.low));
    return name === null ? missing('which logrotate policy') : steps(step('RemoveLogrotatePolicy', { name: name.toLowerCase() }, `remove the logrotate policy ${name}`));
  }, { also: ['the', 'policy', 'for', 'of', 'logs'] }),
];
