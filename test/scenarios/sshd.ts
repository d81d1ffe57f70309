/**
 * ssh server options (family ssh, file sshd.ts), in the booted Debian test bed with
 * openssh-server running: options are set and reset in Airlock's drop-in, each checked
 * from outside the daemon with the drop-in's bytes, `sshd -T` (the value in force), the
 * state of ssh.service and, for PasswordAuthentication, a real SSH connection whose
 * refusal lists the methods the RUNNING server offers (so the reload really happened).
 * A change sshd -t rejects is rolled back.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const DROPIN = '/etc/ssh/sshd_config.d/60-airlock.conf';
const EARLY = '/etc/ssh/sshd_config.d/10-auth.conf';
const HEADER =
  '# Managed by Airlock (SetSshdOption, ResetSshdOption): one line per option.\n# sshd reads this through the Include at the top of /etc/ssh/sshd_config and keeps the first value it reads.\n';

/** `sshd -T` run from outside the daemon: keyword -> values. */
async function inForce(box: SandboxView, key: string): Promise<string[]> {
  const r = await box.run('/usr/sbin/sshd', ['-T']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith(`${key} `))
    .map((l) => l.slice(key.length + 1));
}
async function sshActive(box: SandboxView): Promise<void> {
  assert.equal((await box.run('/usr/bin/systemctl', ['is-active', 'ssh.service'])).stdout.trim(), 'active');
}
const mainPid = async (box: SandboxView) => (await box.run('/usr/bin/systemctl', ['show', '-p', 'MainPID', '--value', 'ssh.service'])).stdout.trim();
/** The methods the running sshd offers, from a connection that cannot authenticate: "publickey,password". */
async function offeredMethods(box: SandboxView): Promise<string> {
  const r = await box.run('/usr/bin/ssh', ['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'ConnectTimeout=10', 'nobody@127.0.0.1', 'true']);
  const m = /Permission denied \(([^)]*)\)/.exec(r.stderr);
  assert.ok(m, `no refusal from sshd: ${r.stderr}`);
  return m[1]!;
}

let pid = '';

export const scenarios: Scenario[] = [
  {
    action: 'ShowSshdConfig',
    params: {},
    check: async (box, r) => {
      const mine = (await box.run('/usr/sbin/sshd', ['-T'])).stdout.trim().split('\n');
      assert.deepEqual(r.output, mine, 'exactly what sshd -T prints');
      assert.ok(r.output.includes('passwordauthentication yes'));
      assert.ok(r.output.includes('permitrootlogin without-password'));
      assert.ok(r.output.includes('hostkey /etc/ssh/ssh_host_ed25519_key'), 'host keys are named by path');
      assert.ok(!r.output.some((l) => /PRIVATE KEY|^-----|AAAA[A-Za-z0-9+/]{20}/.test(l)), 'no key material');
      assert.equal(await offeredMethods(box), 'publickey,password');
      pid = await mainPid(box);
    },
  },
  {
    action: 'SetSshdOption',
    params: { option: 'PasswordAuthentication', value: 'no' },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), `${HEADER}PasswordAuthentication no\n`);
      assert.deepEqual(await inForce(box, 'passwordauthentication'), ['no']);
      await sshActive(box);
      assert.equal(await mainPid(box), pid, 'reloaded, not restarted');
      assert.equal(await offeredMethods(box), 'publickey', 'the running server no longer offers passwords');
      const perms = (await box.run('/usr/bin/stat', ['-c', '%a %U:%G', '--', DROPIN])).stdout.trim();
      assert.equal(perms, '644 root:root');
    },
  },
  {
    title: 'a number, added as a second line',
    action: 'SetSshdOption',
    params: { option: 'MaxAuthTries', value: 3 },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), `${HEADER}PasswordAuthentication no\nMaxAuthTries 3\n`);
      assert.deepEqual(await inForce(box, 'maxauthtries'), ['3']);
      assert.deepEqual(await inForce(box, 'passwordauthentication'), ['no']);
      await sshActive(box);
    },
  },
  {
    title: 'over a value the main file sets after its Include',
    action: 'SetSshdOption',
    params: { option: 'X11Forwarding', value: 'no' },
    check: async (box) => {
      assert.match((await box.readFile('/etc/ssh/sshd_config'))!, /^X11Forwarding yes$/m, 'the main file still says yes');
      assert.deepEqual(await inForce(box, 'x11forwarding'), ['no'], 'the drop-in is read first and wins');
      await sshActive(box);
    },
  },
  {
    title: 'a list of users',
    action: 'SetSshdOption',
    params: { option: 'AllowUsers', value: ['alice', 'agent', 'nobody'] },
    check: async (box) => {
      assert.match((await box.readFile(DROPIN))!, /^AllowUsers alice agent nobody$/m);
      assert.deepEqual(await inForce(box, 'allowusers'), ['alice', 'agent', 'nobody']);
      await sshActive(box);
    },
  },
  {
    title: 'replacing its own line in place',
    action: 'SetSshdOption',
    params: { option: 'MaxAuthTries', value: 5 },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), `${HEADER}PasswordAuthentication no\nMaxAuthTries 5\nX11Forwarding no\nAllowUsers alice agent nobody\n`);
      assert.deepEqual(await inForce(box, 'maxauthtries'), ['5']);
    },
  },
  {
    title: 'a value sshd -t rejects in this configuration is rolled back',
    action: 'SetSshdOption',
    params: { option: 'PubkeyAuthentication', value: 'no' },
    expect: 'RolledBack',
    setup: async (box) => {
      // Valid now; with public keys disabled it names no usable method, and sshd -t refuses it.
      assert.ok(box.writeFile);
      await box.writeFile(EARLY, 'AuthenticationMethods publickey\n');
      assert.equal((await box.run('/usr/sbin/sshd', ['-t'])).code, 0);
    },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), `${HEADER}PasswordAuthentication no\nMaxAuthTries 5\nX11Forwarding no\nAllowUsers alice agent nobody\n`, 'the drop-in is back as it was');
      assert.deepEqual(await inForce(box, 'pubkeyauthentication'), ['yes']);
      await sshActive(box);
      assert.equal(await mainPid(box), pid);
    },
  },
  {
    action: 'ResetSshdOption',
    params: { option: 'PasswordAuthentication' },
    setup: async (box) => {
      assert.equal((await box.run('/usr/bin/rm', ['-f', '--', EARLY])).code, 0);
    },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), `${HEADER}MaxAuthTries 5\nX11Forwarding no\nAllowUsers alice agent nobody\n`);
      assert.deepEqual(await inForce(box, 'passwordauthentication'), ['yes'], "back to sshd's default");
      await sshActive(box);
      assert.equal(await offeredMethods(box), 'publickey,password', 'the running server offers passwords again');
    },
  },
  {
    title: 'AllowUsers',
    action: 'ResetSshdOption',
    params: { option: 'AllowUsers' },
    check: async (box) => {
      assert.doesNotMatch((await box.readFile(DROPIN))!, /AllowUsers/);
      assert.deepEqual(await inForce(box, 'allowusers'), []);
    },
  },
  {
    title: 'MaxAuthTries',
    action: 'ResetSshdOption',
    params: { option: 'MaxAuthTries' },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), `${HEADER}X11Forwarding no\n`);
      assert.deepEqual(await inForce(box, 'maxauthtries'), ['6']);
    },
  },
  {
    title: 'the last option deletes the drop-in',
    action: 'ResetSshdOption',
    params: { option: 'X11Forwarding' },
    check: async (box) => {
      assert.equal(await box.readFile(DROPIN), null);
      assert.deepEqual(await inForce(box, 'x11forwarding'), ['yes'], 'the main file applies again');
      await sshActive(box);
      assert.equal(await mainPid(box), pid, 'every change was a reload');
    },
  },
];
