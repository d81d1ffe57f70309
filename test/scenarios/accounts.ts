/**
 * accounts actions (families users, privilege, ssh, identity), for real in the booted Debian
 * test bed: they need sshd, logins recorded in utmp and lastlog, systemd-timedated and
 * systemd-hostnamed. A test user logs in over SSH with a key and a terminal (ssh -tt, run as a
 * transient unit so the session stays open), which the session and login listings must show;
 * then its password ageing and comment are changed, and a forced password change is seen to
 * refuse a real key login. Every check reads /etc/shadow, /etc/passwd, /etc/machine-info or
 * runs who, lastlog, ps, chage, visudo, sshd, timedatectl or hostnamectl from outside the daemon.
 */
import assert from 'node:assert/strict';
import type { ResultEnvelope } from '../../src/protocol/messages.js';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const USER = 'acctuser';
const KEY = '/root/airlock-accounts-key';
const SESSION_UNIT = 'airlock-accounts-ssh.service';
/** A well-formed SHA-512 crypt string for no real password: ForcePasswordChange needs a usable password to expire. */
const FAKE_HASH = '$6$airlocktest$Q0aGq2fX0e1xQy9C3b8vYV8mJc7kq0N9wTnLr0c0y9yRkJ9m3s7Yt1lGq7bVZ6cW8d0sJc1n2aF3hK5pP6qR7.';
const BROKEN_SUDOERS = '/etc/sudoers.d/zz-airlock-broken';
const BROKEN_SSHD = '/etc/ssh/sshd_config.d/zz-airlock-broken.conf';
const SSH_OPTIONS = ['-i', KEY, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'ConnectTimeout=10'];

const out = (r: ResultEnvelope) => r.output.join('\n');

