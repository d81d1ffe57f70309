/**
 * The system locale (LANG in /etc/default/locale), with the locale compiled first when it
 * is not yet (enabled in /etc/locale.gen so later regenerations keep it, then built with
 * localedef).
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, filePatch, fileScan, fileWrite, type Step } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { appendLine } from '../../lib/line-patch.js';
import { exact } from '../../rollback.js';

const DEFAULT_LOCALE = '/etc/default/locale';
const LOCALE_GEN = '/etc/locale.gen';
const SUPPORTED = '/usr/share/i18n/SUPPORTED';
const I18N_LOCALES = '/usr/share/i18n/locales';
const LOCALE_ALIAS = '/usr/share/locale/locale.alias';

/** A locale name: language[_TERRITORY][.codeset][@modifier] (en_US.UTF-8, sr_RS@latin, eo), or C, C.UTF-8, POSIX. */
export const localeName = token(/^(C|POSIX|C\.UTF-8|C\.utf8|[a-z]{2,3}(_[A-Z]{2})?(\.[A-Za-z0-9-]{1,20})?(@[a-z0-9]{1,20})?)$/, 'locale (e.g. en_US.UTF-8)', 48);
const BUILT_IN = ['C', 'POSIX', 'C.UTF-8', 'C.utf8'];

/** glibc's name for a locale, as `locale -a` prints it: the codeset lower-cased without punctuation (en_US.UTF-8 -> en_US.utf8). */
export function normaliseLocale(name: string): string {
  const m = /^([^.@]+)(?:\.([^@]+))?(@.+)?$/.exec(name);
  if (!m?.[2]) return name;
  let cs = m[2].replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  if (/^[0-9]+$/.test(cs)) cs = `iso${cs}`;
  return `${m[1]}.${cs}${m[3] ?? ''}`;
}

