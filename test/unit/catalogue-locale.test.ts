import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import { ntpStatus, setNtp } from '../../src/catalogue/families/identity/clock.js';
import * as localeFile from '../../src/catalogue/families/identity/locale.js';
import { localeName, localeVariable, normaliseLocale, withLang } from '../../src/catalogue/families/identity/locale.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

/** What families/locale.ts held: the NTP actions (now in identity/clock.ts beside TimeStatus) and the locale ones. */
const locale = { ntpStatus, setNtp, ...localeFile };
const actions = Object.values(locale).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;
const ok = (stdout: string): CommandOutput => ({ code: 0, stdout, stderr: '' });

const { run, refused } = actionRunner(actions);

test('locale and NTP actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, string | undefined, string[]]> = {
    NtpStatus: ['low', true, undefined, []],
    SetNtp: ['medium', false, 'exact', []],
    GetLocale: ['low', true, undefined, ['/etc/default/locale']],
    ListLocales: ['low', true, undefined, []],
    SetLocale: ['medium', false, 'exact', ['/etc/default/locale', '/etc/locale.gen']],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'identity');
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class, a.files], expected[a.name], a.name);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
    assert.equal(a.params.safeParse({ ...a.example, extra: 1 }).success, false, `${a.name} extra key`);
  }
});

// ---------------------------------------------------------------- NTP

const TIMEDATECTL_SHOW = (ntp: boolean, can = true) => `Timezone=Etc/UTC\nLocalRTC=no\nCanNTP=${can ? 'yes' : 'no'}\nNTP=${ntp ? 'yes' : 'no'}\nNTPSynchronized=no\nTimeUSec=Sun 2026-11-29 20:48:42 UTC\n`;

const NTP_LISTS = '/usr/lib/systemd/ntp-units.d';
const TIMESYNCD = 'systemd-timesyncd.service';

