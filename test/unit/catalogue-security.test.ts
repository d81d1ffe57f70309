import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as security from '../../src/catalogue/families/security/index.js';
import { appArmorProfile, profileMode } from '../../src/catalogue/families/security/apparmor.js';
import { auditKey, auditPermissions, auditWatchName, canonicalPermissions, parseWatchFile, watchPath } from '../../src/catalogue/families/security/audit.js';
import { certificatePath } from '../../src/catalogue/families/security/certificates.js';
import { parseLoginDefs } from '../../src/catalogue/families/security/login-defs.js';
import { pamPwqualityArgs, parsePwquality, upstreamVersion } from '../../src/catalogue/families/security/password-quality.js';
import { parseGetsebool, selinuxBoolean } from '../../src/catalogue/families/security/selinux.js';
import { linePatch } from '../../src/catalogue/lib/line-patch.js';
import { reversibleWhenDone, type Step } from '../../src/catalogue/mechanism.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { actionRunner, assertNoChange, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

const actions: AnyAction[] = [...security.actions];
const byName = (n: string) => actions.find((a) => a.name === n)!;

const ok = (stdout = ''): CommandOutput => ({ code: 0, stdout, stderr: '' });
const PWQ_MAIN = '/etc/security/pwquality.conf';
const DROP_IN = '/etc/security/pwquality.conf.d/60-airlock.conf';
const PAM = '/etc/pam.d/common-password';
const DEBIAN_PWQ = '# Configuration for systemwide password quality limits\n#\n# minlen = 8\n#\n# dictcheck = 1\n#\n# enforce_for_root\n';
const DEBIAN_PAM = 'password\trequisite\t\t\tpam_pwquality.so retry=3\npassword\t[success=1 default=ignore]\tpam_unix.so obscure use_authtok try_first_pass yescrypt\n';
const LOGIN_DEFS = '#\n#\tPASS_MAX_DAYS\tMaximum number of days a password may be used.\n#\nPASS_MAX_DAYS\t99999\nPASS_MIN_DAYS\t0\nPASS_WARN_AGE\t7\n#PASS_CHANGE_TRIES\n';
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
const PROFILE = 'abi <abi/3.0>,\ninclude <tunables/global>\n\n# Do not attach\nprofile lsb_release {\n  include <abstractions/base>\n  /usr/bin/lsb_release r,\n}\n';

interface Machine {
  /** Installed packages and their versions (dpkg-query). */
  packages?: Record<string, string>;
  audit?: 'loaded' | 'locked' | 'container';
  /** auditctl -l lines. */
  rules?: string[];
  apparmor?: boolean;
  utils?: boolean;
}

/** The direct entries of `dir` in a fixture tree, as `ls -1 -A` prints them; null when there is no such directory. */
function entries(tree: Record<string, Node>, dir: string): string[] | null {
  const names = new Set(
    Object.keys(tree)
      .filter((p) => p.startsWith(`${dir}/`))
      .map((p) => p.slice(dir.length + 1).split('/')[0]!),
  );
  return names.size || tree[dir] ? [...names].sort() : null;
}

function hostWith(tree: Record<string, Node>, m: Machine = {}): FixtureHost {
  const packages = m.packages ?? { 'libpam-pwquality': '1.4.5-1+b1', libpwquality1: '1.4.5-1+b1' };
  return new FixtureHost(tree, (program: ProgramName, args: string[]) => {
    switch (program) {
      case 'ls': {
        const names = entries(tree, args.at(-1)!);
        return names ? ok(names.map((n) => n.replace(/ /g, '\\ ')).join('\n') + '\n') : { code: 2, stdout: '', stderr: 'No such file or directory' };
      }
      case 'dpkg-query':
        return { code: 1, stdout: Object.entries(packages).map(([n, v]) => `${n}\tamd64\t${v}\tinstall\tinstalled\tno\toptional\n`).join(''), stderr: '' };
      case 'auditctl':
        if (m.audit === undefined || m.audit === 'container') return { code: 255, stdout: '', stderr: 'Error sending status request (Operation not permitted)\n' };
        if (args[0] === '-s') return ok(`enabled ${m.audit === 'locked' ? 2 : 1}\nfailure 1\npid 42\nbacklog_limit 8192\n`);
        return ok((m.rules?.length ? m.rules : ['No rules']).join('\n') + '\n');
      case 'aa-enabled':
        return m.apparmor ? ok('Yes\n') : { code: 1, stdout: 'No - not available on this system.\n', stderr: '' };
      case 'aa-complain':
      case 'aa-enforce':
        if (!m.utils) throw new AirlockError('unsupported_platform', 'program_missing', `this host has no trusted ${program} binary`);
        return ok('usage: ...\n');
      default:
        return { code: 127, stdout: '', stderr: 'not scripted' };
    }
  });
}

const { run, refused } = actionRunner(actions);

const cmd = (program: string, args: string[], extra: Record<string, unknown> = {}) => ({ kind: 'command', program, args, ...extra });
/** A rules file step between the check that carries the rebuild as its undo and the rebuild (audit.ts: rebuiltAround). */
const rebuilt = (file: Record<string, unknown>) => [cmd('augenrules', ['--check'], { undo: cmd('augenrules', []) }), file, cmd('augenrules', [], { noUndo: 'undone_earlier' })];
/** The live state an action's rollback declares it reads, for these parameters and this state. */
const declaredState = (a: AnyAction, p: unknown, cur: unknown) => (a.rollback && a.rollback.class !== 'none' ? a.rollback.state?.(p, cur) : undefined);

// ---------------------------------------------------------------- declarations and validators

test('security actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, string | undefined]> = {
    ShowPasswordPolicy: ['low', true, undefined],
    SetPasswordPolicy: ['high', false, 'exact'],
    PasswordAgingDefaults: ['low', true, undefined],
    SetPasswordAgingDefaults: ['high', false, 'exact'],
    AuditStatus: ['low', true, undefined],
    ListAuditRules: ['low', true, undefined],
    AddAuditWatch: ['high', false, 'exact'],
    RemoveAuditWatch: ['high', false, 'exact'],
    AppArmorStatus: ['low', true, undefined],
    SetAppArmorMode: ['high', false, 'exact'],
    CertificateExpiry: ['low', true, undefined],
    ListCertificates: ['low', true, undefined],
    SelinuxStatus: ['low', true, undefined],
    SetSelinuxMode: ['high', false, 'exact'],
    ListSelinuxBooleans: ['low', true, undefined],
    SetSelinuxBoolean: ['high', false, 'exact'],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'security');
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class], expected[a.name], a.name);
    assert.equal(a.reboot, false);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
    assert.equal(a.params.safeParse({ ...a.example, extra: 1 }).success, false, `${a.name} extra key`);
  }
});

