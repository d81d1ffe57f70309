/**
 * The one-account layout (the agent runs under the person's own account) on the booted Debian
 * test bed, with its stock sudoers: the person's cached sudo is the agent's root, shown for
 * real; `sudo airlock doctor` says so for the person behind root (the login uid); `airlock
 * install` explains it and writes /etc/sudoers.d/airlock-no-cache only with --sudo-no-cache,
 * after which the same attack fails; uninstall leaves the drop-in and says how to remove it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorld, type World } from '../support/world.js';

const PROJECT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const AIRLOCK = '/opt/airlock/bin/airlock.js';
let w: World;

before(async () => {
  w = await startWorld([], 'testbed');
  await root('/usr/bin/cp', ['-a', '--', PROJECT, '/opt/airlock']);
});
after(() => w?.close());

const box = () => w.d.box;
/** A command as root in the test bed, failing loudly. */
async function root(program: string, args: string[]): Promise<string> {
  const r = await box().run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}
const exists = async (path: string) => (await box().run('/usr/bin/test', ['-e', path])).code === 0;
interface DoctorCheck { name: string; ok: boolean; detail: string; fix?: string }

test('one account for a person and their agent: sudo’s cached password makes the agent root; doctor says so, install offers the drop-in and writes it only when asked', async () => {
  await root('/usr/sbin/useradd', ['-m', '-G', 'sudo', '--', 'sam']);
  await root('/bin/sh', ['-c', 'echo sam:correct-horse | /usr/sbin/chpasswd']);
  const samUid = (await root('/usr/bin/id', ['-u', 'sam'])).trim();
  // The attack: sam types the password once; a later sudo from the same process tree needs none, and is root.
  const borrow = () => box().run('/usr/bin/setpriv', ['--reuid=sam', '--regid=sam', '--init-groups', '--', '/bin/sh', '-c', 'echo correct-horse | /usr/bin/sudo -S -p "" /usr/bin/true && /usr/bin/sudo -n /usr/bin/id -u']);
  const before = await borrow();
  assert.deepEqual([before.code, before.stdout.trim()], [0, '0'], before.stderr);
  // Root with sam behind it (the login uid, as `sudo airlock ...` in sam's login session has).
  const bySam = (args: string[]) => box().run('/bin/sh', ['-c', `echo ${samUid} > /proc/self/loginuid && exec ${AIRLOCK} "$@"`, 'sh', ...args]);
  const sudoCheck = async () => {
    const r = await bySam(['doctor', '--json']);
    return (JSON.parse(r.stdout) as { checks: DoctorCheck[] }).checks.find((c) => c.name === 'sudo cache')!;
  };
  let check = await sudoCheck();
  assert.equal(check.ok, false, JSON.stringify(check));
  assert.match(check.detail, /^sam's sudo keeps a typed password good for 15 minute\(s\) in that terminal \(timestamp_timeout=15, timestamp_type=tty, sudo's defaults\): an agent running as sam can use it and be root, and read the approval key$/);
  assert.match(check.fix!, /^sudo airlock install --no-start --sudo-no-cache sam \(writes \/etc\/sudoers\.d\/airlock-no-cache/);
  // install explains it and writes nothing to sudo's configuration unasked.
  const offered = await bySam(['install', '--no-start', '--json']);
  assert.equal(offered.code, 0, offered.stderr);
  assert.ok((JSON.parse(offered.stdout) as { done: string[] }).done.some((d) => /^NOTE: sam's sudo keeps a typed password good .* `sudo airlock install --no-start --sudo-no-cache sam` writes/.test(d)), offered.stdout);
  assert.equal(await exists('/etc/sudoers.d/airlock-no-cache'), false);
  const badName = await box().run(AIRLOCK, ['install', '--no-start', '--sudo-no-cache', 'sam,ALL']);
  assert.equal(badName.code, 5, badName.stderr);
  assert.match(badName.stderr, /"sam,ALL" is not an account name/);
  assert.equal(await exists('/etc/sudoers.d/airlock-no-cache'), false);
  // Asked: the drop-in, root's and 0440, which visudo accepts; sudo asks sam every time, so the agent borrows nothing.
  const written = await box().run(AIRLOCK, ['install', '--no-start', '--sudo-no-cache', 'sam']);
  assert.equal(written.code, 0, written.stderr + written.stdout);
  assert.match(written.stdout, /wrote \/etc\/sudoers\.d\/airlock-no-cache \(0440, checked by visudo\)/);
  assert.equal((await root('/usr/bin/stat', ['-c', '%U:%G %a', '--', '/etc/sudoers.d/airlock-no-cache'])).trim(), 'root:root 440');
  assert.match((await box().readFile('/etc/sudoers.d/airlock-no-cache'))!, /^Defaults:sam timestamp_timeout=0$/m);
  await root('/usr/sbin/visudo', ['-c']);
  const after = await borrow();
  assert.notEqual(after.code, 0, after.stdout);
  assert.match(after.stderr, /a password is required/);
  check = await sudoCheck();
  assert.equal(check.ok, true, JSON.stringify(check));
  assert.equal(check.detail, 'sudo asks sam for the password every time (timestamp_timeout=0)');
  assert.equal((await bySam(['install', '--no-start', '--json'])).stdout.includes('NOTE:'), false, 'nothing left to offer');
  // Uninstall leaves it (it protects the account with or without Airlock), with the command that removes it.
  const left = await box().run(AIRLOCK, ['uninstall']);
  assert.equal(left.code, 0, left.stderr);
  assert.match(left.stdout, /\/etc\/sudoers\.d\/airlock-no-cache {2}\(sudo's password cache off, from install --sudo-no-cache\): sudo rm \/etc\/sudoers\.d\/airlock-no-cache/);
});
