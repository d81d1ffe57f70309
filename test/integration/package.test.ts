/**
 * The Debian package on a bare booted Debian 12 test bed (no Node, no checkout bound in; no
 * network): the `nodejs` stand-in from dpkg, then the README's server install as written
 * (`sha256sum -c`, `apt install ./airlock_*.deb`, the person's groups), offline. The
 * service runs; every file under /usr/lib/airlock is root's and writable by root only, as the
 * daemon's own trust check and doctor say; a person in airlock-dev previews a Low read. An upgrade
 * to a higher version restarts the daemon on the same state (the log verifies and holds the old
 * entries); `apt-get remove` keeps the audit trail and keys; `apt-get purge` removes what
 * `airlock uninstall --purge` removes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTestbedRoot } from '../../src/sandbox/testbed-root.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/overlay.js';
import { PURGED } from '../../src/cli/uninstall.js';
import { buildPackage, clean, installNode, installPackage } from '../support/package.js';
import { readmeBlock, readReadme } from '../support/readme.js';

const README = join(fileURLToPath(import.meta.url), '..', '..', '..', 'README.md');
const OLD = '0.1.0+pkgtest1';
const NEW = '0.1.0+pkgtest2';
let box: Sandbox;
let debs: { old: string; new: string };
const timings: string[] = [];

before(async () => {
  const t0 = Date.now();
  // One after the other: two tsc runs at once would only share the same two cores.
  const old = await buildPackage(OLD);
  const neu = await buildPackage(NEW);
  debs = { old: old.deb, new: neu.deb };
  timings.push(`.deb ${(statSync(old.deb).size / 1024 / 1024).toFixed(1)} MB`, `builds ${old.built ? `${(old.ms / 1000).toFixed(0)} s` : 'cached'} + ${neu.built ? `${(neu.ms / 1000).toFixed(0)} s` : 'cached'} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  box = await startSandbox({ mode: 'boot', lower: buildTestbedRoot(), bare: true, command: () => [] });
});
after(async () => {
  await box?.stop();
  process.stdout.write(`# package test: ${timings.join('; ')}\n`);
});

async function root(argv: string[]): Promise<string> {
  const r = await clean(box, argv);
  assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}
const exists = async (path: string) => (await clean(box, ['/usr/bin/test', '-e', path])).code === 0;
const as = (user: string, args: string[]) => clean(box, ['/usr/bin/setpriv', `--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', '/usr/bin/airlock', ...args]);
const mainPid = async (unit = 'airlock') => (await root(['/usr/bin/systemctl', 'show', '-p', 'MainPID', '--value', `${unit}.service`])).trim();
async function waitActive(): Promise<void> {
  for (let i = 0; i < 300 && (await clean(box, ['/usr/bin/test', '-S', '/run/airlock/airlock.sock'])).code !== 0; i++) await new Promise((r) => setTimeout(r, 100));
  const active = await clean(box, ['/usr/bin/systemctl', 'is-active', 'airlock']);
  assert.equal(active.stdout.trim(), 'active', (await clean(box, ['/usr/bin/journalctl', '-u', 'airlock', '--no-pager', '-n', '30'])).stdout);
}
/** The log verified through the daemon with the key kept from the first install (the upgrade must not have made a new one). */
async function auditEntries(): Promise<number> {
  const r = await as('root', ['audit', 'verify', '--pubkey', '/root/audit-first.pub', '--json']);
  const report = JSON.parse(r.stdout) as { status: string; entries: number };
  assert.equal(report.status, 'intact', r.stdout + r.stderr);
  return report.entries;
}