test('every free-text parameter refuses injection strings', () => {
  for (const schema of [auditWatchName, auditKey, auditPermissions, watchPath, appArmorProfile, certificatePath, selinuxBoolean]) {
    for (const bad of INJECTIONS) assert.equal(schema.safeParse(bad).success, false, JSON.stringify(bad).slice(0, 40));
  }
  for (const bad of INJECTIONS) {
    assert.equal(byName('AddAuditWatch').params.safeParse({ name: 'passwd', path: `/etc/${bad}`, permissions: 'wa', key: 'k' }).success, false, bad.slice(0, 40));
    assert.equal(byName('SetPasswordPolicy').params.safeParse({ option: bad, value: 12 }).success, false);
    assert.equal(byName('SetPasswordPolicy').params.safeParse({ option: 'minlen', value: bad }).success, false);
    assert.equal(byName('SetPasswordAgingDefaults').params.safeParse({ pass_max_days: bad }).success, false);
    assert.equal(byName('ListCertificates').params.safeParse({ dir: bad }).success, false);
    assert.equal(byName('CertificateExpiry').params.safeParse({ path: `/etc/ssl/certs/${bad}` }).success, false, bad.slice(0, 40));
  }
});

test('password policy values are range-checked per option', () => {
  const p = byName('SetPasswordPolicy').params;
  const good = [
    { option: 'minlen', value: 8 },
    { option: 'minlen', value: 128 },
    { option: 'dcredit', value: -10 },
    { option: 'ocredit', value: 10 },
    { option: 'minclass', value: 4 },
    { option: 'maxrepeat', value: 0 },
    { option: 'dictcheck', value: 1 },
    { option: 'enforce_for_root', value: false },
  ];
  const bad = [
    { option: 'minlen', value: 7 },
    { option: 'minlen', value: 129 },
    { option: 'minlen', value: 12.5 },
    { option: 'minlen', value: '12' },
    { option: 'ucredit', value: -11 },
    { option: 'minclass', value: 5 },
    { option: 'maxrepeat', value: 11 },
    { option: 'dictcheck', value: 2 },
    { option: 'enforce_for_root', value: 1 },
    { option: 'difok', value: 3 },
    { option: 'badwords', value: 'x' },
    { option: 'minlen' },
    { value: 12 },
  ];
  for (const v of good) assert.ok(p.safeParse(v).success, JSON.stringify(v));
  for (const v of bad) assert.equal(p.safeParse(v).success, false, JSON.stringify(v));
});

test('ageing values are range-checked and at least one is needed', () => {
  const p = byName('SetPasswordAgingDefaults').params;
  for (const v of [{ pass_max_days: 1 }, { pass_max_days: 99999 }, { pass_min_days: 0 }, { pass_warn_age: 365 }, { pass_max_days: 90, pass_min_days: 1, pass_warn_age: 7 }]) assert.ok(p.safeParse(v).success, JSON.stringify(v));
  for (const v of [{}, { pass_max_days: 0 }, { pass_max_days: 100000 }, { pass_min_days: -1 }, { pass_warn_age: 366 }, { pass_warn_age: 1.5 }, { PASS_MAX_DAYS: 90 }]) assert.equal(p.safeParse(v).success, false, JSON.stringify(v));
});

test('audit watch parameters: names, keys, permission letters, watchable paths', () => {
  for (const v of ['passwd', 'a', 'ssh-keys-1']) assert.ok(auditWatchName.safeParse(v).success, v);
  for (const v of ['Passwd', '-x', 'a_b', 'a.b', 'x'.repeat(41)]) assert.equal(auditWatchName.safeParse(v).success, false, v);
  for (const v of ['identity', 'SSH_keys-1']) assert.ok(auditKey.safeParse(v).success, v);
  for (const v of ['-k', 'a b', 'a,b', 'x'.repeat(65)]) assert.equal(auditKey.safeParse(v).success, false, v);
  for (const v of ['r', 'wa', 'rwxa', 'aw']) assert.ok(auditPermissions.safeParse(v).success, v);
  for (const v of ['ww', 'rwxaa', 'q', 'R', '']) assert.equal(auditPermissions.safeParse(v).success, false, v);
  assert.equal(canonicalPermissions('axwr'), 'rwxa');
  for (const v of ['/etc/passwd', '/etc/sudoers.d', '/var/log/auth.log', '/usr/bin/passwd']) assert.ok(watchPath.safeParse(v).success, v);
  for (const v of ['/', '/proc', '/proc/1/mem', '/sys/kernel', '/dev/sda', '/run/x', 'etc/passwd', '/etc/../etc/passwd', '/etc/pass wd', '/etc/a\tb', `/${'x'.repeat(1100)}`]) {
    assert.equal(watchPath.safeParse(v).success, false, v.slice(0, 30));
  }
});

test('certificate paths: an allowlist, and no file named like a key', () => {
  for (const v of ['/etc/ssl/certs/ISRG_Root_X1.pem', '/etc/ssl/certs/002c0b4f.0', '/etc/ssl/certs/NetLock_Arany_=Class_Gold=_Főtanúsítvány.pem', '/etc/ssl/certs/OISTE_WISeKey_Global_Root_GB_CA.pem', '/usr/local/share/ca-certificates/corp/root.crt', '/etc/letsencrypt/live/example.org/fullchain.pem']) {
    assert.ok(certificatePath.safeParse(v).success, v);
  }
  for (const v of [
    '/etc/letsencrypt/live/example.org/privkey.pem',
    '/etc/ssl/certs/server.key',
    '/etc/ssl/certs/key.pem',
    '/etc/ssl/certs/tls-key.pem',
    '/etc/ssl/private/ssl-cert-snakeoil.key',
    '/etc/ssl/certs/a/b.pem',
    '/etc/letsencrypt/archive/example.org/cert1.pem',
    '/etc/shadow',
    '/etc/ssl/certs/../private/x.pem',
  ]) {
    assert.equal(certificatePath.safeParse(v).success, false, v);
  }
  for (const v of ['profile', 'usr.sbin.cupsd', 'lsb_release']) assert.ok(appArmorProfile.safeParse(v).success, v);
  for (const v of ['../shadow', 'disable/x', '.hidden', '-x']) assert.equal(appArmorProfile.safeParse(v).success, false, v);
});

// ---------------------------------------------------------------- parsers

