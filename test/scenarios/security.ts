/**
 * security family, in the booted Debian test bed: the password quality policy and the
 * ageing defaults are changed for real and checked with libpwquality itself, new
 * accounts and the files; audit watches are written and rebuilt into audit.rules by the
 * real augenrules; AppArmor profile files are switched by the real aa-complain and
 * aa-enforce and checked by apparmor_parser; certificates are read with openssl.
 *
 * What the container cannot do, and so is not done here: the kernel half of the audit
 * actions (inside the container the kernel refuses the audit netlink socket, so
 * auditctl -s/-l/-w/-W cannot run: the actions leave them out, say so in their summary,
 * and the scenarios check exactly that; their argv is checked by the unit tests), and
 * loading AppArmor profiles (this kernel has no AppArmor at all: aa-enabled answers
 * "No - not available on this system.", so SetAppArmorMode runs apparmor_parser -Q,
 * parse only, instead of -r). SetAppArmorMode needs apparmor-utils in the test-bed root.
 *
 * Some refusals are checked too, through the real daemon: a preview sent as the
 * scenarios' agent over the daemon's socket, with its real peer credentials.
 */
import assert from 'node:assert/strict';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { AirlockError } from '../../src/protocol/errors.js';
import type { ResultEnvelope } from '../../src/protocol/messages.js';
import { SANDBOXED_UNIT } from '../../src/sandbox/overlay.js';
import { Principal } from '../../src/sandbox/principal.js';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const PWQ_MAIN = '/etc/security/pwquality.conf';
const PWQ_DROP_IN = '/etc/security/pwquality.conf.d/60-airlock.conf';
const PAM_PASSWORD = '/etc/pam.d/common-password';
const LOGIN_DEFS = '/etc/login.defs';
const RULES_D = '/etc/audit/rules.d';
const AUDIT_RULES = '/etc/audit/audit.rules';
const PROFILE = '/etc/apparmor.d/lsb_release';
const BROKEN_PROFILE = '/etc/apparmor.d/airlock-broken';
const LE = '/etc/letsencrypt';
const OPENSSL = '/usr/bin/openssl';
const X509 = ['x509', '-noout', '-subject', '-issuer', '-startdate', '-enddate', '-in'];

/** The output as one text: the daemon returns the lines of every step, one after the other. */
const text = (r: ResultEnvelope) => r.output.join('\n');
/** What `text` is for steps that printed these chunks (files, command outputs). */
const joined = (...chunks: string[]) => chunks.map((c) => c.replace(/\n$/, '')).join('\n');
const lines = (s: string | null) => (s ?? '').split('\n');