test('the package: an offline install, a root-owned tree doctor trusts, an upgrade on the same state, remove keeps the trail, purge removes it', async () => {
  assert.equal(await exists('/usr/bin/node'), false, 'a bare test bed: no Node until the nodejs package brings it');
  // The README's server install, followed as written, in the folder holding the two files, as root (its sudo dropped).
  await installNode(box);
  for (const f of [debs.old, `${debs.old}.sha256`]) copyFileSync(f, join(box.shared, basename(f)));
  await root(['/usr/sbin/useradd', '-m', '--', 'alice']);
  let t = Date.now();
  for (const line of readmeBlock(readReadme(README), 'package')) {
    for (const argv of line.commands) {
      const words = argv.map((w) => w.replace(/airlock_[^/\s]*\.deb/, basename(debs.old)).replace('$USER', 'alice'));
      await root(['/usr/bin/env', '-C', box.shared, ...(words[0] === 'sudo' ? words.slice(1) : words)]);
    }
  }
  await waitActive();
  timings.push(`install ${((Date.now() - t) / 1000).toFixed(1)} s`);
  assert.match(await root(['/usr/bin/id', '-nG', 'alice']), /airlock-admin.*airlock-approvers|airlock-approvers.*airlock-admin/);
  // The checksum is not decoration: a changed one does not verify.
  writeFileSync(join(box.shared, `${basename(debs.old)}.sha256`), readFileSync(`${debs.old}.sha256`, 'utf8').replace(/^./, (c) => (c === '0' ? '1' : '0')));
  assert.notEqual((await clean(box, ['/usr/bin/env', '-C', box.shared, '/usr/bin/sha256sum', '-c', `${basename(debs.old)}.sha256`])).code, 0, 'another sha256 does not verify');
  assert.equal((await root(['/usr/bin/dpkg-query', '-W', '-f', '${Version}', 'airlock'])), OLD);
  assert.match(await root(['/usr/bin/systemctl', 'show', '-p', 'ExecStart', '--value', 'airlock.service']), /path=\/usr\/bin\/node ; argv\[\]=\/usr\/bin\/node \/usr\/lib\/airlock\/bin\/airlock\.js daemon/);

  // Not one file or directory of the code root runs that another account owns or may write (links are the kernel's 777).
  const loose = await root(['/usr/bin/find', '/usr/lib/airlock', '(', '!', '-user', 'root', '-o', '!', '-group', 'root', '-o', '(', '!', '-type', 'l', '-perm', '/022', ')', ')', '-print']);
  assert.equal(loose, '', 'every path under /usr/lib/airlock is root:root and not group/other-writable');
  const doctor = JSON.parse((await as('root', ['doctor', '--json'])).stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> };
  for (const name of ['node', 'native addon', 'daemon', 'daemon code', 'policy file', 'store', 'audit log']) {
    const c = doctor.checks.find((x) => x.name === name);
    assert.ok(c?.ok, `doctor's ${name} check: ${JSON.stringify(c)}`);
  }
  assert.match(doctor.checks.find((x) => x.name === 'daemon code')!.detail, /from \/usr\/lib\/airlock are root's/);
  // The check is not vacuous: one module others may write and doctor fails, naming it.
  const deep = '/usr/lib/airlock/node_modules/commander/lib/command.js';
  await root(['/usr/bin/chmod', 'g+w', '--', deep]);
  const loosened = JSON.parse((await as('root', ['doctor', '--json'])).stdout) as typeof doctor;
  await root(['/usr/bin/chmod', 'g-w', '--', deep]);
  const code = loosened.checks.find((x) => x.name === 'daemon code');
  assert.equal(code?.ok, false);
  assert.match(code!.detail, /commander\/lib\/command\.js is writable by its group/);
  for (const g of PURGED.groups) await root(['/usr/bin/getent', 'group', g]);
  assert.match(await root(['/usr/bin/id', 'airlock-console']), /airlock-observer/);
  assert.equal(await root(['/usr/bin/stat', '-c', '%a %U', '/var/lib/airlock']), '700 root\n');

  // From the package, install leaves dpkg's files alone and uninstall sends the admin to apt.
  const reinstall = await as('root', ['install', '--no-start', '--json']);
  assert.equal(reinstall.code, 0, reinstall.stderr);
  assert.equal(await exists('/etc/systemd/system/airlock.service'), false, 'no unit shadows the package’s');
  const uninstall = await as('root', ['uninstall']);
  assert.equal(uninstall.code, 5, uninstall.stderr);
  assert.match(uninstall.stderr, /installed_by_package[\s\S]*apt purge airlock/);

  // A person in airlock-dev asks for a Low read: the daemon answers (and approves it by policy).
  await root(['/usr/sbin/useradd', '-M', '-s', '/usr/sbin/nologin', '-G', 'airlock-dev', '--', 'dana']);
  const preview = await as('dana', ['preview', 'HostInfo', '--json']);
  assert.equal(preview.code, 0, preview.stderr + preview.stdout);
  const tx = (JSON.parse(preview.stdout) as { transaction_id: string }).transaction_id;
  assert.match(tx, /^tx_[0-9a-f]{24}$/);
  await root(['/usr/bin/cp', '/var/lib/airlock/audit.pub', '/root/audit-first.pub']);
  const before = await auditEntries();
  assert.ok(before > 0);

  // Upgrade: the new code, restarted by postinst, on the same store, keys and log; the console, which the admin enabled, too.
  await root(['/usr/bin/systemctl', 'enable', '--now', 'airlock-console.service']);
  const consolePid = await mainPid('airlock-console');
  assert.notEqual(consolePid, '0', 'the console runs');
  const pid = await mainPid();
  t = Date.now();
  await installPackage(box, debs.new);
  await waitActive();
  timings.push(`upgrade ${((Date.now() - t) / 1000).toFixed(1)} s`);
  assert.equal(await root(['/usr/bin/dpkg-query', '-W', '-f', '${Version}', 'airlock']), NEW);
  assert.equal((await as('dana', ['--version'])).stdout.trim(), NEW, 'the CLI says the version it was packaged as');
  assert.notEqual(await mainPid(), pid, 'the daemon was restarted');
  assert.equal((await clean(box, ['/usr/bin/systemctl', 'is-active', 'airlock-console'])).stdout.trim(), 'active', 'the enabled console was started again');
  assert.notEqual(await mainPid('airlock-console'), consolePid);
  assert.ok((await auditEntries()) >= before, 'the log still holds the entries from before the upgrade');
  const shown = await as('dana', ['show', tx, '--json']);
  assert.equal(shown.code, 0, `the transaction from before the upgrade: ${shown.stderr}`);

  // remove: the code goes, the audit trail, keys and groups stay.
  await root(['/usr/bin/apt-get', 'remove', '-y', 'airlock']);
  assert.equal(await exists('/usr/lib/airlock'), false);
  for (const unit of ['airlock', 'airlock-console']) assert.equal((await clean(box, ['/usr/bin/systemctl', 'is-active', unit])).stdout.trim(), 'inactive', `${unit} stopped by remove`);
  for (const f of ['/var/lib/airlock/airlock.db', '/var/lib/airlock/audit.key', '/var/log/airlock/checkpoints.log', '/etc/airlock/policy.toml']) assert.ok(await exists(f), `${f} kept by remove`);
  for (const g of PURGED.groups) await root(['/usr/bin/getent', 'group', g]);

  // purge: what `airlock uninstall --purge` removes, and dpkg the policy (a conffile).
  await root(['/usr/bin/apt-get', 'purge', '-y', 'airlock']);
  for (const d of PURGED.dirs) assert.equal(await exists(d), false, `${d} removed by purge`);
  assert.equal(await exists('/etc/airlock/policy.toml'), false);
  for (const g of PURGED.groups) assert.notEqual((await clean(box, ['/usr/bin/getent', 'group', g])).code, 0, `group ${g} removed by purge`);
  assert.notEqual((await clean(box, ['/usr/bin/dpkg-query', '-W', '-f', '${Status}', 'airlock'])).stdout, 'install ok installed');
});