test('linePatch targets the one real line, never a commented copy, and can remove it', () => {
  const text = '# minlen = 8\nminlen = 8\nx = 1\n';
  assert.deepEqual(linePatch('/f', text, 1, 'minlen = 12'), { kind: 'filePatch', path: '/f', search: '\nminlen = 8\n', replace: '\nminlen = 12\n' });
  assert.deepEqual(linePatch('/f', text, 1, null), { kind: 'filePatch', path: '/f', search: '\nminlen = 8\n', replace: '\n' });
  assert.deepEqual(linePatch('/f', 'a\nb', 1, null), { kind: 'filePatch', path: '/f', search: '\nb', replace: '' });
  assert.deepEqual(linePatch('/f', 'a\nb\n', 0, 'c'), { kind: 'filePatch', path: '/f', search: 'a\n', replace: 'c\n' });
  // The same line twice: the line before it makes the search text unique.
  assert.deepEqual(linePatch('/f', 'x\na\ny\na\n', 3, 'b'), { kind: 'filePatch', path: '/f', search: '\ny\na\n', replace: '\ny\nb\n' });
  assert.equal(linePatch('/f', 'a\na\n', 0, 'b'), null);
  for (const [t, i] of [[text, 1], ['x\na\ny\na\n', 3]] as const) {
    const p = linePatch('/f', t, i, 'NEW')!;
    const at = t.indexOf(p.search);
    assert.ok(at >= 0 && t.indexOf(p.search, at + 1) < 0, 'occurs exactly once, as the executor requires');
  }
});

test('pwquality files are parsed as libpwquality does; PAM arguments are found', () => {
  assert.deepEqual(parsePwquality('# minlen = 8\nminlen=9\n  dcredit   -1 # trailing\nenforce_for_root\nMaxRepeat = 3\n\n'), [
    { name: 'minlen', value: '9', line: 1 },
    { name: 'dcredit', value: '-1', line: 2 },
    { name: 'enforce_for_root', value: '', line: 3 },
    { name: 'maxrepeat', value: '3', line: 4 },
  ]);
  assert.deepEqual(pamPwqualityArgs(DEBIAN_PAM), { line: 'password\trequisite\t\t\tpam_pwquality.so retry=3', args: { retry: '3' } });
  assert.deepEqual(pamPwqualityArgs('# password requisite pam_pwquality.so minlen=4\npassword requisite /lib/security/pam_pwquality.so minlen=10 enforce_for_root\n')?.args, { minlen: '10', enforce_for_root: '' });
  assert.equal(pamPwqualityArgs('password required pam_unix.so\n'), null);
  assert.deepEqual(upstreamVersion('1.4.5-1+b1'), [1, 4, 5]);
  assert.deepEqual(upstreamVersion('1:1.2.3-1ubuntu1.1'), [1, 2, 3]);
});

test('login.defs, AppArmor profiles and Airlock watch files are parsed', () => {
  const defs = parseLoginDefs(LOGIN_DEFS);
  assert.deepEqual(defs.get('PASS_MAX_DAYS'), [{ value: '99999', line: 3 }]);
  assert.equal(defs.get('PASS_CHANGE_TRIES'), undefined);
  assert.equal(profileMode(PROFILE), 'enforce');
  assert.equal(profileMode(PROFILE.replace('profile lsb_release {', 'profile lsb_release flags=(complain) {')), 'complain');
  assert.equal(profileMode('/usr/sbin/ntpd flags=(attach_disconnected, complain) {\n  ^hat {\n  }\n}\n'), 'complain');
  assert.equal(profileMode('profile a flags=(complain) {\n}\nprofile b {\n}\n'), 'mixed');
  assert.equal(profileMode('  # profile x {\nabi <abi/3.0>,\n@{HOME}=/home/\n'), null, 'a tunable declares no profile');
  assert.equal(profileMode('profile a {\n  profile child flags=(complain) {\n  }\n}\n'), 'enforce', 'child profiles do not count');
  assert.deepEqual(parseWatchFile('## Written by Airlock\n-w /etc/passwd -p wa -k identity\n'), { path: '/etc/passwd', perms: 'wa', key: 'identity' });
  assert.equal(parseWatchFile('-w /etc/passwd -p wa -k identity\n-w /etc/group -p wa -k identity\n'), null);
  assert.equal(parseWatchFile('-a always,exit -F arch=b64 -S execve\n'), null);
  assert.equal(parseWatchFile('-w /etc/../etc/passwd -p wa -k identity\n'), null, 'an edited path is not trusted');
  assert.equal(parseWatchFile('-w /etc/passwd -p wwa -k identity\n'), null);
  assert.equal(parseWatchFile('-w /etc/passwd -p wa -k $(id)\n'), null);
});

// ---------------------------------------------------------------- password quality

const debian = (extra: Record<string, Node> = {}): Record<string, Node> => ({ [PWQ_MAIN]: DEBIAN_PWQ, [PAM]: DEBIAN_PAM, ...extra });

test('ShowPasswordPolicy reads the drop-ins in byte order, then pwquality.conf, then the PAM file', async () => {
  const host = hostWith(
    debian({
      '/etc/security/pwquality.conf.d/70-site.conf': 'minlen = 14\n',
      [DROP_IN]: 'minlen = 12\ndcredit = -1\n',
      '/etc/security/pwquality.conf.d/README': 'not read',
      '/etc/security/pwquality.conf.d/80-link.conf': { link: '/tmp/x.conf' },
      '/etc/security/pwquality.conf.d/odd name.conf': 'x',
    }),
  );
  const { steps, preview, shown, cur } = await run('ShowPasswordPolicy', {}, host);
  assert.deepEqual(steps, [
    { kind: 'fileScan', path: DROP_IN },
    { kind: 'fileScan', path: '/etc/security/pwquality.conf.d/70-site.conf' },
    { kind: 'fileScan', path: PWQ_MAIN },
    { kind: 'fileScan', path: PAM },
  ]);
  assert.deepEqual(cur.effective.minlen, { value: 14, from: '/etc/security/pwquality.conf.d/70-site.conf' });
  assert.deepEqual(cur.effective.dcredit, { value: -1, from: DROP_IN });
  assert.deepEqual(cur.effective.dictcheck, { value: 1, from: 'built-in default' });
  assert.deepEqual(cur.unreadable, ['80-link.conf', 'odd\\ name.conf']);
  assert.match(preview.summary, /in force: minlen=14 dcredit=-1 /);
  assert.match(preview.warnings!.join(' '), /80-link\.conf/);
  assert.doesNotMatch(JSON.stringify(shown), /minlen = 12/, 'the preview shows values, not whole files');
  assert.deepEqual(host.calls.find(([p]) => p === 'ls')![1], ['-1', '-A', '--quoting-style=escape', '--', '/etc/security/pwquality.conf.d']);
});

test('ShowPasswordPolicy refuses where pwquality is not installed at all', async () => {
  await refused('ShowPasswordPolicy', {}, hostWith({ [PAM]: 'password required pam_unix.so\n' }, { packages: {} }), 'pwquality_missing', 'unsupported_platform');
});