async function must(box: SandboxView, program: string, args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function until(what: string, probe: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The fields of `name`'s line in a colon-separated account file. */
async function entry(box: SandboxView, path: string, name: string): Promise<string[]> {
  const line = ((await box.readFile(path)) ?? '').split('\n').find((l) => l.startsWith(`${name}:`));
  assert.ok(line, `${name} is not in ${path}`);
  return line.split(':');
}

/** `chage --list` of the user, label -> value. */
async function chageList(box: SandboxView): Promise<Map<string, string>> {
  const text = await must(box, '/usr/bin/chage', ['--list', '--iso8601', '--', USER]);
  return new Map(text.split('\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]));
}

/** key=value lines (timedatectl show). */
const keyValues = (lines: string[]) => new Map(lines.filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

/** The test user's login in `who --heading --users` output: terminal and login process. */
function whoLine(lines: string[]): { tty: string; pid: string } {
  const m = lines.map((l) => new RegExp(`^${USER}\\s+(pts/\\d+)\\s+\\S+ \\S+\\s+\\S+\\s+(\\d+) \\(127\\.0\\.0\\.1\\)$`).exec(l)).find(Boolean);
  assert.ok(m, `no login of ${USER} from 127.0.0.1 in:\n${lines.join('\n')}`);
  return { tty: m[1]!, pid: m[2]! };
}

/** A test user who can log in with a key, then a terminal login that stays open (ssh -tt ... sleep) until its unit stops. */
async function openSshSession(box: SandboxView): Promise<void> {
  await must(box, '/usr/sbin/useradd', ['-m', '-s', '/bin/bash', '--', USER]);
  await must(box, '/usr/sbin/usermod', ['-p', FAKE_HASH, '--', USER]);
  await must(box, '/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', KEY]);
  await must(box, '/usr/bin/mkdir', ['-p', '-m', '0755', `/home/${USER}/.ssh`]);
  await must(box, '/usr/bin/cp', [`${KEY}.pub`, `/home/${USER}/.ssh/authorized_keys`]);
  await must(box, '/usr/bin/systemd-run', [`--unit=${SESSION_UNIT}`, '--quiet', '--', '/usr/bin/ssh', '-tt', ...SSH_OPTIONS, `${USER}@127.0.0.1`, 'sleep', '600']);
  await until(`${USER}'s SSH login in utmp`, async () => (await must(box, '/usr/bin/who', [])).split('\n').some((l) => l.startsWith(`${USER} `)));
}

let hostnameBefore = '';

export const scenarios: Scenario[] = [
  {
    action: 'ListSessions',
    params: {},
    setup: openSshSession,
    check: async (box, r) => {
      assert.match(r.output[0] ?? '', /^NAME\s+LINE\s+TIME\s+IDLE\s+PID\s+COMMENT$/);
      assert.deepEqual(whoLine(r.output), whoLine((await must(box, '/usr/bin/who', ['--heading', '--users'])).split('\n')));
    },
  },
  {
    action: 'ListSshSessions',
    params: {},
    check: async (box, r) => {
      // The user's own sshd process, seen from outside: "sshd: acctuser@pts/N".
      const procs = await must(box, '/usr/bin/ps', ['-C', 'sshd', '-o', 'pid=,args=']);
      const pid = /^\s*(\d+) sshd: acctuser@pts\/\d+$/m.exec(procs)?.[1];
      assert.ok(pid, `no sshd process serving ${USER}:\n${procs}`);
      const conn = r.output.find((l) => /^\d+\s+\d+\s+127\.0\.0\.1:22\s+127\.0\.0\.1:\d+\s/.test(l));
      assert.ok(conn, `no established connection to port 22 in:\n${out(r)}`);
      assert.ok(conn.includes(`("sshd",pid=${pid},`), `the connection is not served by sshd ${pid}: ${conn}`);
      assert.ok(!r.output.some((l) => l.includes('(("ssh",')), "the client's side of the connection (local port not 22) is not listed");
      assert.ok(r.output.some((l) => new RegExp(`^\\s*${pid} ${USER}\\s.*sshd: ${USER}@pts/\\d+$`).test(l)), `ps part lacks ${pid}:\n${out(r)}`);
    },
  },
  {
    title: 'one user',
    action: 'LastLogins',
    params: { user: USER },
    check: async (box, r) => {
      assert.deepEqual(r.output, (await must(box, '/usr/bin/lastlog', ['--user', USER])).trimEnd().split('\n'));
      assert.match(out(r), new RegExp(`^${USER}\\s+pts/\\d+\\s+127\\.0\\.0\\.1\\s+\\S`, 'm'));
      assert.equal(r.output.length, 2, 'the heading and one line');
    },
  },
  {
    title: 'every account',
    action: 'LastLogins',
    params: {},
    check: async (box, r) => {
      assert.deepEqual(r.output, (await must(box, '/usr/bin/lastlog', [])).trimEnd().split('\n'));
      assert.match(out(r), /^root\s+\*\*Never logged in\*\*$/m);
      assert.match(out(r), new RegExp(`^${USER}\\s+pts/\\d+\\s+127\\.0\\.0\\.1`, 'm'));
    },
  },
  {
    action: 'ShowPasswordAging',
    params: { user: USER },
    // The session is no longer needed; ending it lets later key logins start from a clean state.
    setup: async (box) => {
      await must(box, '/usr/bin/systemctl', ['stop', SESSION_UNIT]);
    },
    check: async (box, r) => {
      assert.deepEqual(r.output, (await must(box, '/usr/bin/chage', ['--list', '--iso8601', '--', USER])).trimEnd().split('\n'));
      assert.match(out(r), /^Maximum number of days between password change\s+: 99999$/m);
      assert.ok(!out(r).includes('$6$'), 'no hash');
    },
  },
  {
    title: 'all four values',
    action: 'SetPasswordAging',
    params: { user: USER, mindays: 1, maxdays: 90, warndays: 10, inactive: 5 },
    check: async (box) => {
      const f = await entry(box, '/etc/shadow', USER);
      assert.deepEqual(f.slice(3, 7), ['1', '90', '10', '5']);
      assert.equal(f[1], FAKE_HASH, 'the password is untouched');
      const l = await chageList(box);
      assert.equal(l.get('Maximum number of days between password change'), '90');
      assert.equal(l.get('Number of days of warning before password expires'), '10');
    },
  },
  {
    title: 'one value',
    action: 'SetPasswordAging',
    params: { user: USER, maxdays: 120 },
    check: async (box) => assert.deepEqual((await entry(box, '/etc/shadow', USER)).slice(3, 7), ['1', '120', '10', '5']),
  },
  {
    action: 'ForcePasswordChange',
    params: { user: USER },
    setup: async (box) => {
      const r = await box.run('/usr/bin/ssh', [...SSH_OPTIONS, `${USER}@127.0.0.1`, 'true']);
      assert.equal(r.code, 0, `a key login works before: ${r.stderr}`);
    },
    check: async (box) => {
      assert.equal((await entry(box, '/etc/shadow', USER))[2], '0');
      assert.equal((await chageList(box)).get('Last password change'), 'password must be changed');
      // The real effect: a key login without a terminal is refused until the password is changed.
      const r = await box.run('/usr/bin/ssh', [...SSH_OPTIONS, `${USER}@127.0.0.1`, 'true']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Password change required but no TTY available/);
    },
  },
  {
    action: 'SetUserComment',
    params: { user: USER, comment: "Accounts O'Test (scenario)" },
    check: async (box) => {
      assert.equal((await entry(box, '/etc/passwd', USER))[4], "Accounts O'Test (scenario)");
      assert.equal((await must(box, '/usr/bin/getent', ['passwd', USER])).split(':')[4], "Accounts O'Test (scenario)");
    },
  },
  {
    title: 'cleared',
    action: 'SetUserComment',
    params: { user: USER, comment: '' },
    check: async (box) => assert.equal((await entry(box, '/etc/passwd', USER))[4], ''),
  },
  {
    action: 'ValidateSudoers',
    params: {},
    check: async (box, r) => {
      assert.deepEqual(r.output, (await must(box, '/usr/sbin/visudo', ['--check'])).trimEnd().split('\n'));
      assert.ok(r.output.includes('/etc/sudoers: parsed OK'), out(r));
    },
  },
  {
    title: 'a broken drop-in',
    action: 'ValidateSudoers',
    params: {},
    expect: 'Failed',
    setup: async (box) => {
      await box.writeFile!(BROKEN_SUDOERS, 'this is not sudoers\n');
      await must(box, '/usr/bin/chmod', ['0440', '--', BROKEN_SUDOERS]);
    },
    check: async (box, r) => {
      assert.equal(r.error?.code, 'command_failed');
      assert.match(r.error?.message ?? '', /visudo exited with status 1/);
      assert.equal((await box.run('/usr/sbin/visudo', ['--check'])).code, 1, 'visudo rejects it from outside too');
      await must(box, '/usr/bin/rm', ['--', BROKEN_SUDOERS]);
    },
  },
  {
    action: 'TestSshdConfig',
    params: {},
    check: async (box, r) => {
      assert.deepEqual(r.output, []);
      assert.equal((await box.run('/usr/sbin/sshd', ['-t'])).code, 0);
    },
  },
  {
    title: 'a broken drop-in',
    action: 'TestSshdConfig',
    params: {},
    expect: 'Failed',
    setup: async (box) => box.writeFile!(BROKEN_SSHD, 'NoSuchOption yes\n'),
    check: async (box, r) => {
      assert.match(r.error?.message ?? '', /sshd exited with status 255: .*zz-airlock-broken\.conf/);
      const outside = await box.run('/usr/sbin/sshd', ['-t']);
      assert.equal(outside.code, 255);
      assert.match(outside.stderr, /Bad configuration option: NoSuchOption/);
      await must(box, '/usr/bin/rm', ['--', BROKEN_SSHD]);
    },
  },
  {
    action: 'TimeStatus',
    params: {},
    check: async (box, r) => {
      const mine = keyValues(r.output);
      const theirs = keyValues((await must(box, '/usr/bin/timedatectl', ['show'])).split('\n'));
      for (const k of ['Timezone', 'LocalRTC', 'CanNTP', 'NTP', 'NTPSynchronized']) assert.equal(mine.get(k), theirs.get(k), k);
      assert.equal(mine.get('Timezone'), (await must(box, '/usr/bin/readlink', ['--', '/etc/localtime'])).trim().replace(/^.*zoneinfo\//, ''));
      assert.ok(mine.has('TimeUSec'), out(r));
    },
  },
  {
    action: 'SetPrettyHostname',
    params: { pretty: "Airlock's test bed" },
    setup: async (box) => {
      hostnameBefore = await must(box, '/usr/bin/hostnamectl', ['--static', 'status']);
    },
    check: async (box) => {
      assert.equal(await box.readFile('/etc/machine-info'), `PRETTY_HOSTNAME="Airlock's test bed"\n`);
      assert.equal(await must(box, '/usr/bin/hostnamectl', ['--pretty', 'status']), "Airlock's test bed\n");
      assert.equal(await must(box, '/usr/bin/hostnamectl', ['--static', 'status']), hostnameBefore, 'the host name itself is unchanged');
    },
  },
  {
    title: 'renamed again',
    action: 'SetPrettyHostname',
    params: { pretty: 'Accounts box 2' },
    check: async (box) => {
      assert.equal(await box.readFile('/etc/machine-info'), 'PRETTY_HOSTNAME="Accounts box 2"\n');
      assert.equal(await must(box, '/usr/bin/hostnamectl', ['--pretty', 'status']), 'Accounts box 2\n');
    },
  },
];
