/**
 * `airlock install`, `doctor` and `uninstall` on the booted Debian test bed, as root would
 * run them from a checkout in /opt/airlock: the real systemd unit, tmpfiles entry and socket,
 * people as real Unix users. It covers the example policy (and that an existing one is kept),
 * one mode for the log directory wherever it is set, a reboot's `systemd-tmpfiles --create`
 * followed by a restart, stale session groups in role errors and doctor, doctor's checks
 * with their fixes, the completions and man page, and `uninstall --purge` (refused without a
 * terminal or --yes, asking at one, and removing an append-only checkpoint file).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { checkoutCopy } from '../support/checkout-copy.js';
import { typeAt } from '../support/terminal.js';
import { Authenticator } from '../../src/sandbox/authenticator.js';
import { EXAMPLE_POLICY } from '../../src/cli/example-policy.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';

const AIRLOCK = '/usr/local/bin/airlock';
let w: World;
const phone = new Authenticator();

before(async () => {
  w = await startWorld([], 'testbed');
});
after(() => w?.close());

const inside = () => ['/usr/bin/nsenter', '-t', String(w.d.box.pid), '-a', '--'];
const box = () => w.d.box;
/** A command as root in the test bed, failing loudly. */
async function root(program: string, args: string[]): Promise<string> {
  const r = await box().run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}
/** `airlock ARGS` as `user` with the groups of a fresh login. */
const as = (user: string, args: string[]) => box().run('/usr/bin/setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', AIRLOCK, ...args]);
const mode = async (path: string) => (await root('/usr/bin/stat', ['-c', '%a', '--', path])).trim();
const exists = async (path: string) => (await box().run('/usr/bin/test', ['-e', path])).code === 0;
interface DoctorCheck { name: string; ok: boolean; detail: string; fix?: string }
async function doctor(user: string): Promise<{ code: number; checks: Map<string, DoctorCheck> }> {
  const r = await as(user, ['doctor', '--json']);
  const checks = (JSON.parse(r.stdout) as { checks: DoctorCheck[] }).checks;
  // A fix is shown beside a failing check only.
  for (const c of checks) assert.equal(c.fix === undefined, c.ok, `${c.name}: ${JSON.stringify(c)}`);
  return { code: r.code, checks: new Map(checks.map((c) => [c.name, c])) };
}
async function waitForSocket(): Promise<void> {
  for (let i = 0; i < 300 && (await box().run('/usr/bin/test', ['-S', '/run/airlock/airlock.sock'])).code !== 0; i++) await new Promise((r) => setTimeout(r, 100));
  const status = await box().run('/usr/bin/systemctl', ['is-active', 'airlock']);
  assert.equal(status.stdout.trim(), 'active', (await box().run('/usr/bin/journalctl', ['-u', 'airlock', '--no-pager', '-n', '30'])).stdout);
}