/** The last LANG= (and LC_ALL=) of /etc/default/locale, unquoted. */
export function localeVariable(text: string, key: string): string | null {
  let value: string | null = null;
  for (const line of text.split('\n')) {
    const m = new RegExp(`^\\s*${key}=(.*)$`).exec(line);
    if (m) value = m[1]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return value;
}

/** /etc/default/locale with LANG set: the first LANG= line replaced (later ones dropped), or one appended; every other line kept. */
export function withLang(text: string | null, lang: string): string {
  const lines = text === null ? ['# Written by Airlock (SetLocale).'] : text.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let done = false;
  for (const l of lines) {
    if (/^\s*LANG=/.test(l)) {
      if (!done) out.push(`LANG=${lang}`);
      done = true;
    } else out.push(l);
  }
  if (!done) out.push(`LANG=${lang}`);
  return out.join('\n') + '\n';
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface LocaleState {
  file: { exists: boolean; text: string | null; lang: string | null; lcAll: string | null };
  /** Compiled already (in `locale -a`). */
  available: boolean;
  /** Its line in /usr/share/i18n/SUPPORTED: the charset to compile it with. */
  charset: string | null;
  /** The definition localedef reads (-i): the full name when a file has it, else language_TERRITORY[@modifier]. */
  input: string | null;
  definition: boolean;
  /** Its line in /etc/locale.gen: enabled, commented out (the exact line), or absent. */
  gen: { exists: boolean; text: string; state: 'enabled' | 'commented' | 'absent'; line: string | null };
}

export async function readLocaleState(host: Host, lang: string): Promise<LocaleState> {
  const text = await host.readFile(DEFAULT_LOCALE);
  const file = { exists: text !== null, text, lang: text === null ? null : localeVariable(text, 'LANG'), lcAll: text === null ? null : localeVariable(text, 'LC_ALL') };
  const list = await host.run('locale', ['-a']);
  const available = BUILT_IN.includes(lang) || list.stdout.split('\n').includes(normaliseLocale(lang));
  const supported = ((await host.readFile(SUPPORTED)) ?? '').split('\n').map((l) => l.trim().split(/\s+/));
  const charset = supported.find((f) => f[0] === lang && /^[A-Z0-9-]{1,20}$/.test(f[1] ?? ''))?.[1] ?? null;
  let input: string | null = null;
  let definition = false;
  if (!available && charset) {
    const full = await host.stat(`${I18N_LOCALES}/${lang}`);
    input = full?.isFile ? lang : lang.replace(/\.[^@]*/, '');
    definition = full?.isFile === true || (await host.stat(`${I18N_LOCALES}/${input}`))?.isFile === true;
  }
  const genText = await host.readFile(LOCALE_GEN);
  const genLines = (genText ?? '').split('\n');
  const entry = charset ? new RegExp(`^\\s*${escapeRe(lang)}\\s+${escapeRe(charset)}\\s*$`) : null;
  const commented = charset ? new RegExp(`^#\\s*${escapeRe(lang)}\\s+${escapeRe(charset)}\\s*$`) : null;
  const line = commented ? genLines.find((l) => commented.test(l)) ?? null : null;
  const state = entry && genLines.some((l) => entry.test(l)) ? 'enabled' : line ? 'commented' : 'absent';
  return { file, available, charset, input, definition, gen: { exists: genText !== null, text: genText ?? '', state, line: state === 'commented' ? line : null } };
}

/** The /etc/locale.gen step that enables the locale: uncomment its line (a patch when that text is unique), or append one. */
function enableInLocaleGen(lang: string, cur: LocaleState): Step | null {
  const entry = `${lang} ${cur.charset}`;
  const { text, state, line } = cur.gen;
  if (state === 'enabled') return null;
  if (state === 'commented' && line !== null && text.indexOf(line) === text.lastIndexOf(line)) return filePatch(LOCALE_GEN, line, entry);
  let done = false;
  const next =
    state === 'commented'
      ? text.split('\n').map((l) => (l === line && !done ? ((done = true), entry) : l)).join('\n')
      : appendLine(text, entry);
  return fileWrite(LOCALE_GEN, next, { mode: 0o644 });
}

export const getLocale = action({
  name: 'GetLocale',
  family: 'identity',
  description: 'Show the system locale: the LANG and LC_* settings of /etc/default/locale.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [DEFAULT_LOCALE],
  example: {},
  current: async (_p, host) => ({ exists: (await host.stat(DEFAULT_LOCALE))?.isFile === true }),
  check: (_p, cur) => {
    if (!cur.exists) throw new AirlockError('validation', 'not_found', `${DEFAULT_LOCALE} does not exist: no system locale is set (programs use C)`, 'SetLocale writes one');
  },
  preview: () => ({ summary: `Read ${DEFAULT_LOCALE}`, change: null }),
  mechanism: () => [fileScan(DEFAULT_LOCALE)],
});

export const listLocales = fixedRead({
  name: 'ListLocales',
  sensitive: false,
  reachesNetwork: false,
  family: 'identity',
  description: 'List the locales compiled on this host (locale -a); SetLocale compiles a supported one that is missing.',
  summary: 'List the compiled locales',
  steps: [command('locale', ['-a'])],
});

export const setLocale = action({
  name: 'SetLocale',
  family: 'identity',
  description: `Set the system locale (LANG in ${DEFAULT_LOCALE}, keeping the LC_* settings), compiling it first when it is supported but not compiled yet.`,
  risk: 'medium',
  // The files from their snapshots; a compiled locale deleted from the archive again. The archive's
  // bytes are not probed (localedef leaves a deleted locale's space in it): the list of locales is.
  rollback: exact((_p: unknown, cur: { available: boolean }) => (cur.available ? [] : [{ program: 'locale', args: ['-a'] }])),
  readOnly: false,
  runsPrograms: false,
  params: params({ lang: localeName }),
  files: [DEFAULT_LOCALE, LOCALE_GEN],
  // Lines other programs (or a person) change in /etc/locale.gen stay; /etc/default/locale is bound whole.
  rebuildsAtExecute: { files: [LOCALE_GEN] },
  example: { lang: 'en_US.UTF-8' },
  current: ({ lang }, host) => readLocaleState(host, lang),
  shown: (cur) => ({ lang: cur.file.lang, lc_all: cur.file.lcAll, compiled: cur.available, supported_charset: cur.charset, locale_gen: cur.gen.state }),
  check: ({ lang }, cur) => {
    if (cur.file.lang === lang) return unchanged(`LANG is already ${lang}`);
    if (cur.available) return;
    if (!cur.charset) throw new AirlockError('validation', 'unknown_locale', `${lang} is neither compiled on this host nor listed in ${SUPPORTED}`, 'ListLocales shows the compiled ones; names look like en_US.UTF-8');
    if (!cur.definition) {
      throw new AirlockError('unsupported_platform', 'no_locale_definition', `${I18N_LOCALES}/${cur.input} is missing, so ${lang} cannot be compiled`, 'reinstall the locales package');
    }
  },
  preview: ({ lang }, cur) => ({
    summary: `Set the system locale to ${lang}${cur.available ? '' : ' (compiling it first)'}`,
    change: {
      file: DEFAULT_LOCALE,
      lang: { from: cur.file.lang, to: lang },
      content: withLang(cur.file.text, lang),
      ...(cur.available
        ? {}
        : {
            compiles: {
              locale_gen: cur.gen.state === 'enabled' ? `${LOCALE_GEN} already lists "${lang} ${cur.charset}"` : `${cur.gen.state === 'commented' ? 'uncomments' : 'adds'} the line "${lang} ${cur.charset}" in ${LOCALE_GEN}`,
              localedef: `compiles ${lang} from ${I18N_LOCALES}/${cur.input} with charset ${cur.charset} into /usr/lib/locale/locale-archive`,
            },
          }),
    },
    sideEffects: [
      'new login sessions, and services started from now on, use the new LANG; running programs and open sessions keep theirs',
      ...(cur.available ? [] : ['later runs of locale-gen (e.g. when libc is upgraded) keep compiling it, since /etc/locale.gen lists it']),
    ],
    warnings: cur.file.lcAll ? [`${DEFAULT_LOCALE} also sets LC_ALL=${cur.file.lcAll}, which overrides LANG for every category`] : [],
  }),
  mechanism: ({ lang }, cur) => {
    const steps: Step[] = [];
    if (!cur.available) {
      const gen = enableInLocaleGen(lang, cur);
      if (gen) steps.push(gen);
      // Without -c (which locale-gen passes): with it, a missing charmap still "succeeds" with an
      // ASCII locale under another name (verified). Any warning or error fails the job, which
      // restores /etc/locale.gen; if a later step fails, the compiled locale is deleted again.
      steps.push(
        command('localedef', ['-i', cur.input!, '-f', cur.charset!, '-A', LOCALE_ALIAS, '--', lang], {
          timeoutMs: 300_000,
          undo: command('localedef', ['--delete-from-archive', '--', normaliseLocale(lang)]),
        }),
      );
    }
    steps.push(fileWrite(DEFAULT_LOCALE, withLang(cur.file.text, lang), { mode: 0o644 }));
    return steps;
  },
});
