/**
 * logrotate configuration as the logging family writes and reads it: the policy file
 * /etc/logrotate.d/airlock-NAME (its name, the log it rotates, its text) and the log
 * patterns any logrotate configuration names.
 */
import { matchesGlob, token } from '../../params.js';

export const LOGROTATE_DIR = '/etc/logrotate.d';
export const LOGROTATE_CONF = '/etc/logrotate.conf';
export const policyFile = (name: string) => `${LOGROTATE_DIR}/airlock-${name}`;

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
export const logrotateSize = token(/^[1-9][0-9]{0,5}[kMG]?$/, 'size (a number, optionally followed by k, M or G)', 7);

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
export const overlaps = (a: string, b: string) => a === b || matchesGlob(a, b) || matchesGlob(b, a);