test('install: policy, one log-directory mode, completions, man page; a reboot’s tmpfiles and a restart change nothing that works', async () => {
  for (const [program, args] of checkoutCopy('/opt/airlock')) await root(program, args);
  // Code others can change would run as root at the daemon's next start: refused, nothing written.
  for (const [how, path, fix] of [['g+w', '/opt/airlock/node_modules', 'g-w'], ['o+w', '/opt', 'o-w']] as const) {
    await root('/usr/bin/chmod', [how, '--', path]);
    const refused = await box().run('/opt/airlock/bin/airlock.js', ['install']);
    await root('/usr/bin/chmod', [fix, '--', path]);
    assert.equal(refused.code, 3, refused.stderr + refused.stdout);
    assert.match(refused.stderr, new RegExp(`untrusted_code[\\s\\S]*${path} is writable by its group or by others`));
    assert.equal(await exists('/etc/systemd/system/airlock.service'), false, 'nothing installed');
  }
  await root('/usr/sbin/useradd', ['-m', '--', 'owner']);
  await root('/usr/bin/chown', ['owner', '--', '/opt/airlock/bin/airlock.js']);
  const owned = await box().run('/opt/airlock/bin/airlock.js', ['install']);
  await root('/usr/bin/chown', ['root', '--', '/opt/airlock/bin/airlock.js']);
  assert.equal(owned.code, 3, owned.stderr);
  assert.match(owned.stderr, /\/opt\/airlock\/bin\/airlock\.js is owned by uid \d+, not root/);
  // Deep in the tree the daemon loads: its compiled entry point (the sources where nothing is built) owned by
  // another account, a module deep in node_modules anyone can write. Each refused, with the fix for its tree.
  const entry = (await exists('/opt/airlock/dist/daemon/entry.js')) ? '/opt/airlock/dist/daemon/entry.js' : '/opt/airlock/src/daemon/entry.ts';
  const deep = '/opt/airlock/node_modules/commander/lib/command.js';
  for (const [change, undo, path, why, tree] of [
    [['/usr/bin/chown', 'owner', '--', entry], ['/usr/bin/chown', 'root', '--', entry], entry, /owned by uid \d+, not root/, entry.split('/').slice(0, 4).join('/')],
    [['/usr/bin/chmod', '666', '--', deep], ['/usr/bin/chmod', '644', '--', deep], deep, /writable by its group or by others \(mode 666\)/, '/opt/airlock/node_modules'],
  ] as const) {
    await root(change[0], change.slice(1));
    const refused = await box().run('/opt/airlock/bin/airlock.js', ['install', '--json']);
    await root(undo[0], undo.slice(1));
    assert.equal(refused.code, 3, refused.stderr + refused.stdout);
    const error = (JSON.parse(refused.stdout) as { error: { code: string; message: string; hint: string } }).error;
    assert.equal(error.code, 'untrusted_code');
    assert.match(error.message, new RegExp(`${path.replaceAll('.', '\\.')} is ${why.source}`));
    assert.ok(error.hint.startsWith(`as root: chown -R root:root ${tree}; chmod -R go-w ${tree}`), error.hint);
    assert.equal(await exists('/etc/systemd/system/airlock.service'), false, 'nothing installed');
  }
  const installed = await box().run('/opt/airlock/bin/airlock.js', ['install']);
  assert.equal(installed.code, 0, installed.stderr + installed.stdout);
  await root('/usr/bin/ln', ['-sf', '/opt/airlock/bin/airlock.js', AIRLOCK]);
  await waitForSocket();

  // The example policy: written once, read by the daemon as the defaults, never overwritten.
  assert.equal(await box().readFile('/etc/airlock/policy.toml'), EXAMPLE_POLICY);
  assert.match(installed.stdout, /wrote \/etc\/airlock\/policy\.toml/);
  const check = await box().run(AIRLOCK, ['policy', 'check', '--file', '/etc/airlock/policy.toml']);
  assert.equal(check.code, 0, check.stderr + check.stdout);
  writeFileSync(`/proc/${box().pid}/root/etc/airlock/policy.toml`, `${EXAMPLE_POLICY}# edited by root\n`);
  const again = await box().run(AIRLOCK, ['install', '--no-start']);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /kept the policy \/etc\/airlock\/policy\.toml/);
  assert.match((await box().readFile('/etc/airlock/policy.toml'))!, /# edited by root\n$/);

  // One mode for the log directory: the unit, the tmpfiles entry, install's output and the directory agree.
  assert.match((await box().readFile('/etc/systemd/system/airlock.service'))!, /^LogsDirectoryMode=0755$/m);
  assert.match((await box().readFile('/etc/tmpfiles.d/airlock.conf'))!, /^d \/var\/log\/airlock 0755 root root -$/m);
  assert.match(installed.stdout, /directory \/var\/log\/airlock \(0755\)/);
  assert.equal(await mode('/var/log/airlock'), '755');
  assert.equal(await mode('/var/lib/airlock'), '700');

  // Completions and the man page, where the shells and man look for them.
  const bash = await box().run('/bin/bash', ['-c', 'source /usr/share/bash-completion/completions/airlock && complete -p airlock']);
  assert.equal(bash.stdout.trim(), 'complete -F _airlock airlock', bash.stderr);
  for (const f of ['/usr/share/zsh/vendor-completions/_airlock', '/usr/share/fish/vendor_completions.d/airlock.fish', '/usr/local/share/man/man1/airlock.1']) assert.ok(await exists(f), f);
  assert.match((await box().readFile('/usr/local/share/man/man1/airlock.1'))!, /^\.TH AIRLOCK 1/);

  // A person, their factor, and a change: it works before the reboot's tmpfiles run...
  await root('/usr/sbin/useradd', ['-m', '--', 'alice']);
  await root('/usr/sbin/usermod', ['-aG', 'airlock-admin,airlock-approvers', '--', 'alice']);
  // alice is the host's first approver: from her own account (where an agent may run as her)
  // no factor is enrolled; through sudo in her login session, at the installing terminal, it is.
  const fromAccount = await typeAt(`/usr/bin/setpriv --reuid=alice --regid=alice --init-groups -- ${AIRLOCK} totp enroll`, [], { via: inside() });
  assert.notEqual(fromAccount.code, 0, fromAccount.out);
  assert.match(fromAccount.out, /first one is enrolled only through sudo[\s\S]*sudo airlock totp enroll/);
  writeFileSync(`/proc/${box().pid}/root/etc/sudoers.d/airlock-test`, 'alice ALL=(root) NOPASSWD: ALL\n', { mode: 0o440 });
  const loginSudo = [...inside(), '/usr/bin/systemd-run', '--quiet', '--pipe', '--wait', '--collect', '-p', 'PAMName=login', '--uid=alice', '--', '/usr/bin/sudo', '-n', '--'];
  const enrolled = await typeAt(`${AIRLOCK} totp enroll`, [
    ['First code from the app', async (tty) => (phone.add('alice', /secret {2}([A-Z2-7]{32})/.exec(tty)![1]!), phone.code('alice'))],
  ], { via: loginSudo });
  assert.equal(enrolled.code, 0, enrolled.out);
  assert.match(enrolled.out, /enrolled\S* alice\(uid \d+\)/);
  const createGroup = async (group: string) => {
    const p = JSON.parse((await as('alice', ['preview', 'CreateGroup', '--param', `group=${group}`, '--json'])).stdout) as PreviewEnvelope;
    const ok = await typeAt(`/usr/bin/setpriv --reuid=alice --regid=alice --init-groups -- ${AIRLOCK} approve ${p.transaction_id}`, [
      ['Code from your authenticator app', () => phone.code('alice')],
      ['Approve CreateGroup', 'y'],
    ], { via: inside() });
    assert.equal(ok.code, 0, ok.out);
    const receipt = /receipt (alr1\.[A-Za-z0-9_-]+)/.exec(ok.out)![1]!;
    const r = await as('alice', ['execute', p.transaction_id, '--receipt', receipt, '--json']);
    assert.equal(JSON.parse(r.stdout).state, 'Succeeded', r.stderr + r.stdout);
  };
  await createGroup('web');

  // ...and after it: tmpfiles applies its modes, the daemon restarts on the same directories.
  await root('/usr/bin/systemd-tmpfiles', ['--create']);
  assert.equal(await mode('/var/log/airlock'), '755');
  await root('/usr/bin/systemctl', ['restart', 'airlock']);
  await waitForSocket();
  await createGroup('web2');
  // An auditor without root still reads the checkpoints, and the log verifies.
  await root('/usr/sbin/useradd', ['-M', '--', 'auditor']);
  const cp = await box().run('/usr/bin/setpriv', ['--reuid=auditor', '--regid=auditor', '--init-groups', '--', '/usr/bin/cat', '/var/log/airlock/checkpoints.log']);
  assert.equal(cp.code, 0, cp.stderr);
  const verified = await box().run(AIRLOCK, ['audit', 'verify', '--pubkey', '/var/lib/airlock/audit.pub', '--json']);
  assert.equal(verified.code, 0, verified.stderr + verified.stdout);
  assert.equal(JSON.parse(verified.stdout).status, 'intact');
});