/** timedated and one NTP unit (timesyncd unless `lists` names others: file name -> its text, in /usr/lib/systemd/ntp-units.d). */
function timeHost(o: { ntp: boolean; can?: boolean; active?: string; unitFile?: string; condition?: string; broken?: boolean; lists?: Record<string, string>; others?: Record<string, string> }) {
  const lists = o.lists ?? { '80-systemd-timesync.list': `# This file is part of systemd.\n\n${TIMESYNCD}\n` };
  const tree: Record<string, Node> = Object.fromEntries(Object.entries(lists).map(([name, text]) => [`${NTP_LISTS}/${name}`, text]));
  return new FixtureHost(tree, (program, args) => {
    if (program === 'timedatectl' && args[0] === 'show') return o.broken ? { code: 1, stdout: '', stderr: 'Failed to connect to bus' } : ok(TIMEDATECTL_SHOW(o.ntp, o.can ?? true));
    if (program === 'ls') return args.at(-1) === NTP_LISTS ? ok(Object.keys(lists).join('\n') + '\n') : { code: 2, stdout: '', stderr: 'No such file or directory' };
    if (program === 'systemctl' && args[0] === 'show') {
      assert.deepEqual(args.slice(0, -1), ['show', '--no-pager', '-p', 'LoadState,ActiveState,UnitFileState,ConditionResult', '--']);
      const unit = args.at(-1)!;
      if (unit !== TIMESYNCD) return ok(o.others?.[unit] ?? 'LoadState=not-found\nActiveState=inactive\nUnitFileState=\nConditionResult=no\n');
      return ok(`LoadState=loaded\nActiveState=${o.active ?? 'inactive'}\nUnitFileState=${o.unitFile ?? 'enabled'}\nConditionResult=${o.condition ?? 'yes'}\n`);
    }
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

const systemctl = (...args: string[]) => ({ kind: 'command', program: 'systemctl', args });
/** timedatectl set-ntp, its undo put back from the unit's state, and the wait for the job timedated queued. */
const setNtpSteps = (on: boolean, undo: string[], unit = TIMESYNCD) => [
  { kind: 'command', program: 'timedatectl', args: ['set-ntp', String(on)], undo: systemctl(...undo, '--', unit) },
  { ...systemctl(on ? 'start' : 'stop', '--', unit), noUndo: 'undone_earlier' },
];

test('NtpStatus shows timedated state, and asks timesyncd itself only when it runs', async () => {
  assert.deepEqual((await run('NtpStatus', {}, timeHost({ ntp: false }))).steps, [{ kind: 'command', program: 'timedatectl', args: ['show'] }]);
  const running = await run('NtpStatus', {}, timeHost({ ntp: true, active: 'active' }));
  assert.deepEqual(running.steps, [
    { kind: 'command', program: 'timedatectl', args: ['show'] },
    { kind: 'command', program: 'timedatectl', args: ['timesync-status'] },
  ]);
  assert.match(running.preview.summary, /NTP on, clock not synchronised yet; systemd-timesyncd\.service active, enabled/);
  await refused('NtpStatus', {}, timeHost({ ntp: false, broken: true }), 'timedated_unreachable');
  assert.equal(byName('NtpStatus').params.safeParse({ enabled: true }).success, false);
});

test('SetNtp takes a boolean only', () => {
  for (const v of [...INJECTIONS, 'true', 'false', 1, 0, null, 'yes']) assert.equal(byName('SetNtp').params.safeParse({ enabled: v }).success, false, JSON.stringify(v));
  assert.equal(byName('SetNtp').params.safeParse({}).success, false);
});

test('SetNtp runs timedatectl set-ntp, undone by putting the NTP unit back as it was, and waits for the job', async () => {
  // Enabled but not running (a start condition failed): on, then off again would disable it; the undo only stops it.
  const on = await run('SetNtp', { enabled: true }, timeHost({ ntp: false }));
  assert.deepEqual(on.steps, setNtpSteps(true, ['stop']));
  assert.deepEqual((on.preview.change as { ntp: unknown }).ntp, { from: false, to: true });
  assert.deepEqual(on.preview.warnings, []);
  assert.deepEqual((await run('SetNtp', { enabled: true }, timeHost({ ntp: false, unitFile: 'disabled' }))).steps, setNtpSteps(true, ['disable', '--now']));
  const off = await run('SetNtp', { enabled: false }, timeHost({ ntp: true, active: 'active' }));
  assert.deepEqual(off.steps, setNtpSteps(false, ['enable', '--now']));
  assert.match((off.preview.change as { text: string }).text, /stops systemd-timesyncd\.service and disables it/);
  // Not running, but enabled at boot: turning it off is a real change, undone by enabling it again.
  assert.deepEqual((await run('SetNtp', { enabled: false }, timeHost({ ntp: false, unitFile: 'enabled' }))).steps, setNtpSteps(false, ['enable']));
  // Running but not enabled: started again.
  assert.deepEqual((await run('SetNtp', { enabled: false }, timeHost({ ntp: true, active: 'active', unitFile: 'disabled' }))).steps, setNtpSteps(false, ['start']));
  // What the rollback reads: the unit's enablement and activity.
  const r = byName('SetNtp').rollback;
  assert.deepEqual(r?.class === 'exact' && r.state?.({ enabled: true }, on.cur), [systemctl('is-enabled', '--', TIMESYNCD), systemctl('is-active', '--', TIMESYNCD)].map(({ program, args }) => ({ program, args })));
  // Another NTP service timedated knows (chrony), named by its list; a later list file of the same name in /etc would hide this one.
  const chrony = await run('SetNtp', { enabled: true }, timeHost({ ntp: false, lists: { '50-chrony.list': 'chrony.service\n' }, others: { 'chrony.service': 'LoadState=loaded\nActiveState=inactive\nUnitFileState=disabled\nConditionResult=yes\n' } }));
  assert.deepEqual(chrony.steps, setNtpSteps(true, ['disable', '--now'], 'chrony.service'));
  // Two loaded NTP units: timedated would switch between them, and one undo cannot put both back.
  await refused('SetNtp', { enabled: true }, timeHost({ ntp: false, lists: { '50-chrony.list': 'chrony.service\n', '80-systemd-timesync.list': `${TIMESYNCD}\n` }, others: { 'chrony.service': 'LoadState=loaded\nActiveState=inactive\nUnitFileState=disabled\n' } }), 'several_ntp_services');
  await refused('SetNtp', { enabled: true }, timeHost({ ntp: false, unitFile: 'masked' }), 'ntp_unit_state');
  // In a container timesyncd's conditions fail: the preview says it may stay inactive.
  const container = await run('SetNtp', { enabled: true }, timeHost({ ntp: false, condition: 'no' }));
  assert.ok(container.preview.warnings!.some((w) => w.includes('start condition failed')));
});

test('SetNtp: the same setting is no change; refuses a host without an NTP service', async () => {
  await assertNoChange(run('SetNtp', { enabled: true }, timeHost({ ntp: true, active: 'active' })), /already/);
  await assertNoChange(run('SetNtp', { enabled: false }, timeHost({ ntp: false, unitFile: 'disabled' })), /already/);
  await refused('SetNtp', { enabled: true }, timeHost({ ntp: false, can: false }), 'no_ntp_service');
  await refused('SetNtp', { enabled: true }, timeHost({ ntp: false, lists: {} }), 'no_ntp_service');
  await refused('SetNtp', { enabled: true }, timeHost({ ntp: false, broken: true }), 'timedated_unreachable');
});

// ---------------------------------------------------------------- locale

test('locale names: an allowlist of language[_TERRITORY][.codeset][@modifier]', () => {
  for (const s of [...INJECTIONS, 'en_US.UTF-8;id', 'en_US.UTF-8 UTF-8', 'EN_us', 'en_us.UTF-8', 'en-US', 'en_US.', 'en_US@', 'english', '../../etc/shadow', 'en_US/../x', 'c', 'posix', 'en_US.UTF-8\u0000']) {
    assert.equal(localeName.safeParse(s).success, false, JSON.stringify(s));
    assert.equal(byName('SetLocale').params.safeParse({ lang: s }).success, false, JSON.stringify(s));
  }
  for (const s of ['en_US.UTF-8', 'en_US', 'fr_FR@euro', 'sr_RS@latin', 'ca_ES.UTF-8@valencia', 'ast_ES.UTF-8', 'eo', 'C', 'C.UTF-8', 'POSIX', 'ja_JP.EUC-JP']) {
    assert.ok(localeName.safeParse(s).success, s);
  }
});

test('locale helpers: glibc names, LANG and LC_ALL, rewriting /etc/default/locale', () => {
  assert.equal(normaliseLocale('en_US.UTF-8'), 'en_US.utf8');
  assert.equal(normaliseLocale('ca_ES.UTF-8@valencia'), 'ca_ES.utf8@valencia');
  assert.equal(normaliseLocale('de_DE.ISO-8859-15@euro'), 'de_DE.iso885915@euro');
  assert.equal(normaliseLocale('xx_YY.8859-1'), 'xx_YY.iso88591');
  assert.equal(normaliseLocale('sr_RS@latin'), 'sr_RS@latin');
  assert.equal(normaliseLocale('C'), 'C');
  assert.equal(localeVariable('#LANG=x\nLANG="fr_FR.UTF-8"\nLANG=de_DE.UTF-8\n', 'LANG'), 'de_DE.UTF-8');
  assert.equal(localeVariable('LANG=C\n', 'LC_ALL'), null);
  assert.equal(withLang(null, 'C.UTF-8'), '# Written by Airlock (SetLocale).\nLANG=C.UTF-8\n');
  assert.equal(withLang('#  File generated by update-locale\n', 'C.UTF-8'), '#  File generated by update-locale\nLANG=C.UTF-8\n');
  assert.equal(withLang('# h\n#LANG=x\nLANG=fr_FR.UTF-8\nLC_TIME=de_DE.UTF-8\nLANG=es_ES.UTF-8\n', 'C.UTF-8'), '# h\n#LANG=x\nLANG=C.UTF-8\nLC_TIME=de_DE.UTF-8\n');
});

const GEN = '# This file lists locales that you wish to have built.\n\n# C.UTF-8 UTF-8\n# de_DE ISO-8859-1\n# de_DE.UTF-8 UTF-8\n# de_DE@euro ISO-8859-15\n# fr_FR.UTF-8 UTF-8\nen_GB.UTF-8 UTF-8\n';
const SUPPORTED_TEXT = 'C.UTF-8 UTF-8\nde_DE.UTF-8 UTF-8\nde_DE ISO-8859-1\nde_DE@euro ISO-8859-15\nen_GB.UTF-8 UTF-8\nfr_FR.UTF-8 UTF-8\nca_ES.UTF-8@valencia UTF-8\nxx_XX.UTF-8 UTF-8\nes_ES.UTF-8 UTF-8\nbad_BD.UTF-8 UTF-8;id\n';
const DEFS = ['de_DE', 'de_DE@euro', 'en_GB', 'fr_FR', 'ca_ES@valencia', 'es_ES', 'bad_BD'];

function localeHost(tree: Record<string, Node> = {}, compiled = ['C', 'C.utf8', 'POSIX', 'en_US.utf8']) {
  const base: Record<string, Node> = {
    '/etc/default/locale': '#  File generated by update-locale\nLANG=en_US.UTF-8\n',
    '/etc/locale.gen': GEN,
    '/usr/share/i18n/SUPPORTED': SUPPORTED_TEXT,
    ...Object.fromEntries(DEFS.map((d) => [`/usr/share/i18n/locales/${d}`, 'LC_IDENTIFICATION\nEND LC_IDENTIFICATION\n'])),
  };
  const full = { ...base, ...tree };
  for (const [k, v] of Object.entries(tree)) if (v === 'DELETE') delete full[k];
  return new FixtureHost(full, (program, args) => (program === 'locale' && args[0] === '-a' ? ok(compiled.join('\n') + '\n') : { code: 127, stdout: '', stderr: 'not scripted' }));
}

const localedef = (input: string, charset: string, lang: string, normal: string) => ({
  kind: 'command',
  program: 'localedef',
  args: ['-i', input, '-f', charset, '-A', '/usr/share/locale/locale.alias', '--', lang],
  timeoutMs: 300_000,
  undo: { kind: 'command', program: 'localedef', args: ['--delete-from-archive', '--', normal] },
});
const defaultLocale = (content: string) => ({ kind: 'fileWrite', path: '/etc/default/locale', content, mode: 0o644 });

test('SetLocale of a compiled locale only rewrites LANG in /etc/default/locale', async () => {
  const r = await run('SetLocale', { lang: 'C.UTF-8' }, localeHost({ '/etc/default/locale': '#  File generated by update-locale\nLANG=en_US.UTF-8\nLC_TIME=en_US.UTF-8\n' }));
  assert.deepEqual(r.steps, [defaultLocale('#  File generated by update-locale\nLANG=C.UTF-8\nLC_TIME=en_US.UTF-8\n')]);
  assert.deepEqual((r.preview.change as { lang: unknown }).lang, { from: 'en_US.UTF-8', to: 'C.UTF-8' });
  assert.equal('compiles' in (r.preview.change as object), false);
  assert.deepEqual(r.shown, { lang: 'en_US.UTF-8', lc_all: null, compiled: true, supported_charset: 'UTF-8', locale_gen: 'commented' });
  const lcAll = await run('SetLocale', { lang: 'C.UTF-8' }, localeHost({ '/etc/default/locale': 'LANG=en_US.UTF-8\nLC_ALL=en_US.UTF-8\n' }));
  assert.ok(lcAll.preview.warnings!.some((w) => w.includes('LC_ALL=en_US.UTF-8')));
  // Compiled already (locale -a prints the glibc name), whatever locale.gen says.
  const compiled = await run('SetLocale', { lang: 'fr_FR.UTF-8' }, localeHost({}, ['C', 'fr_FR.utf8']));
  assert.equal(compiled.steps.length, 1);
  // No /etc/default/locale yet: one is created.
  const created = await run('SetLocale', { lang: 'C.UTF-8' }, localeHost({ '/etc/default/locale': 'DELETE' }));
  assert.deepEqual(created.steps, [defaultLocale('# Written by Airlock (SetLocale).\nLANG=C.UTF-8\n')]);
});

test('SetLocale of a supported, uncompiled locale: enable it in locale.gen, compile it with localedef, then set LANG', async () => {
  const r = await run('SetLocale', { lang: 'fr_FR.UTF-8' }, localeHost());
  assert.deepEqual(r.steps, [
    { kind: 'filePatch', path: '/etc/locale.gen', search: '# fr_FR.UTF-8 UTF-8', replace: 'fr_FR.UTF-8 UTF-8' },
    localedef('fr_FR', 'UTF-8', 'fr_FR.UTF-8', 'fr_FR.utf8'),
    defaultLocale('#  File generated by update-locale\nLANG=fr_FR.UTF-8\n'),
  ]);
  const change = r.preview.change as { compiles: { locale_gen: string; localedef: string } };
  assert.equal(change.compiles.locale_gen, 'uncomments the line "fr_FR.UTF-8 UTF-8" in /etc/locale.gen');
  assert.match(change.compiles.localedef, /from \/usr\/share\/i18n\/locales\/fr_FR with charset UTF-8/);
  // A locale named without a codeset (its archive name is the same).
  const latin1 = await run('SetLocale', { lang: 'de_DE' }, localeHost());
  assert.deepEqual(latin1.steps[0], { kind: 'filePatch', path: '/etc/locale.gen', search: '# de_DE ISO-8859-1', replace: 'de_DE ISO-8859-1' });
  assert.deepEqual(latin1.steps[1], localedef('de_DE', 'ISO-8859-1', 'de_DE', 'de_DE'));
  const euro = await run('SetLocale', { lang: 'de_DE@euro' }, localeHost());
  assert.deepEqual(euro.steps[1], localedef('de_DE@euro', 'ISO-8859-15', 'de_DE@euro', 'de_DE@euro'));
  // The definition is named without the codeset: ca_ES@valencia.
  const valencia = await run('SetLocale', { lang: 'ca_ES.UTF-8@valencia' }, localeHost());
  assert.deepEqual(valencia.steps[1], localedef('ca_ES@valencia', 'UTF-8', 'ca_ES.UTF-8@valencia', 'ca_ES.utf8@valencia'));
  assert.equal(valencia.steps[0]!.kind, 'fileWrite', 'no commented line: appended');
  assert.equal((valencia.steps[0] as { content: string }).content, `${GEN}ca_ES.UTF-8@valencia UTF-8\n`);
});

test('SetLocale: a line already enabled is not touched again; a duplicated commented line is rewritten whole', async () => {
  const enabled = await run('SetLocale', { lang: 'en_GB.UTF-8' }, localeHost());
  assert.deepEqual(enabled.steps, [localedef('en_GB', 'UTF-8', 'en_GB.UTF-8', 'en_GB.utf8'), defaultLocale('#  File generated by update-locale\nLANG=en_GB.UTF-8\n')]);
  const twice = `${GEN}# fr_FR.UTF-8 UTF-8\n`;
  const dup = await run('SetLocale', { lang: 'fr_FR.UTF-8' }, localeHost({ '/etc/locale.gen': twice }));
  assert.deepEqual(dup.steps[0], { kind: 'fileWrite', path: '/etc/locale.gen', content: twice.replace('# fr_FR.UTF-8 UTF-8', 'fr_FR.UTF-8 UTF-8'), mode: 0o644 });
  const noGen = await run('SetLocale', { lang: 'es_ES.UTF-8' }, localeHost({ '/etc/locale.gen': 'DELETE' }));
  assert.deepEqual(noGen.steps[0], { kind: 'fileWrite', path: '/etc/locale.gen', content: 'es_ES.UTF-8 UTF-8\n', mode: 0o644 });
});

test('SetLocale: the same LANG is no change; refusals: unknown locale, missing definition, a SUPPORTED line with a bad charset', async () => {
  await assertNoChange(run('SetLocale', { lang: 'en_US.UTF-8' }, localeHost()), /already/);
  await refused('SetLocale', { lang: 'zz_ZZ.UTF-8' }, localeHost(), 'unknown_locale');
  await refused('SetLocale', { lang: 'xx_XX.UTF-8' }, localeHost(), 'no_locale_definition');
  await refused('SetLocale', { lang: 'bad_BD.UTF-8' }, localeHost(), 'unknown_locale');
});

test('GetLocale reads /etc/default/locale; ListLocales runs locale -a', async () => {
  assert.deepEqual((await run('GetLocale', {}, localeHost())).steps, [{ kind: 'fileScan', path: '/etc/default/locale' }]);
  await refused('GetLocale', {}, localeHost({ '/etc/default/locale': 'DELETE' }), 'not_found');
  await refused('GetLocale', {}, localeHost({ '/etc/default/locale': { link: '/etc/shadow' } }), 'not_found');
  assert.deepEqual((await run('ListLocales', {}, localeHost())).steps, [{ kind: 'command', program: 'locale', args: ['-a'] }]);
  assert.equal(byName('ListLocales').params.safeParse({ lang: 'C' }).success, false);
});