async function must(box: SandboxView, program: string, args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function write(box: SandboxView, path: string, content: string): Promise<void> {
  assert.ok(box.writeFile, 'the scenario runner must provide writeFile');
  await box.writeFile(path, content);
}

/**
 * Sends a preview to the daemon as the scenarios' agent (the harness's `agent` user,
 * through its socket, with real peer credentials) and returns the envelope or the typed refusal.
 */
async function previewAsAgent(box: SandboxView, action: string, params: Record<string, unknown>): Promise<PreviewEnvelope | AirlockError> {
  const exec = await must(box, '/usr/bin/systemctl', ['show', '-p', 'ExecStart', '--value', '--', `${SANDBOXED_UNIT}.service`]);
  const socket = /--socket (\S+)/.exec(exec)?.[1];
  assert.ok(socket, `the daemon's socket in ${exec}`);
  const id = await must(box, '/usr/bin/id', ['--', 'agent']);
  const uid = Number(/uid=(\d+)/.exec(id)![1]);
  const gid = Number(/gid=(\d+)/.exec(id)![1]);
  const groups = [...id.matchAll(/(\d+)\(/g)].slice(2).map((m) => Number(m[1]));
  const agent = Principal.spawn({ uid, gid, groups: [...new Set([gid, ...groups])] }, socket);
  try {
    return await agent.call('preview', { action_name: action, params });
  } catch (e) {
    assert.ok(e instanceof AirlockError, String(e));
    return e;
  } finally {
    agent.close();
  }
}

async function refused(box: SandboxView, action: string, params: Record<string, unknown>, category: string, code: string): Promise<void> {
  const e = await previewAsAgent(box, action, params);
  assert.ok(e instanceof AirlockError, `${action} ${JSON.stringify(params)} was not refused`);
  assert.deepEqual([e.category, e.code], [category, code], e.message);
}

/** The desired state already holds: the preview says no change, with nothing to run. */
async function noChange(box: SandboxView, action: string, params: Record<string, unknown>, reason: RegExp): Promise<void> {
  const p = await previewAsAgent(box, action, params);
  assert.ok(!(p instanceof AirlockError), `${action} ${JSON.stringify(params)}: ${String(p)}`);
  assert.equal(p.no_change, true, p.summary);
  assert.match(p.summary, reason);
  assert.deepEqual(p.proposed_change.mechanism, []);
}

// ---------------------------------------------------------------- libpwquality, asked directly

/** Reads the configuration the way pam_pwquality does (libpwquality) and checks passwords against it. */
const PWQ_PROBE = `import ctypes, sys
lib = ctypes.CDLL('libpwquality.so.1')
lib.pwquality_default_settings.restype = ctypes.c_void_p
lib.pwquality_read_config.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
lib.pwquality_check.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
lib.pwquality_strerror.restype = ctypes.c_char_p
lib.pwquality_strerror.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
settings = lib.pwquality_default_settings()
print('config', lib.pwquality_read_config(settings, None, None))
for pw in sys.argv[1:]:
    aux = ctypes.c_void_p()
    rc = lib.pwquality_check(settings, pw.encode(), None, b'alice', ctypes.byref(aux))
    print('ok' if rc >= 0 else lib.pwquality_strerror(None, 0, rc, aux).decode())
`;
const PWQ_PROBE_PATH = '/root/airlock-pwquality-probe.py';

/** libpwquality's verdict on each password, after checking that the whole configuration parses. */
async function pwquality(box: SandboxView, ...passwords: string[]): Promise<string[]> {
  if ((await box.readFile(PWQ_PROBE_PATH)) === null) await write(box, PWQ_PROBE_PATH, PWQ_PROBE);
  const [config, ...verdicts] = lines((await must(box, '/usr/bin/python3', [PWQ_PROBE_PATH, ...passwords])).trim());
  assert.equal(config, 'config 0', 'libpwquality reads every configuration file without error');
  return verdicts;
}

let pwqualityConf = '';
let loginDefs = '';
let profile = '';

// ---------------------------------------------------------------- AppArmor tools

/**
 * aa-complain and aa-enforce come with apparmor-utils, which must be in the test-bed root:
 * the daemon resolves its programs once, when it starts, so installing the package from a
 * scenario would come too late.
 */
async function requireAppArmorUtils(box: SandboxView): Promise<void> {
  const status = await box.run('/usr/bin/dpkg-query', ['-W', '--showformat=${db:Status-Status}', '--', 'apparmor-utils']);
  assert.equal(status.stdout, 'installed', 'the test-bed root lacks apparmor-utils (aa-complain, aa-enforce): add it to TESTBED_PACKAGES in src/sandbox/testbed-root.ts');
}

const profileLine = (s: string | null) => lines(s).find((l) => l.startsWith('profile '));

// ---------------------------------------------------------------- certificates

/** A certbot-like layout: archive/NAME/{cert,chain,fullchain,privkey}1.pem and live/NAME/* links to them. */
async function letsencrypt(box: SandboxView, name: string): Promise<void> {
  const archive = `${LE}/archive/${name}`;
  const live = `${LE}/live/${name}`;
  await must(box, '/usr/bin/mkdir', ['-p', '--', archive, live]);
  await must(box, OPENSSL, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '30', '-subj', `/CN=${name}`, '-keyout', `${archive}/privkey1.pem`, '-out', `${archive}/cert1.pem`]);
  for (const f of ['chain1.pem', 'fullchain1.pem']) await must(box, '/usr/bin/cp', ['--', `${archive}/cert1.pem`, `${archive}/${f}`]);
  for (const f of ['cert', 'chain', 'fullchain', 'privkey']) await must(box, '/usr/bin/ln', ['-s', '--', `../../archive/${name}/${f}1.pem`, `${live}/${f}.pem`]);
}

export const scenarios: Scenario[] = [
  // ============================================================ password quality
  {
    action: 'ShowPasswordPolicy',
    params: {},
    check: async (box, r) => {
      pwqualityConf = (await box.readFile(PWQ_MAIN))!;
      // No drop-in yet: pwquality.conf, then the PAM file, each exactly.
      assert.equal(text(r), joined(pwqualityConf, (await box.readFile(PAM_PASSWORD))!));
      assert.match(r.summary, /in force: minlen=8 dcredit=0 ucredit=0 lcredit=0 ocredit=0 minclass=0 maxrepeat=0 dictcheck=1 enforce_for_root=false$/);
    },
  },
  {
    action: 'SetPasswordPolicy',
    params: { option: 'minlen', value: 14 },
    check: async (box, r) => {
      assert.match(r.summary, /minlen to 14 \(now 8\) in \/etc\/security\/pwquality\.conf\.d\/60-airlock\.conf/);
      const dropIn = (await box.readFile(PWQ_DROP_IN))!;
      assert.deepEqual(lines(dropIn).filter((l) => l && !l.startsWith('#')), ['minlen = 14']);
      assert.equal((await must(box, '/usr/bin/stat', ['-c', '%a %U %G', '--', PWQ_DROP_IN, '/etc/security/pwquality.conf.d'])).trim(), '644 root root\n755 root root');
      assert.equal(await box.readFile(PWQ_MAIN), pwqualityConf, 'pwquality.conf untouched');
      // libpwquality (what pam_pwquality uses) now refuses a 13-character password.
      assert.deepEqual(await pwquality(box, 'Xk4!mQ2#pL9zW'), ['The password is shorter than 14 characters']);
      await noChange(box, 'SetPasswordPolicy', { option: 'minlen', value: 14 }, /^no change: minlen is already 14/);
    },
  },
  {
    action: 'SetPasswordPolicy',
    title: 'a second option joins the same drop-in',
    params: { option: 'dictcheck', value: 0 },
    check: async (box) => {
      assert.deepEqual(lines(await box.readFile(PWQ_DROP_IN)).filter((l) => l && !l.startsWith('#')), ['minlen = 14', 'dictcheck = 0']);
      // The test bed has no cracklib dictionary: with dictcheck on, every password failed that check.
      assert.deepEqual(await pwquality(box, 'Vq8#mLp2!zR7wKe4', 'short'), ['ok', 'The password is shorter than 14 characters']);
    },
  },
  {
    action: 'SetPasswordPolicy',
    title: 'the enforce_for_root flag',
    params: { option: 'enforce_for_root', value: true },
    check: async (box) => {
      assert.deepEqual(lines(await box.readFile(PWQ_DROP_IN)).filter((l) => l && !l.startsWith('#')), ['minlen = 14', 'dictcheck = 0', 'enforce_for_root']);
      assert.deepEqual(await pwquality(box, 'Vq8#mLp2!zR7wKe4'), ['ok']);
    },
  },
  {
    action: 'SetPasswordPolicy',
    title: 'a setting pwquality.conf itself makes is changed on its own line there',
    params: { option: 'minlen', value: 16 },
    setup: async (box) => {
      // pwquality.conf is read after the drop-ins: its minlen = 10 overrides the drop-in's 14.
      pwqualityConf += 'minlen = 10\n';
      await write(box, PWQ_MAIN, pwqualityConf);
      assert.deepEqual(await pwquality(box, 'Xk4!mQ2#p'), ['The password is shorter than 10 characters']);
    },
    check: async (box, r) => {
      assert.match(r.summary, /minlen to 16 \(now 10\) in \/etc\/security\/pwquality\.conf$/);
      assert.equal(await box.readFile(PWQ_MAIN), pwqualityConf.replace(/\nminlen = 10\n$/, '\nminlen = 16\n'), 'only that line changed; "# minlen = 8" kept');
      pwqualityConf = (await box.readFile(PWQ_MAIN))!;
      assert.ok(lines(await box.readFile(PWQ_DROP_IN)).includes('minlen = 14'), 'the drop-in is left alone');
      assert.deepEqual(await pwquality(box, 'Xk4!mQ2#pL9zW7a'), ['The password is shorter than 16 characters']);
    },
  },
  {
    action: 'SetPasswordPolicy',
    title: 'a flag is turned off by removing its line',
    params: { option: 'enforce_for_root', value: false },
    check: async (box) => {
      assert.deepEqual(lines(await box.readFile(PWQ_DROP_IN)).filter((l) => l && !l.startsWith('#')), ['minlen = 14', 'dictcheck = 0']);
    },
  },
  {
    action: 'ShowPasswordPolicy',
    title: 'drop-ins first, then pwquality.conf, as libpwquality reads them',
    params: {},
    check: async (box, r) => {
      assert.equal(text(r), joined((await box.readFile(PWQ_DROP_IN))!, pwqualityConf, (await box.readFile(PAM_PASSWORD))!));
      assert.match(r.summary, /in force: minlen=16 .* dictcheck=0 enforce_for_root=false$/);
    },
  },

  // ============================================================ password ageing defaults
  {
    action: 'PasswordAgingDefaults',
    params: {},
    check: async (box, r) => {
      loginDefs = (await box.readFile(LOGIN_DEFS))!;
      assert.equal(text(r), joined(loginDefs));
      assert.match(r.summary, /PASS_MAX_DAYS 99999, PASS_MIN_DAYS 0, PASS_WARN_AGE 7/);
    },
  },
  {
    action: 'SetPasswordAgingDefaults',
    params: { pass_max_days: 180, pass_warn_age: 14 },
    check: async (box) => {
      const after = (await box.readFile(LOGIN_DEFS))!;
      assert.equal(after, loginDefs.replace('\nPASS_MAX_DAYS\t99999\n', '\nPASS_MAX_DAYS\t180\n').replace('\nPASS_WARN_AGE\t7\n', '\nPASS_WARN_AGE\t14\n'), 'exactly those two lines changed');
      assert.ok(after.includes('#\tPASS_MAX_DAYS\tMaximum number of days a password may be used.'), 'the comment describing it is kept');
      // What it is for: a new account gets these values in /etc/shadow.
      await must(box, '/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', '--', 'agingprobe']);
      const shadow = lines(await box.readFile('/etc/shadow')).find((l) => l.startsWith('agingprobe:'))!.split(':');
      assert.deepEqual(shadow.slice(3, 6), ['0', '180', '14'], 'min, max, warn of the new account');
      await refused(box, 'SetPasswordAgingDefaults', { pass_min_days: 200 }, 'validation', 'min_above_max');
      await noChange(box, 'SetPasswordAgingDefaults', { pass_max_days: 180 }, /^no change: \/etc\/login\.defs already has/);
    },
  },

  // ============================================================ audit
  {
    action: 'AuditStatus',
    params: {},
    check: async (box, r) => {
      // In the container the kernel refuses auditctl -s, so the action leaves it out and its summary says
      // what auditctl says when run as the daemon is (a service of the container's systemd).
      const asDaemon = await box.run('/usr/bin/systemd-run', ['--wait', '--pipe', '--quiet', '--', '/usr/sbin/auditctl', '-s']);
      assert.notEqual(asDaemon.code, 0);
      const said = asDaemon.stderr.split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 3).join('; ');
      assert.ok(r.summary.endsWith(`the kernel audit status is unavailable here: auditctl -s: ${said}`), r.summary);
      // systemctl show (five properties), then auditd.conf: no kernel status lines.
      const show = r.output.slice(0, 5);
      assert.deepEqual(show.map((l) => l.split('=')[0]).sort(), ['ActiveState', 'LoadState', 'MainPID', 'SubState', 'UnitFileState']);
      assert.ok(show.includes('LoadState=loaded'), show.join(' | '));
      assert.equal(joined(...r.output.slice(5)), joined((await box.readFile('/etc/audit/auditd.conf'))!));
    },
  },
  {
    action: 'ListAuditRules',
    params: {},
    check: async (box, r) => {
      assert.equal(text(r), joined((await box.readFile(`${RULES_D}/audit.rules`))!));
      assert.match(r.summary, /1 rules file\(s\) in \/etc\/audit\/rules\.d; the loaded rules are unavailable here/);
    },
  },
  {
    action: 'AddAuditWatch',
    params: { name: 'passwd', path: '/etc/passwd', permissions: 'aw', key: 'identity' },
    check: async (box) => {
      const file = `${RULES_D}/60-airlock-passwd.rules`;
      assert.equal(await box.readFile(file), '## Written by Airlock (AddAuditWatch passwd)\n-w /etc/passwd -p wa -k identity\n');
      assert.equal((await must(box, '/usr/bin/stat', ['-c', '%a %U %G', '--', file])).trim(), '640 root root');
      // augenrules really ran: audit.rules (what auditd loads at boot) now holds the watch, and matches rules.d.
      assert.ok(lines(await box.readFile(AUDIT_RULES)).includes('-w /etc/passwd -p wa -k identity'));
      assert.match(await must(box, '/usr/sbin/augenrules', ['--check']), /No change/);
      await refused(box, 'AddAuditWatch', { name: 'passwd', path: '/etc/group', permissions: 'wa', key: 'identity' }, 'conflict', 'watch_exists');
      await refused(box, 'AddAuditWatch', { name: 'mtab', path: '/etc/mtab', permissions: 'w', key: 'mounts' }, 'validation', 'symlink_in_path');
      await refused(box, 'AddAuditWatch', { name: 'nothing', path: '/etc/airlock-nothing', permissions: 'w', key: 'x' }, 'validation', 'no_such_path');
      await refused(box, 'AddAuditWatch', { name: 'proc', path: '/proc/1', permissions: 'r', key: 'x' }, 'validation', 'bad_params');
    },
  },
  {
    action: 'AddAuditWatch',
    title: 'a directory',
    params: { name: 'sudoers', path: '/etc/sudoers.d', permissions: 'wa', key: 'scope' },
    check: async (box) => {
      const rules = lines(await box.readFile(AUDIT_RULES));
      assert.ok(rules.includes('-w /etc/passwd -p wa -k identity') && rules.includes('-w /etc/sudoers.d -p wa -k scope'), rules.join(' | '));
    },
  },
  {
    action: 'ListAuditRules',
    title: "Airlock's rules files among the others",
    params: {},
    check: async (box, r) => {
      const files = ['60-airlock-passwd.rules', '60-airlock-sudoers.rules', 'audit.rules'].map((f) => `${RULES_D}/${f}`);
      assert.equal(text(r), joined(...(await Promise.all(files.map(async (f) => (await box.readFile(f))!)))));
    },
  },
  {
    action: 'RemoveAuditWatch',
    params: { name: 'passwd' },
    check: async (box) => {
      assert.equal(await box.readFile(`${RULES_D}/60-airlock-passwd.rules`), null);
      const rules = lines(await box.readFile(AUDIT_RULES));
      assert.ok(!rules.includes('-w /etc/passwd -p wa -k identity') && rules.includes('-w /etc/sudoers.d -p wa -k scope'), rules.join(' | '));
      assert.match(await must(box, '/usr/sbin/augenrules', ['--check']), /No change/);
      await noChange(box, 'RemoveAuditWatch', { name: 'passwd' }, /60-airlock-passwd\.rules does not exist/);
    },
  },

  // ============================================================ AppArmor
  {
    action: 'AppArmorStatus',
    params: {},
    check: async (box, r) => {
      // This kernel has no AppArmor: what aa-enabled answers, run by the daemon and from outside alike.
      const outside = await box.run('/usr/bin/aa-enabled', []);
      assert.deepEqual([outside.code, outside.stdout.trim()], [1, 'No - not available on this system.']);
      assert.deepEqual(r.output, ['No - not available on this system.']);
      assert.match(r.summary, /^AppArmor is not enabled on this host \(aa-enabled: No - not available on this system\.\)/);
      if ((await box.run('/usr/bin/dpkg-query', ['-W', '--showformat=${db:Status-Status}', '--', 'apparmor-utils'])).stdout !== 'installed') {
        await refused(box, 'SetAppArmorMode', { profile: 'lsb_release', mode: 'complain' }, 'unsupported_platform', 'apparmor_utils_missing');
      }
    },
  },
  {
    action: 'SetAppArmorMode',
    params: { profile: 'lsb_release', mode: 'complain' },
    setup: async (box) => {
      await requireAppArmorUtils(box);
      profile = (await box.readFile(PROFILE))!;
      assert.equal(profileLine(profile), 'profile lsb_release {');
    },
    check: async (box, r) => {
      assert.equal(profileLine(await box.readFile(PROFILE)), 'profile lsb_release flags=(complain) {');
      assert.match(r.summary, /in complain mode \(now enforce\)$/, 'no reload: AppArmor is off here');
      assert.match(text(r), /Setting \/etc\/apparmor\.d\/lsb_release to complain mode\./);
      await must(box, '/usr/sbin/apparmor_parser', ['-Q', '-K', '--', PROFILE]);
      await noChange(box, 'SetAppArmorMode', { profile: 'lsb_release', mode: 'complain' }, /lsb_release is already in complain mode/);
      await refused(box, 'SetAppArmorMode', { profile: 'tunables', mode: 'complain' }, 'validation', 'not_a_profile');
      await refused(box, 'SetAppArmorMode', { profile: 'airlock-nothing', mode: 'complain' }, 'validation', 'no_such_profile');
      await refused(box, 'SetAppArmorMode', { profile: '../shadow', mode: 'complain' }, 'validation', 'bad_params');
    },
  },
  {
    action: 'SetAppArmorMode',
    title: 'back to enforce',
    params: { profile: 'lsb_release', mode: 'enforce' },
    setup: requireAppArmorUtils,
    check: async (box) => assert.equal(await box.readFile(PROFILE), profile, 'the file is as it was'),
  },
  {
    action: 'SetAppArmorMode',
    title: 'a profile the parser rejects is switched back',
    params: { profile: 'airlock-broken', mode: 'complain' },
    // aa-complain accepts it, apparmor_parser does not know the capability: the undo (aa-enforce) runs.
    setup: async (box) => {
      await requireAppArmorUtils(box);
      await write(box, BROKEN_PROFILE, 'abi <abi/3.0>,\ninclude <tunables/global>\nprofile airlock-broken /usr/bin/airlock-broken {\n  capability airlock_bogus,\n}\n');
    },
    expect: 'RolledBack',
    check: async (box, r) => {
      assert.equal(r.error?.code, 'command_failed');
      assert.match(r.error?.message ?? '', /^apparmor_parser exited with status 1: .*Invalid capability airlock_bogus/);
      assert.equal(profileLine(await box.readFile(BROKEN_PROFILE)), 'profile airlock-broken /usr/bin/airlock-broken {');
      await must(box, '/usr/bin/rm', ['--', BROKEN_PROFILE]);
    },
  },

  // ============================================================ certificates
  {
    action: 'ListCertificates',
    params: { dir: '/etc/ssl/certs' },
    check: async (box, r) => {
      assert.equal(text(r), joined(await must(box, '/usr/bin/ls', ['-l', '-b', '--time-style=long-iso', '--', '/etc/ssl/certs'])));
      assert.match(text(r), / ISRG_Root_X1\.pem -> \/usr\/share\/ca-certificates\/mozilla\/ISRG_Root_X1\.crt$/m);
    },
  },
  {
    action: 'CertificateExpiry',
    params: { path: '/etc/ssl/certs/ISRG_Root_X1.pem' },
    check: async (box, r) => {
      assert.equal(text(r), joined(await must(box, OPENSSL, [...X509, '/usr/share/ca-certificates/mozilla/ISRG_Root_X1.crt'])));
      assert.match(text(r), /^subject=C = US, O = Internet Security Research Group, CN = ISRG Root X1$/m);
      assert.match(text(r), /^notAfter=Jun  4 11:04:38 2035 GMT$/m);
    },
  },
  {
    action: 'CertificateExpiry',
    title: "certbot's live link to its archive",
    params: { path: `${LE}/live/example.org/fullchain.pem` },
    setup: async (box) => {
      await letsencrypt(box, 'example.org');
      // A live link that leads to the private key, and a PEM file holding a key next to its certificate.
      await must(box, '/usr/bin/mkdir', ['-p', '--', `${LE}/live/bad.example`]);
      await must(box, '/usr/bin/ln', ['-s', '--', '../../archive/example.org/privkey1.pem', `${LE}/live/bad.example/cert.pem`]);
      const pair = (await box.readFile(`${LE}/archive/example.org/cert1.pem`))! + (await box.readFile(`${LE}/archive/example.org/privkey1.pem`))!;
      await write(box, '/usr/local/share/ca-certificates/combined.crt', pair);
    },
    check: async (box, r) => {
      assert.equal(text(r), joined(await must(box, OPENSSL, [...X509, `${LE}/archive/example.org/fullchain1.pem`])));
      assert.match(text(r), /^subject=CN = example\.org$/m);
      assert.match(r.summary, /\(\/etc\/letsencrypt\/archive\/example\.org\/fullchain1\.pem\)$/);
      await refused(box, 'CertificateExpiry', { path: `${LE}/live/example.org/privkey.pem` }, 'validation', 'bad_params');
      await refused(box, 'CertificateExpiry', { path: `${LE}/live/bad.example/cert.pem` }, 'authorization', 'link_outside_allowlist');
      await refused(box, 'CertificateExpiry', { path: '/usr/local/share/ca-certificates/combined.crt' }, 'authorization', 'holds_private_key');
      await refused(box, 'CertificateExpiry', { path: '/etc/ssl/private/ssl-cert-snakeoil.key' }, 'validation', 'bad_params');
    },
  },
  {
    action: 'ListCertificates',
    title: "certbot's live directory",
    params: { dir: `${LE}/live` },
    check: async (box, r) => {
      assert.equal(text(r), joined(await must(box, '/usr/bin/ls', ['-l', '-b', '--time-style=long-iso', '--', `${LE}/live`])));
      assert.match(text(r), / example\.org$/m);
    },
  },
];