test('a session older than its groups: role errors and doctor say to log in again', async () => {
  await root('/usr/sbin/useradd', ['-m', '-G', 'airlock-observer', '--', 'carol']);
  await root('/usr/sbin/useradd', ['-m', '--', 'dave']);
  // Sessions that begin now, with the groups of now; the CLI runs in them once the groups changed.
  const later = (user: string, args: string[]) => box().run('/usr/bin/setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', '/bin/sh', '-c', `sleep 4; exec ${AIRLOCK} "$@"`, 'sh', ...args]);
  const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d laptop';
  const tooLow = later('carol', ['preview', 'AddAuthorizedKey', '--param', 'user=carol', '--param', `key=${KEY}`]);
  const noRole = later('dave', ['history']);
  const staleDoctor = later('carol', ['doctor', '--json']);
  await root('/usr/sbin/usermod', ['-aG', 'airlock-admin', '--', 'carol']);
  await root('/usr/sbin/usermod', ['-aG', 'airlock-dev', '--', 'dave']);
  const low = await tooLow;
  assert.equal(low.code, 3, low.stderr);
  assert.match(low.stderr, /role_too_low/);
  assert.match(low.stderr, /you were added to airlock-admin after this session began: log in again \(or `newgrp airlock-admin`, or `su - carol`\)/);
  const none = await noRole;
  assert.equal(none.code, 3, none.stderr);
  assert.match(none.stderr, /no_role/);
  assert.match(none.stderr, /you were added to airlock-dev after this session began: log in again/);
  const d = JSON.parse((await staleDoctor).stdout) as { checks: DoctorCheck[] };
  const session = d.checks.find((c) => c.name === 'session groups')!;
  assert.equal(session.ok, false);
  assert.match(session.fix!, /you were added to airlock-admin after this session began: log in again/);
  // A new login has the groups, and the same commands pass.
  const fresh = await as('dave', ['history']);
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal((await doctor('carol')).checks.get('session groups')!.ok, true);
});