test('SetPasswordPolicy writes the Airlock drop-in (created with its directory) and keeps its other lines', async () => {
  const fresh = await run('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian()));
  assert.equal(fresh.steps.length, 1);
  const [w] = fresh.steps as Array<{ kind: string; path: string; content: string; mode: number; owner: unknown; parent: unknown }>;
  assert.deepEqual({ ...w!, content: undefined }, { kind: 'fileWrite', path: DROP_IN, content: undefined, mode: 0o644, owner: { uid: 0, gid: 0 }, parent: { mode: 0o755, owner: { uid: 0, gid: 0 } } });
  assert.deepEqual(w!.content.split('\n').filter((l) => l && !l.startsWith('#')), ['minlen = 12']);
  assert.deepEqual(fresh.preview.change, { file: DROP_IN, option: 'minlen', from: 8, to: 12, line: 'minlen = 12', replaces_line: null, creates_file: true });

  const again = await run('SetPasswordPolicy', { option: 'minlen', value: 10 }, hostWith(debian({ [DROP_IN]: '# mine\nminlen = 12\ndictcheck = 1\n' })));
  assert.equal((again.steps[0] as { content: string }).content, '# mine\ndictcheck = 1\nminlen = 10\n');
  assert.match(again.preview.warnings!.join(' '), /relaxes the policy/);

  const flag = await run('SetPasswordPolicy', { option: 'enforce_for_root', value: true }, hostWith(debian({ [DROP_IN]: 'minlen = 12\n' })));
  assert.equal((flag.steps[0] as { content: string }).content, 'minlen = 12\nenforce_for_root\n');
  const off = await run('SetPasswordPolicy', { option: 'enforce_for_root', value: false }, hostWith(debian({ [DROP_IN]: 'enforce_for_root\nminlen = 12\n' })));
  assert.equal((off.steps[0] as { content: string }).content, 'minlen = 12\n');
});

test('SetPasswordPolicy changes the exact line when pwquality.conf itself sets the option (it is read last)', async () => {
  const main = DEBIAN_PWQ + 'minlen = 10\nenforce_for_root\n';
  const r = await run('SetPasswordPolicy', { option: 'minlen', value: 16 }, hostWith(debian({ [PWQ_MAIN]: main, [DROP_IN]: 'minlen = 14\n' })));
  assert.deepEqual(r.steps, [{ kind: 'filePatch', path: PWQ_MAIN, search: '\nminlen = 10\n', replace: '\nminlen = 16\n' }]);
  assert.equal((r.preview.change as { replaces_line: string }).replaces_line, 'minlen = 10');
  const off = await run('SetPasswordPolicy', { option: 'enforce_for_root', value: false }, hostWith(debian({ [PWQ_MAIN]: main })));
  assert.deepEqual(off.steps, [{ kind: 'filePatch', path: PWQ_MAIN, search: '\nenforce_for_root\n', replace: '\n' }]);
});

test('SetPasswordPolicy refusals', async () => {
  await refused('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian(), { packages: { libpwquality1: '1.4.5-1' } }), 'pwquality_missing', 'unsupported_platform');
  await refused('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian({ [PAM]: 'password requisite pam_pwquality.so retry=3 minlen=10\n' })), 'overridden_by_pam', 'conflict');
  await assertNoChange(run('SetPasswordPolicy', { option: 'minlen', value: 8 }, hostWith(debian())), /already/);
  await assertNoChange(run('SetPasswordPolicy', { option: 'enforce_for_root', value: false }, hostWith(debian())), /already/);
  await refused('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian({ '/etc/security/pwquality.conf.d/70-site.conf': 'minlen = 9\n' })), 'overridden_by_drop_in', 'conflict');
  // One sorted before ours is overridden by ours: fine.
  assert.equal((await run('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian({ '/etc/security/pwquality.conf.d/50-site.conf': 'minlen = 9\n' })))).steps.length, 1);
  await refused('SetPasswordPolicy', { option: 'enforce_for_root', value: false }, hostWith(debian({ '/etc/security/pwquality.conf.d/10-site.conf': 'enforce_for_root\n' })), 'set_elsewhere', 'conflict');
  await refused('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian({ [PWQ_MAIN]: 'minlen = 9\nminlen = 10\n' })), 'duplicate_setting', 'conflict');
  await refused('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian({ [DROP_IN]: { link: '/tmp/x.conf' } })), 'drop_in_not_regular', 'conflict');
  await refused('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian(), { packages: { 'libpam-pwquality': '1.2.3-1', libpwquality1: '1.2.3-1' } }), 'pwquality_too_old', 'unsupported_platform');
  // An old library still gets its pwquality.conf line changed.
  const old = await run('SetPasswordPolicy', { option: 'minlen', value: 12 }, hostWith(debian({ [PWQ_MAIN]: 'minlen = 9\n' }), { packages: { 'libpam-pwquality': '1.2.3-1', libpwquality1: '1.2.3-1' } }));
  assert.deepEqual(old.steps, [{ kind: 'filePatch', path: PWQ_MAIN, search: 'minlen = 9\n', replace: 'minlen = 12\n' }]);
});

// ---------------------------------------------------------------- password ageing

test('PasswordAgingDefaults scans login.defs; SetPasswordAgingDefaults patches exactly the lines that change', async () => {
  const host = hostWith({ '/etc/login.defs': LOGIN_DEFS });
  const read = await run('PasswordAgingDefaults', {}, host);
  assert.deepEqual(read.steps, [{ kind: 'fileScan', path: '/etc/login.defs' }]);
  assert.match(read.preview.summary, /PASS_MAX_DAYS 99999, PASS_MIN_DAYS 0, PASS_WARN_AGE 7/);
  const set = await run('SetPasswordAgingDefaults', { pass_max_days: 90, pass_min_days: 0, pass_warn_age: 14 }, host);
  assert.deepEqual(set.steps, [
    { kind: 'filePatch', path: '/etc/login.defs', search: '\nPASS_MAX_DAYS\t99999\n', replace: '\nPASS_MAX_DAYS\t90\n' },
    { kind: 'filePatch', path: '/etc/login.defs', search: '\nPASS_WARN_AGE\t7\n', replace: '\nPASS_WARN_AGE\t14\n' },
  ]);
  assert.deepEqual(set.preview.change, { file: '/etc/login.defs', set: [{ key: 'PASS_MAX_DAYS', from: '99999', to: 90 }, { key: 'PASS_WARN_AGE', from: '7', to: 14 }] });
  // Adjacent lines: the second patch is built on the text the first one leaves.
  const both = await run('SetPasswordAgingDefaults', { pass_max_days: 30, pass_min_days: 1 }, hostWith({ '/etc/login.defs': 'PASS_MAX_DAYS 99999\nPASS_MIN_DAYS 0\nPASS_MAX_DAYS_X 1\n' }));
  let text = 'PASS_MAX_DAYS 99999\nPASS_MIN_DAYS 0\nPASS_MAX_DAYS_X 1\n';
  for (const s of both.steps as Array<{ search: string; replace: string }>) {
    const at = text.indexOf(s.search);
    assert.ok(at >= 0 && text.indexOf(s.search, at + 1) < 0);
    text = text.replace(s.search, s.replace);
  }
  assert.equal(text, 'PASS_MAX_DAYS 30\nPASS_MIN_DAYS 1\nPASS_MAX_DAYS_X 1\n');
});

test('SetPasswordAgingDefaults refusals', async () => {
  const host = hostWith({ '/etc/login.defs': LOGIN_DEFS });
  await assertNoChange(run('SetPasswordAgingDefaults', { pass_max_days: 99999 }, host), /already/);
  await refused('SetPasswordAgingDefaults', { pass_min_days: 100, pass_max_days: 30 }, host, 'min_above_max', 'validation');
  await refused('SetPasswordAgingDefaults', { pass_max_days: 30 }, hostWith({ '/etc/login.defs': '#PASS_MAX_DAYS 99999\n' }), 'key_missing', 'conflict');
  await refused('SetPasswordAgingDefaults', { pass_max_days: 30 }, hostWith({ '/etc/login.defs': 'PASS_MAX_DAYS 99999\nPASS_MAX_DAYS 60\n' }), 'duplicate_key', 'conflict');
  await refused('SetPasswordAgingDefaults', { pass_max_days: 30 }, hostWith({}), 'no_login_defs', 'unsupported_platform');
  await refused('PasswordAgingDefaults', {}, hostWith({}), 'no_login_defs', 'unsupported_platform');
});

// ---------------------------------------------------------------- audit

const RULES = '/etc/audit/rules.d';
const auditTree = (extra: Record<string, Node> = {}): Record<string, Node> => ({
  [`${RULES}/audit.rules`]: '-D\n-b 8192\n',
  '/etc/audit/auditd.conf': 'log_file = /var/log/audit/audit.log\n',
  '/etc/passwd': 'root:x:0:0::/root:/bin/bash\n',
  '/etc/sudoers.d/README': 'x',
  '/etc/mtab': { link: '../proc/self/mounts' },
  ...extra,
});

test('AuditStatus and ListAuditRules read the kernel where they can and say when they cannot', async () => {
  const show = cmd('systemctl', ['show', '--no-pager', '-p', 'LoadState,ActiveState,SubState,UnitFileState,MainPID', '--', 'auditd.service']);
  const loaded = await run('AuditStatus', {}, hostWith(auditTree(), { audit: 'loaded' }));
  assert.deepEqual(loaded.steps, [cmd('auditctl', ['-s']), show, { kind: 'fileScan', path: '/etc/audit/auditd.conf' }]);
  const container = await run('AuditStatus', {}, hostWith(auditTree(), { audit: 'container' }));
  assert.deepEqual(container.steps, [show, { kind: 'fileScan', path: '/etc/audit/auditd.conf' }]);
  assert.match(container.preview.summary, /unavailable here: auditctl -s: Error sending status request \(Operation not permitted\)$/);
  assert.match(container.preview.warnings!.join(' '), /CAP_AUDIT_CONTROL/);

  const files = { [`${RULES}/60-airlock-passwd.rules`]: '-w /etc/passwd -p wa -k identity\n', [`${RULES}/odd name.rules`]: 'x', [`${RULES}/notes.txt`]: 'x' };
  const list = await run('ListAuditRules', {}, hostWith(auditTree(files), { audit: 'loaded', rules: ['-w /etc/passwd -p wa -k identity'] }));
  assert.deepEqual(list.steps, [{ kind: 'fileScan', path: `${RULES}/60-airlock-passwd.rules` }, { kind: 'fileScan', path: `${RULES}/audit.rules` }, cmd('auditctl', ['-l'])]);
  assert.deepEqual((list.shown as { skipped: string[] }).skipped, ['odd\\ name.rules']);
  const blind = await run('ListAuditRules', {}, hostWith(auditTree(), { audit: 'container' }));
  assert.deepEqual(blind.steps, [{ kind: 'fileScan', path: `${RULES}/audit.rules` }]);
  await refused('ListAuditRules', {}, hostWith({}), 'auditd_missing', 'unsupported_platform');
});

test('AddAuditWatch loads the watch first where the kernel allows, then writes the rules file and rebuilds audit.rules', async () => {
  const p = { name: 'passwd', path: '/etc/passwd', permissions: 'aw', key: 'identity' };
  const file = { kind: 'fileWrite', path: `${RULES}/60-airlock-passwd.rules`, content: '## Written by Airlock (AddAuditWatch passwd)\n-w /etc/passwd -p wa -k identity\n', mode: 0o640, owner: { uid: 0, gid: 0 } };
  const loaded = await run('AddAuditWatch', p, hostWith(auditTree(), { audit: 'loaded' }));
  assert.deepEqual(loaded.steps, [cmd('auditctl', ['-w', '/etc/passwd', '-p', 'wa', '-k', 'identity'], { undo: cmd('auditctl', ['-W', '/etc/passwd', '-p', 'wa', '-k', 'identity']) }), ...rebuilt(file)]);
  assert.ok(reversibleWhenDone(loaded.steps as Step[]));
  assert.deepEqual(loaded.preview.warnings, []);
  // What its rollback reads besides the rules file: audit.rules, and the kernel's rules where auditctl can list them.
  assert.deepEqual(declaredState(byName('AddAuditWatch'), p, loaded.cur), [{ file: '/etc/audit/audit.rules' }, { program: 'auditctl', args: ['-l'] }]);
  const container = await run('AddAuditWatch', p, hostWith(auditTree(), { audit: 'container' }));
  assert.deepEqual(container.steps, rebuilt(file));
  assert.deepEqual(declaredState(byName('AddAuditWatch'), p, container.cur), [{ file: '/etc/audit/audit.rules' }]);
  assert.match(container.preview.warnings!.join(' '), /only written to .*takes effect when auditd next loads its rules/);
  const locked = await run('AddAuditWatch', p, hostWith(auditTree(), { audit: 'locked' }));
  assert.deepEqual(locked.steps, rebuilt(file));
  assert.match(locked.preview.warnings!.join(' '), /locked \(-e 2\)/);
  const dir = await run('AddAuditWatch', { name: 'sudoers', path: '/etc/sudoers.d', permissions: 'wa', key: 'scope' }, hostWith(auditTree(), { audit: 'container' }));
  assert.match(dir.preview.sideEffects!.join(' '), /covers everything below it/);
});

test('AddAuditWatch refusals', async () => {
  const p = { name: 'passwd', path: '/etc/passwd', permissions: 'wa', key: 'identity' };
  await refused('AddAuditWatch', p, hostWith(auditTree({ [`${RULES}/60-airlock-passwd.rules`]: 'x' })), 'watch_exists', 'conflict');
  await refused('AddAuditWatch', { ...p, path: '/etc/mtab' }, hostWith(auditTree()), 'symlink_in_path', 'validation');
  await refused('AddAuditWatch', { ...p, path: '/etc/nothing' }, hostWith(auditTree()), 'no_such_path', 'validation');
  await refused('AddAuditWatch', p, hostWith(auditTree(), { audit: 'loaded', rules: ['-w /etc/passwd -p wa -k identity'] }), 'already_loaded', 'conflict');
  await refused('AddAuditWatch', p, hostWith({ '/etc/passwd': 'x' }), 'auditd_missing', 'unsupported_platform');
});

test('RemoveAuditWatch unloads a loaded watch, deletes its file and rebuilds audit.rules', async () => {
  const tree = auditTree({ [`${RULES}/60-airlock-passwd.rules`]: '## Written by Airlock\n-w /etc/passwd -p wa -k identity\n' });
  const loaded = await run('RemoveAuditWatch', { name: 'passwd' }, hostWith(tree, { audit: 'loaded', rules: ['-w /etc/passwd -p wa -k identity'] }));
  assert.deepEqual(loaded.steps, [
    cmd('auditctl', ['-W', '/etc/passwd', '-p', 'wa', '-k', 'identity'], { undo: cmd('auditctl', ['-w', '/etc/passwd', '-p', 'wa', '-k', 'identity']) }),
    ...rebuilt({ kind: 'fileDelete', path: `${RULES}/60-airlock-passwd.rules` }),
  ]);
  assert.ok(reversibleWhenDone(loaded.steps as Step[]));
  const notLoaded = await run('RemoveAuditWatch', { name: 'passwd' }, hostWith(tree, { audit: 'loaded' }));
  assert.deepEqual(notLoaded.steps, rebuilt({ kind: 'fileDelete', path: `${RULES}/60-airlock-passwd.rules` }));
  const container = await run('RemoveAuditWatch', { name: 'passwd' }, hostWith(tree, { audit: 'container' }));
  assert.deepEqual(container.steps, notLoaded.steps);
  await assertNoChange(run('RemoveAuditWatch', { name: 'group' }, hostWith(tree)), /not|no /);
  await refused('RemoveAuditWatch', { name: 'passwd' }, hostWith(auditTree({ [`${RULES}/60-airlock-passwd.rules`]: '-w /etc/passwd -p wa -k a\n-a always,exit -S execve\n' })), 'not_an_airlock_watch', 'conflict');
});

// ---------------------------------------------------------------- AppArmor

test('AppArmorStatus runs aa-status where AppArmor is on, and reports aa-enabled\'s answer where it is not', async () => {
  const on = await run('AppArmorStatus', {}, hostWith({}, { apparmor: true }));
  assert.deepEqual(on.steps, [cmd('aa-status', [], { okCodes: [0, 2] })]);
  const off = await run('AppArmorStatus', {}, hostWith({}));
  assert.deepEqual(off.steps, [cmd('aa-enabled', [], { okCodes: [1, 2, 3, 4] })]);
  assert.equal(off.preview.summary, 'AppArmor is not enabled on this host (aa-enabled: No - not available on this system.); read that answer');
});

test('SetAppArmorMode edits with aa-complain/aa-enforce --no-reload, undoes with the other, then reloads or only parses', async () => {
  const tree = { '/etc/apparmor.d/lsb_release': PROFILE, '/etc/apparmor.d/tunables/global': '@{HOME}=/home/\n' };
  const path = '/etc/apparmor.d/lsb_release';
  const on = await run('SetAppArmorMode', { profile: 'lsb_release', mode: 'complain' }, hostWith(tree, { apparmor: true, utils: true }));
  // Where AppArmor runs, the undo (aa-enforce without --no-reload) edits the file back and reloads it: the load is undone with it.
  assert.deepEqual(on.steps, [
    cmd('aa-complain', ['--no-reload', '--', path], { paths: [path], undo: cmd('aa-enforce', ['--', path], { paths: [path] }) }),
    cmd('apparmor_parser', ['-r', '--', path], { paths: [path], noUndo: 'undone_earlier' }),
  ]);
  assert.ok(reversibleWhenDone(on.steps as Step[]));
  assert.deepEqual(declaredState(byName('SetAppArmorMode'), { profile: 'lsb_release' }, on.cur), [{ file: path }, { file: '/etc/apparmor.d/force-complain/lsb_release' }]);
  // Where it does not, the parser only checks the file (a read), and the undo leaves the kernel alone.
  const off = await run('SetAppArmorMode', { profile: 'lsb_release', mode: 'complain' }, hostWith(tree, { utils: true }));
  assert.deepEqual(off.steps, [
    cmd('aa-complain', ['--no-reload', '--', path], { paths: [path], undo: cmd('aa-enforce', ['--no-reload', '--', path], { paths: [path] }) }),
    cmd('apparmor_parser', ['-Q', '-K', '--', path], { paths: [path], noUndo: 'changes_nothing' }),
  ]);
  assert.match(off.preview.warnings!.join(' '), /only the profile file changes/);
  const back = await run('SetAppArmorMode', { profile: 'lsb_release', mode: 'enforce' }, hostWith({ [path]: PROFILE.replace('lsb_release {', 'lsb_release flags=(complain) {') }, { utils: true }));
  assert.deepEqual(back.steps[0], cmd('aa-enforce', ['--no-reload', '--', path], { paths: [path], undo: cmd('aa-complain', ['--no-reload', '--', path], { paths: [path] }) }));
});

test('SetAppArmorMode refusals', async () => {
  const tree = { '/etc/apparmor.d/lsb_release': PROFILE, '/etc/apparmor.d/tunables/global': '@{HOME}=/home/\n', '/etc/apparmor.d/abstractions/base': '  /etc/ld.so.cache r,\n', '/etc/apparmor.d/link': { link: 'lsb_release' } };
  const with_ = (extra: Record<string, Node> = {}) => hostWith({ ...tree, ...extra }, { utils: true });
  await refused('SetAppArmorMode', { profile: 'lsb_release', mode: 'complain' }, hostWith(tree), 'apparmor_utils_missing', 'unsupported_platform');
  await refused('SetAppArmorMode', { profile: 'nothing', mode: 'complain' }, with_(), 'no_such_profile', 'validation');
  await refused('SetAppArmorMode', { profile: 'tunables', mode: 'complain' }, with_(), 'not_a_profile', 'validation');
  // aa-complain and apparmor_parser would follow it.
  await refused('SetAppArmorMode', { profile: 'link', mode: 'complain' }, with_(), 'untrusted_path', 'authorization');
  await refused('SetAppArmorMode', { profile: 'abstractions', mode: 'complain' }, with_(), 'not_a_profile', 'validation');
  await refused('SetAppArmorMode', { profile: 'lsb_release', mode: 'complain' }, with_({ '/etc/apparmor.d/disable/lsb_release': { link: '../lsb_release' } }), 'profile_disabled', 'conflict');
  await assertNoChange(run('SetAppArmorMode', { profile: 'lsb_release', mode: 'enforce' }, with_()), /already/);
});

// ---------------------------------------------------------------- certificates

const certTree = (extra: Record<string, Node> = {}): Record<string, Node> => ({
  '/etc/ssl/certs/002c0b4f.0': { link: 'ISRG_Root_X1.pem' },
  '/etc/ssl/certs/ISRG_Root_X1.pem': { link: '/usr/share/ca-certificates/mozilla/ISRG_Root_X1.crt' },
  '/usr/share/ca-certificates/mozilla/ISRG_Root_X1.crt': CERT,
  '/etc/letsencrypt/live/example.org/fullchain.pem': { link: '../../archive/example.org/fullchain1.pem' },
  '/etc/letsencrypt/archive/example.org/fullchain1.pem': CERT + CERT,
  '/etc/letsencrypt/archive/example.org/privkey1.pem': KEY,
  ...extra,
});

test('CertificateExpiry follows links within the allowlist and runs openssl on the file they lead to', async () => {
  const x509 = (f: string) => cmd('openssl', ['x509', '-noout', '-subject', '-issuer', '-startdate', '-enddate', '-in', f], { paths: [f] });
  const hash = await run('CertificateExpiry', { path: '/etc/ssl/certs/002c0b4f.0' }, hostWith(certTree()));
  assert.deepEqual(hash.steps, [x509('/usr/share/ca-certificates/mozilla/ISRG_Root_X1.crt')]);
  assert.deepEqual(hash.cur.links, ['/etc/ssl/certs/002c0b4f.0', '/etc/ssl/certs/ISRG_Root_X1.pem']);
  assert.doesNotMatch(JSON.stringify(hash.shown), /BEGIN/, 'no file content in the preview');
  const le = await run('CertificateExpiry', { path: '/etc/letsencrypt/live/example.org/fullchain.pem' }, hostWith(certTree()));
  assert.deepEqual(le.steps, [x509('/etc/letsencrypt/archive/example.org/fullchain1.pem')]);
  assert.match(le.preview.warnings!.join(' '), /holds 2 certificates/);
});

test('CertificateExpiry refusals: keys by link or by content, non-certificates, links out of bounds', async () => {
  const c = (path: string, extra: Record<string, Node>, code: string, category: string) => refused('CertificateExpiry', { path }, hostWith(certTree(extra)), code, category);
  await c('/etc/letsencrypt/live/bad/cert.pem', { '/etc/letsencrypt/live/bad/cert.pem': { link: '../../archive/example.org/privkey1.pem' } }, 'link_outside_allowlist', 'authorization');
  await c('/etc/ssl/certs/x.pem', { '/etc/ssl/certs/x.pem': { link: '/etc/shadow' } }, 'link_outside_allowlist', 'authorization');
  await c('/usr/local/share/ca-certificates/pair.crt', { '/usr/local/share/ca-certificates/pair.crt': CERT + KEY }, 'holds_private_key', 'authorization');
  await c('/usr/local/share/ca-certificates/rsa.crt', { '/usr/local/share/ca-certificates/rsa.crt': CERT + '-----BEGIN RSA PRIVATE KEY-----\n' }, 'holds_private_key', 'authorization');
  await c('/usr/local/share/ca-certificates/x.crt', { '/usr/local/share/ca-certificates/x.crt': 'hello\n' }, 'not_a_certificate', 'validation');
  await c('/usr/local/share/ca-certificates/none.crt', {}, 'no_such_file', 'validation');
  await c('/etc/letsencrypt/live/d/cert.pem', { '/etc/letsencrypt/live/d': { link: '/tmp/d' } }, 'symlink_in_path', 'authorization');
  await c('/etc/ssl/certs/a.pem', { '/etc/ssl/certs/a.pem': { link: 'b.pem' }, '/etc/ssl/certs/b.pem': { link: 'a.pem' } }, 'too_many_links', 'authorization');
});

test('ListCertificates lists a fixed directory with ls; refuses missing ones and links', async () => {
  const r = await run('ListCertificates', { dir: '/etc/ssl/certs' }, hostWith(certTree()));
  assert.deepEqual(r.steps, [cmd('ls', ['-l', '-b', '--time-style=long-iso', '--', '/etc/ssl/certs'], { paths: ['/etc/ssl/certs'] })]);
  await refused('ListCertificates', { dir: '/etc/letsencrypt/live' }, hostWith({}), 'no_such_directory', 'validation');
  await refused('ListCertificates', { dir: '/etc/ssl/certs' }, hostWith({ '/etc/ssl': { link: '/tmp/ssl' } }), 'untrusted_path', 'authorization');
  for (const bad of ['/etc/ssl/private', '/root', '/etc/letsencrypt', '/etc/letsencrypt/archive']) assert.equal(byName('ListCertificates').params.safeParse({ dir: bad }).success, false, bad);
});

// ---------------------------------------------------------------- SELinux (Fedora and RHEL; argv per platform in catalogue-rhel.test.ts)

const SELINUX_CONFIG_TEXT = '# This file controls the state of SELinux on the system.\n# SELINUX= can take one of these three values:\n#     enforcing - SELinux security policy is enforced.\nSELINUX=enforcing\nSELINUXTYPE=targeted\n';

/** A Fedora host whose getenforce, getsebool and /etc/selinux/config say what the test needs. */
function selinuxHost(opts: { runtime?: string | null; config?: string | null; booleans?: Record<string, 'on' | 'off'> } = {}): FixtureHost {
  const tree: Record<string, Node> = {};
  const config = opts.config === undefined ? SELINUX_CONFIG_TEXT : opts.config;
  if (config !== null) tree['/etc/selinux/config'] = config;
  const runtime = opts.runtime === undefined ? 'Enforcing' : opts.runtime;
  return new FixtureHost(
    tree,
    (program, args) => {
      if (program === 'getenforce') {
        if (runtime === null) throw new AirlockError('unsupported_platform', 'program_missing', 'this host has no trusted getenforce binary');
        return ok(`${runtime}\n`);
      }
      if (program === 'getsebool') {
        const name = args.at(-1)!;
        const v = opts.booleans?.[name];
        return v ? ok(`${name} --> ${v}\n`) : { code: 1, stdout: '', stderr: `Error getting active value for ${name}\n` };
      }
      return { code: 127, stdout: '', stderr: 'not scripted' };
    },
    'fedora',
  );
}

test('SELinux actions are Fedora and RHEL only; modes and boolean names are allowlists', () => {
  for (const n of ['SelinuxStatus', 'SetSelinuxMode', 'ListSelinuxBooleans', 'SetSelinuxBoolean']) assert.deepEqual(byName(n).platforms, ['fedora', 'rhel'], n);
  const mode = byName('SetSelinuxMode').params;
  for (const m of ['enforcing', 'permissive']) assert.equal(mode.safeParse({ mode: m }).success, true);
  const disabled = mode.safeParse({ mode: 'disabled' });
  assert.equal(disabled.success, false);
  assert.match(JSON.stringify(disabled.error?.issues), /reboot/);
  for (const bad of ['Enforcing', '1', '', 'enforcing ']) assert.equal(mode.safeParse({ mode: bad }).success, false, bad);
  const b = byName('SetSelinuxBoolean').params;
  assert.equal(b.safeParse({ name: 'httpd_can_network_connect', value: true }).success, true);
  for (const bad of [...INJECTIONS, 'Httpd', 'a-b', 'a=1', '_x']) assert.equal(b.safeParse({ name: bad, value: true }).success, false, JSON.stringify(bad).slice(0, 30));
  assert.equal(b.safeParse({ name: 'httpd_can_network_connect', value: 'on' }).success, false, 'value is a boolean');
  assert.equal(parseGetsebool('ftpd_full_access', 'ftpd_full_access --> off pending: on\n'), 'off');
  assert.equal(parseGetsebool('a', 'b --> on\n'), null);
});

test('SetSelinuxMode patches the one SELINUX= line first, then setenforce with the old mode as undo', async () => {
  const { steps, preview } = await run('SetSelinuxMode', { mode: 'permissive' }, selinuxHost());
  assert.deepEqual(steps, [
    { kind: 'filePatch', path: '/etc/selinux/config', search: '\nSELINUX=enforcing\n', replace: '\nSELINUX=permissive\n' },
    cmd('setenforce', ['Permissive'], { undo: cmd('setenforce', ['Enforcing']) }),
  ]);
  assert.deepEqual((preview.change as { now: unknown }).now, { from: 'Enforcing', to: 'Permissive' });
  // Only what differs: running permissive, configured enforcing.
  assert.deepEqual((await run('SetSelinuxMode', { mode: 'enforcing' }, selinuxHost({ runtime: 'Permissive' }))).steps, [cmd('setenforce', ['Enforcing'], { undo: cmd('setenforce', ['Permissive']) })]);
  // The running mode is live state: its rollback reads it with getenforce (the config file is a file step, read as such).
  assert.deepEqual(declaredState(byName('SetSelinuxMode'), { mode: 'enforcing' }, {}), [{ program: 'getenforce', args: [] }]);
  assert.deepEqual(declaredState(byName('SetSelinuxBoolean'), { name: 'httpd_can_network_connect', value: true }, {}), [{ program: 'getsebool', args: ['--', 'httpd_can_network_connect'] }]);
  // A pending disable is undone, with a warning.
  const pending = await run('SetSelinuxMode', { mode: 'enforcing' }, selinuxHost({ config: 'SELINUX=disabled\nSELINUXTYPE=targeted\n' }));
  assert.deepEqual(pending.steps, [{ kind: 'filePatch', path: '/etc/selinux/config', search: 'SELINUX=disabled\n', replace: 'SELINUX=enforcing\n' }]);
  assert.match(pending.preview.warnings!.join(' '), /said disabled/);
});

test('SetSelinuxMode refusals', async () => {
  await assertNoChange(run('SetSelinuxMode', { mode: 'enforcing' }, selinuxHost()), /already/);
  await refused('SetSelinuxMode', { mode: 'enforcing' }, selinuxHost({ runtime: 'Disabled' }), 'selinux_disabled', 'conflict');
  await refused('SetSelinuxMode', { mode: 'enforcing' }, selinuxHost({ runtime: null }), 'selinux_tools_missing', 'unsupported_platform');
  await refused('SetSelinuxMode', { mode: 'permissive' }, selinuxHost({ config: null }), 'no_selinux_config');
  await refused('SetSelinuxMode', { mode: 'permissive' }, selinuxHost({ config: 'SELINUX=enforcing\nSELINUX=permissive\n' }), 'unrecognised_config');
  await refused('SetSelinuxMode', { mode: 'permissive' }, selinuxHost({ config: 'SELINUXTYPE=targeted\n' }), 'unrecognised_config');
});

test('SelinuxStatus and SetSelinuxBoolean read getenforce and getsebool; the boolean must exist', async () => {
  const host = selinuxHost({ booleans: { httpd_can_network_connect: 'off' } });
  const status = await run('SelinuxStatus', {}, host);
  assert.deepEqual(status.steps, [cmd('sestatus', [])]);
  assert.match(status.preview.summary, /now Enforcing, configured enforcing/);
  const set = await run('SetSelinuxBoolean', { name: 'httpd_can_network_connect', value: true }, host);
  assert.deepEqual(set.steps, [
    cmd('setsebool', ['-P', '--', 'httpd_can_network_connect', 'on'], { timeoutMs: 300_000, undo: cmd('setsebool', ['-P', '--', 'httpd_can_network_connect', 'off'], { timeoutMs: 300_000 }) }),
  ]);
  assert.ok(host.calls.some(([p, a]) => p === 'getsebool' && a.join(' ') === '-- httpd_can_network_connect'));
  // The running value already matches: allowed (it makes it persistent), with a warning.
  const same = await run('SetSelinuxBoolean', { name: 'httpd_can_network_connect', value: false }, host);
  assert.match(same.preview.warnings!.join(' '), /already off/);
  await refused('SetSelinuxBoolean', { name: 'no_such_bool', value: true }, host, 'no_such_boolean', 'validation');
  await refused('SetSelinuxBoolean', { name: 'httpd_can_network_connect', value: true }, selinuxHost({ runtime: 'Disabled' }), 'selinux_disabled');
  await refused('SelinuxStatus', {}, selinuxHost({ runtime: null }), 'selinux_tools_missing');
  assert.deepEqual((await run('ListSelinuxBooleans', {}, host)).steps, [cmd('getsebool', ['-a'])]);
});
