/**
 * Locale and NTP actions (family identity), in the booted Debian test bed: the locale is
 * read, a supported but uncompiled one is enabled in /etc/locale.gen, compiled and set,
 * LC_* settings survive a change of LANG, and a compilation that fails rolls
 * /etc/locale.gen back. NTP is switched on and off through systemd-timedated; the
 * container cannot run systemd-timesyncd as shipped (ConditionVirtualization=!container,
 * no CAP_SYS_TIME), so a setup drop-in lifts those conditions first.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const DEFAULT_LOCALE = '/etc/default/locale';
const LOCALE_GEN = '/etc/locale.gen';
const TIMEDATECTL = '/usr/bin/timedatectl';
const SYSTEMCTL = '/usr/bin/systemctl';
const TIMESYNCD = 'systemd-timesyncd.service';

async function run(box: SandboxView, program: string, ...args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const compiled = async (box: SandboxView) => (await run(box, '/usr/bin/locale', '-a')).split('\n').filter(Boolean);
const genLines = async (box: SandboxView) => (await box.readFile(LOCALE_GEN))!.split('\n');
const ntp = async (box: SandboxView) => (await run(box, TIMEDATECTL, 'show', '-p', 'NTP', '--value')).trim();
/** systemctl is-active/is-enabled answer with a non-zero status for "inactive"/"disabled": only the word matters. */
const unitWord = async (box: SandboxView, verb: string) => (await box.run(SYSTEMCTL, [verb, '--', TIMESYNCD])).stdout.trim();

export const scenarios: Scenario[] = [
  {
    action: 'GetLocale',
    params: {},
    check: async (box, r) => assert.equal(r.output.join('\n') + '\n', await box.readFile(DEFAULT_LOCALE)),
  },
  {
    action: 'ListLocales',
    params: {},
    check: async (box, r) => {
      assert.ok(r.output.join('\n').split('\n').includes('C.utf8'));
      assert.deepEqual(r.output.join('\n').split('\n').filter(Boolean), await compiled(box));
    },
  },
  {
    title: 'a supported locale that is not compiled yet',
    action: 'SetLocale',
    params: { lang: 'fr_FR.UTF-8' },
    setup: async (box) => {
      assert.ok(!(await compiled(box)).includes('fr_FR.utf8'), 'not compiled before');
      assert.ok((await genLines(box)).includes('# fr_FR.UTF-8 UTF-8'), 'commented out in locale.gen before');
    },
    check: async (box) => {
      assert.ok((await compiled(box)).includes('fr_FR.utf8'), 'compiled');
      const gen = await genLines(box);
      assert.ok(gen.includes('fr_FR.UTF-8 UTF-8') && !gen.includes('# fr_FR.UTF-8 UTF-8'), 'enabled in locale.gen');
      assert.match((await box.readFile(DEFAULT_LOCALE))!, /^LANG=fr_FR\.UTF-8$/m);
      // The locale really works: a program run with it gets French month names.
      const r = await box.run('/usr/bin/env', ['LC_ALL=fr_FR.UTF-8', '/usr/bin/date', '-d', '2024-02-01', '+%B']);
      assert.equal(r.stdout.trim(), 'février');
    },
  },
  {
    title: 'a built-in locale: only LANG changes, LC_* settings stay',
    action: 'SetLocale',
    params: { lang: 'C.UTF-8' },
    setup: async (box) => {
      assert.ok(box.writeFile);
      await box.writeFile(DEFAULT_LOCALE, `${(await box.readFile(DEFAULT_LOCALE))!}LC_TIME=fr_FR.UTF-8\n`);
    },
    check: async (box) => {
      const text = (await box.readFile(DEFAULT_LOCALE))!;
      assert.match(text, /^LANG=C\.UTF-8$/m);
      assert.match(text, /^LC_TIME=fr_FR\.UTF-8$/m, 'LC_TIME kept');
      assert.equal(text.match(/^LANG=/gm)?.length, 1);
    },
  },
  {
    title: 'compilation fails (its charmap removed): locale.gen is restored',
    action: 'SetLocale',
    params: { lang: 'de_DE@euro' },
    expect: 'RolledBack',
    setup: async (box) => {
      assert.ok((await genLines(box)).includes('# de_DE@euro ISO-8859-15'));
      await run(box, '/usr/bin/rm', '-f', '--', '/usr/share/i18n/charmaps/ISO-8859-15.gz');
    },
    check: async (box) => {
      const gen = await genLines(box);
      assert.ok(gen.includes('# de_DE@euro ISO-8859-15') && !gen.includes('de_DE@euro ISO-8859-15'), 'the line is commented out again');
      assert.deepEqual((await compiled(box)).filter((l) => l.startsWith('de_DE')), [], 'nothing compiled, not even an ASCII stand-in');
      assert.match((await box.readFile(DEFAULT_LOCALE))!, /^LANG=C\.UTF-8$/m, 'LANG unchanged');
    },
  },
  {
    title: 'timesyncd cannot run in the container',
    action: 'NtpStatus',
    params: {},
    check: async (_box, r) => {
      const lines = r.output.join('\n').split('\n');
      assert.ok(lines.includes('CanNTP=yes') && lines.includes('NTP=no'), JSON.stringify(lines));
      assert.ok(!lines.some((l) => l.includes('Server:')), 'no timesync-status while timesyncd does not run');
    },
  },
  {
    title: 'on',
    action: 'SetNtp',
    params: { enabled: true },
    setup: async (box) => {
      // Test-bed only: let timesyncd run inside the container (no network, so it never syncs).
      await run(box, '/usr/bin/mkdir', '-p', `/etc/systemd/system/${TIMESYNCD}.d`);
      assert.ok(box.writeFile);
      await box.writeFile(`/etc/systemd/system/${TIMESYNCD}.d/testbed.conf`, '[Unit]\nConditionVirtualization=\nConditionCapability=\n');
      await run(box, SYSTEMCTL, 'daemon-reload');
      assert.equal(await ntp(box), 'no');
    },
    // timedated returns once the start job is queued; timesyncd is "activating" until it reports ready.
    settle: async (box) => {
      for (let i = 0; i < 50 && ((await ntp(box)) !== 'yes' || (await unitWord(box, 'is-active')) === 'activating'); i++) await new Promise((r) => setTimeout(r, 200));
    },
    check: async (box) => {
      assert.equal(await unitWord(box, 'is-active'), 'active');
      assert.equal(await ntp(box), 'yes');
      assert.equal(await unitWord(box, 'is-enabled'), 'enabled');
    },
  },
  {
    title: 'timesyncd running',
    action: 'NtpStatus',
    params: {},
    check: async (_box, r) => {
      const lines = r.output.join('\n').split('\n');
      assert.ok(lines.includes('NTP=yes'), JSON.stringify(lines));
      assert.ok(lines.some((l) => /^\s*Server: /.test(l)), 'timesync-status output');
    },
  },
  {
    title: 'off',
    action: 'SetNtp',
    params: { enabled: false },
    // As with "on", timedated answers once the stop job is queued: wait for it to finish.
    settle: async (box) => {
      for (let i = 0; i < 50 && ((await ntp(box)) !== 'no' || (await unitWord(box, 'is-active')) === 'deactivating'); i++) await new Promise((r) => setTimeout(r, 200));
    },
    check: async (box) => {
      assert.equal(await ntp(box), 'no');
      assert.equal(await unitWord(box, 'is-active'), 'inactive');
      assert.equal(await unitWord(box, 'is-enabled'), 'disabled');
    },
  },
];
