/**
 * The README's server install and approval flow, as a new user follows it, on the booted
 * Debian test bed: `airlock install` (the real systemd unit, the real socket), a person
 * added to the groups and enrolling their own factor at their terminal, then both layouts:
 * an agent under an account of its own whose High request the person approves as
 * themselves, and an agent under the person's own account, whose request needs the
 * person's code. No sudo anywhere in the approval.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorld, type World } from '../support/world.js';
import { typeAt } from '../support/terminal.js';
import { Authenticator } from '../../src/sandbox/authenticator.js';
import type { PreviewEnvelope, ResultEnvelope } from '../../src/protocol/messages.js';

const PROJECT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d laptop';
let w: World;
const phone = new Authenticator();

before(async () => {
  w = await startWorld([], 'testbed');
});
after(() => w?.close());

const inside = () => ['/usr/bin/nsenter', '-t', String(w.d.box.pid), '-a', '--'];
/** A command as root in the test bed, failing loudly. */
async function root(program: string, args: string[]): Promise<string> {
  const r = await w.d.box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}
/** `airlock ARGS` as `user`, with the groups /etc/group gives them now (a fresh login), no terminal. */
async function as(user: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return w.d.box.run('/usr/bin/setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', '/usr/local/bin/airlock', ...args]);
}
/** `airlock ARGS` typed by `user` at a terminal (with the groups of a fresh login). */
const atTerminal = (user: string, args: string, answers: Parameters<typeof typeAt>[1]) =>
  typeAt(`/usr/bin/setpriv --reuid=${user} --regid=${user} --init-groups -- /usr/local/bin/airlock ${args}`, answers, { via: inside() });

test('install, enrol, and both layouts, as the README says', async () => {
  // sudo git clone ... /opt/airlock && sudo npm install: the test bed has no network, so this checkout, built, is copied there.
  await root('/usr/bin/cp', ['-a', '--', PROJECT, '/opt/airlock']);
  // sudo ./bin/airlock.js install; sudo ln -s /opt/airlock/bin/airlock.js /usr/local/bin/airlock
  const installed = await w.d.box.run('/usr/bin/sudo', ['-n', '/opt/airlock/bin/airlock.js', 'install']);
  assert.equal(installed.code, 0, installed.stderr + installed.stdout);
  await root('/usr/bin/ln', ['-sf', '/opt/airlock/bin/airlock.js', '/usr/local/bin/airlock']);
  // The unit is started; its daemon opens the socket once its keys and store exist.
  for (let i = 0; i < 300 && (await w.d.box.run('/usr/bin/test', ['-S', '/run/airlock/airlock.sock'])).code !== 0; i++) await new Promise((r) => setTimeout(r, 100));
  const status = await w.d.box.run('/usr/bin/systemctl', ['is-active', 'airlock']);
  assert.equal(status.stdout.trim(), 'active', (await w.d.box.run('/usr/bin/journalctl', ['-u', 'airlock', '--no-pager', '-n', '30'])).stdout);

  // sudo usermod -aG airlock-admin,airlock-approvers you; then, as yourself: airlock totp enroll
  await root('/usr/sbin/useradd', ['-m', '--', 'alice']);
  await root('/usr/sbin/usermod', ['-aG', 'airlock-admin,airlock-approvers', '--', 'alice']);
  const enrolled = await atTerminal('alice', 'totp enroll', [
    [
      'First code from the app',
      async (tty) => {
        phone.add('alice', /secret {2}([A-Z2-7]{32})/.exec(tty)![1]!);
        return phone.code('alice');
      },
    ],
  ]);
  assert.equal(enrolled.code, 0, enrolled.out);
  const doctor = await as('alice', ['doctor']);
  assert.match(doctor.stdout + doctor.stderr, /role admin, approver/);

  // Layout 1: the agent under an account of its own, asking for a High change.
  await root('/usr/sbin/useradd', ['-m', '--', 'agent']);
  await root('/usr/sbin/usermod', ['-aG', 'airlock-admin', '--', 'agent']);
  await root('/usr/sbin/useradd', ['-m', '--', 'deploy']);
  const p = JSON.parse((await as('agent', ['preview', 'AddAuthorizedKey', '--param', 'user=deploy', '--param', `key=${KEY}`, '--json'])).stdout) as PreviewEnvelope;
  assert.equal(p.risk, 'high');
  const approved = await atTerminal('alice', `approve ${p.transaction_id}`, [
    ['Code from your authenticator app', () => phone.code('alice')],
    ['Type the action name', 'AddAuthorizedKey'],
  ]);
  assert.equal(approved.code, 0, approved.out);
  assert.doesNotMatch(approved.out, /sudo/);
  const receipt = /receipt (alr1\.[A-Za-z0-9_-]+)/.exec(approved.out)![1]!;
  const r = JSON.parse((await as('agent', ['execute', p.transaction_id, '--receipt', receipt, '--json'])).stdout) as ResultEnvelope;
  assert.equal(r.state, 'Succeeded');
  assert.match((await w.d.box.readFile('/home/deploy/.ssh/authorized_keys'))!, /laptop/);

  // Layout 2: the agent under alice's own account. Her own request: her code at any risk.
  const own = JSON.parse((await as('alice', ['preview', 'CreateGroup', '--param', 'group=web', '--json'])).stdout) as PreviewEnvelope;
  assert.equal(own.risk, 'medium');
  const self = await atTerminal('alice', `approve ${own.transaction_id}`, [
    ['Code from your authenticator app', () => phone.code('alice')],
    ['Approve CreateGroup', 'y'],
  ]);
  assert.equal(self.code, 0, self.out);
  assert.match(self.out, /requested under your own account/);
  const ownReceipt = /receipt (alr1\.[A-Za-z0-9_-]+)/.exec(self.out)![1]!;
  const r2 = JSON.parse((await as('alice', ['execute', own.transaction_id, '--receipt', ownReceipt, '--json'])).stdout) as ResultEnvelope;
  assert.equal(r2.state, 'Succeeded');
  assert.match((await w.d.box.readFile('/etc/group'))!, /^web:/m);

  // The agent's own attempt at the same kind of approval, without the code, is refused at once.
  const again = JSON.parse((await as('alice', ['preview', 'CreateGroup', '--param', 'group=web2', '--json'])).stdout) as PreviewEnvelope;
  const noCode = await as('alice', ['approve', again.transaction_id]);
  assert.equal(noCode.code, 3, noCode.stderr);
  const history = await as('alice', ['history', '--json']);
  assert.ok((JSON.parse(history.stdout) as Array<{ approved_by: string | null }>).some((t) => /^alice\(uid \d+\)$/.test(t.approved_by ?? '')));
});