test('doctor: approvers, second factors, the policy file, the checkpoint sink, the store and the log, each fix beside its failure', async () => {
  await root('/usr/sbin/useradd', ['-m', '-G', 'airlock-dev', '--', 'erin']);
  let d = await doctor('erin');
  assert.equal(d.checks.get('daemon')!.ok, true);
  assert.equal(d.checks.get('approvers')!.ok, true, JSON.stringify(d.checks.get('approvers')));
  assert.equal(d.checks.get('second factors')!.ok, true);
  assert.equal(d.checks.get('policy file')!.ok, true);
  assert.equal(d.checks.get('store')!.ok, true);
  assert.match(d.checks.get('store')!.detail, /its consistency check is for approvers and admins/);
  assert.match(d.checks.get('audit log')!.detail, /^intact: \d+ entries/);
  // An approver's doctor runs the store's own check too.
  const alice = await doctor('alice');
  assert.equal(alice.checks.get('store')!.detail, 'opens, serves the log, and passes its consistency check (quick_check)');
  assert.equal(alice.checks.get('second factors')!.ok, true);
  // An approver without a factor, then a policy file others may write: each fails with its fix, and doctor exits 1.
  await root('/usr/sbin/usermod', ['-aG', 'airlock-approvers', '--', 'carol']);
  await root('/usr/bin/chmod', ['666', '/etc/airlock/policy.toml']);
  d = await doctor('erin');
  assert.equal(d.code, 1);
  assert.equal(d.checks.get('second factors')!.ok, false);
  assert.match(d.checks.get('second factors')!.detail, /^carol has no second factor/);
  assert.match(d.checks.get('second factors')!.fix!, /airlock totp enroll/);
  assert.equal(d.checks.get('policy file')!.ok, false);
  assert.match(d.checks.get('policy file')!.fix!, /chmod go-w \/etc\/airlock\/policy\.toml/);
  await root('/usr/bin/chmod', ['644', '/etc/airlock/policy.toml']);
  // A module deep in node_modules that anyone can write: the daemon would load it as root at its next start.
  assert.equal(d.checks.get('daemon code')!.ok, true, d.checks.get('daemon code')!.detail);
  await root('/usr/bin/chmod', ['666', '/opt/airlock/node_modules/commander/lib/help.js']);
  const code = (await doctor('erin')).checks.get('daemon code')!;
  await root('/usr/bin/chmod', ['644', '/opt/airlock/node_modules/commander/lib/help.js']);
  assert.equal(code.ok, false);
  assert.match(code.detail, /\/opt\/airlock\/node_modules\/commander\/lib\/help\.js is writable by its group or by others \(mode 666\)/);
  assert.equal(code.fix, 'as root: chown -R root:root /opt/airlock/node_modules; chmod -R go-w /opt/airlock/node_modules');
  await root('/usr/bin/gpasswd', ['-d', 'carol', 'airlock-approvers']);
  // An agent set up under erin's account (setup's MCP entry in her home): fine while she approves nothing...
  const asErin = (args: string[]) => box().run('/usr/bin/setpriv', ['--reuid=erin', '--regid=erin', '--init-groups', '--', '/usr/bin/env', 'HOME=/home/erin', AIRLOCK, ...args]);
  const setup = await asErin(['setup', '--claude', '--user', '--yes']);
  assert.equal(setup.code, 0, setup.stderr + setup.stdout);
  const agentCheck = async () => {
    const r = await asErin(['doctor', '--json']);
    return (JSON.parse(r.stdout) as { checks: DoctorCheck[] }).checks.find((c) => c.name === 'agent account')!;
  };
  let agent = await agentCheck();
  assert.equal(agent.ok, true, agent.detail);
  assert.match(agent.detail, /an agent runs as erin \(~\/\.claude\.json\), which is not an approver/);
  // ...but an approver without a second factor is an account the agent shares with the approver.
  await root('/usr/sbin/usermod', ['-aG', 'airlock-approvers', '--', 'erin']);
  agent = await agentCheck();
  assert.equal(agent.ok, false, agent.detail);
  assert.match(agent.fix!, /airlock totp enroll/);
  await root('/usr/bin/gpasswd', ['-d', 'erin', 'airlock-approvers']);
  // The sink is append-only where the file system allows it, and doctor says which.
  const attrs = (await root('/usr/bin/lsattr', ['--', '/var/log/airlock/checkpoints.log'])).split(' ')[0]!;
  assert.equal(d.checks.get('checkpoint sink')!.ok, attrs.includes('a'));
  // The text output puts "fix" under failing checks only.
  const text = await as('erin', ['doctor']);
  const lines = text.stdout.split('\n');
  lines.forEach((l, i) => {
    if (l.startsWith('  fix')) assert.match(lines[i - 1]!, /^✗ /, text.stdout);
  });
});

test('store.check answers approvers and admins only', async () => {
  const dev = await w.as('frank', ['airlock-dev']);
  await rejectsWith(dev.call('store.check', {}), 'authorization', 'not_an_approver');
  const admin = await w.as('grace', ['airlock-admin']);
  const check = await admin.call('store.check', {});
  assert.deepEqual([check.ok, check.result], [true, ['ok']]);
  assert.equal(check.space?.state, 'ok', 'and the free space of the state directory, judged');
});

test('uninstall --purge lists what it deletes, asks or needs --yes, removes the append-only checkpoints, and says what it leaves', async (t) => {
  const cp = '/var/log/airlock/checkpoints.log';
  await box().run('/usr/bin/chattr', ['+a', '--', cp]); // the daemon sets it already where the file system allows
  const appendOnly = (await root('/usr/bin/lsattr', ['--', cp])).split(' ')[0]!.includes('a');
  t.diagnostic(`the checkpoint file is ${appendOnly ? '' : 'NOT '}append-only on this file system`);
  // Append-only means even root cannot unlink it as it is.
  if (appendOnly) assert.notEqual((await box().run('/usr/bin/rm', ['-f', '--', cp])).code, 0);

  const refused = await box().run(AIRLOCK, ['uninstall', '--purge']);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /no terminal to ask: nothing was removed/);
  for (const f of ['/var/lib/airlock/audit.key', '/var/lib/airlock/airlock.db', cp]) assert.match(refused.stderr, new RegExp(`^  ${f} `, 'm'));
  assert.match(refused.stderr, /^ {2}group airlock-approvers /m);
  assert.ok(await exists('/var/lib/airlock/audit.key'));
  assert.equal((await box().run('/usr/bin/systemctl', ['is-active', 'airlock'])).stdout.trim(), 'active');

  const asJson = await box().run(AIRLOCK, ['uninstall', '--purge', '--json']);
  assert.equal(asJson.code, 2, asJson.stderr);
  assert.equal(JSON.parse(asJson.stdout).error.code, 'not_confirmed');
  assert.ok(await exists('/var/lib/airlock/airlock.db'));

  const declined = await typeAt(`${AIRLOCK} uninstall --purge`, [['[y/N]', 'n']], { via: inside() });
  assert.equal(declined.code, 2, declined.out);
  assert.match(declined.out, /nothing was removed/);
  assert.ok(await exists('/var/lib/airlock/airlock.db'));

  const purged = await typeAt(`${AIRLOCK} uninstall --purge`, [['[y/N]', 'y']], { via: inside() });
  assert.equal(purged.code, 0, purged.out);
  if (appendOnly) assert.match(purged.out, /cleared the append-only attribute of \/var\/log\/airlock\/checkpoints\.log/);
  for (const gone of ['/var/lib/airlock', '/var/log/airlock', '/etc/systemd/system/airlock.service', '/etc/tmpfiles.d/airlock.conf', '/usr/share/bash-completion/completions/airlock', '/usr/local/share/man/man1/airlock.1']) assert.equal(await exists(gone), false, gone);
  assert.notEqual((await box().run('/usr/bin/getent', ['group', 'airlock-admin'])).code, 0);
  // What it leaves, with the command that removes each.
  assert.ok(await exists('/etc/airlock/policy.toml'));
  assert.match(purged.out, /\/etc\/airlock {2}\(the policy and tokens\): sudo rm -r \/etc\/airlock/);
  assert.match(purged.out, /\/usr\/local\/bin\/airlock {2}\(the link to \/opt\/airlock\/bin\/airlock\.js\): sudo rm \/usr\/local\/bin\/airlock/);
  assert.match(purged.out, /\/opt\/airlock {2}\(this checkout\): sudo rm -r \/opt\/airlock/);
});
