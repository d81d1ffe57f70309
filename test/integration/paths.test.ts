/**
 * Paths that root programs act on by name (issue 8, section 3), attacked on the booted
 * Debian test bed through the real daemon. The agent owns a directory under an allowed
 * root (/srv/agent, /var/log/agent-app, its home) and plants links in it; an admin's
 * own convenience link (root-made) sits in /srv. Each action must refuse with the typed
 * refusal `untrusted_path` naming the offending component, and the host must be as it
 * was: the target file intact, nothing mounted or unmounted, no swap added.
 * One world for every case (booting the test bed is the expensive part).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';

let w: World;
let agent: Principal;
let human: Principal;
let fstab = '';

before(async () => {
  w = await startWorld([], 'testbed');
  agent = await w.as('agent', ['airlock-admin']);
  human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  fstab = (await w.d.box.readFile('/etc/fstab')) ?? '';
  // Directories the agent owns, as a service account owns its log or data directory.
  await sh('/usr/bin/install', '-d', '-o', 'agent', '-g', 'agent', '-m', '0755', '--', '/srv/agent', '/var/log/agent-app', '/home/agent');
});
after(() => w?.close());

async function sh(program: string, ...args: string[]): Promise<string> {
  const r = await w.d.box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
/** What the agent can do with its own shell: run a program as itself. */
const asAgent = (program: string, ...args: string[]) => sh('/usr/bin/setpriv', '--reuid=agent', '--regid=agent', '--clear-groups', '--', program, ...args);
const preview = (action: string, params: Record<string, unknown>) => agent.call('preview', { action_name: action, params });
/** The preview is refused as untrusted_path, and the message names this component. */
async function refusedNaming(p: Promise<unknown>, component: string): Promise<void> {
  const e = await rejectsWith(p, 'authorization', 'untrusted_path');
  assert.ok(e.message.includes(`${component} `), `the refusal names ${component}: ${e.message}`);
}
const mountsOn = async (path: string) => (await w.d.box.run('/usr/bin/findmnt', ['-n', '-o', 'SOURCE', '-M', path])).stdout.trim();
/** Writes a file inside the test bed as root, from outside the daemon (setups the catalogue must not do). */
const write = (path: string, content: string) => writeFile(`/proc/${w.d.box.pid}/root${path}`, content, { mode: 0o644 });
const restoreFstab = () => write('/etc/fstab', fstab);

describe('mount points', () => {
  test('a link in the middle of a mount point cannot put a world-writable tmpfs over /etc/profile.d (AddFstabEntry, Mount)', async () => {
    await asAgent('/usr/bin/ln', '-s', '/etc', '/srv/agent/etc');
    const mp = '/srv/agent/etc/profile.d';
    await refusedNaming(preview('AddFstabEntry', { source: 'tmpfs', mountpoint: mp, fstype: 'tmpfs', options: ['mode=1777'] }), '/srv/agent');
    assert.equal(await w.d.box.readFile('/etc/fstab'), fstab, 'fstab unchanged');
    // An entry written before the link appeared: Mount refuses it all the same.
    await write('/etc/fstab', `${fstab}tmpfs ${mp} tmpfs mode=1777 0 0\n`);
    try {
      await refusedNaming(preview('Mount', { mountpoint: mp }), '/srv/agent');
      assert.equal(await mountsOn('/etc/profile.d'), '', 'nothing is mounted on /etc/profile.d');
    } finally {
      await restoreFstab();
    }
  });

  test("an admin's own link in /srv is refused as a link (CreateMountpoint would make /etc/systemd/airlock-evil)", async () => {
    await sh('/usr/bin/ln', '-s', '/etc', '/srv/etc-link');
    await refusedNaming(preview('CreateMountpoint', { path: '/srv/etc-link/systemd/airlock-evil' }), '/srv/etc-link');
    assert.equal((await w.d.box.run('/usr/bin/stat', ['--', '/etc/systemd/airlock-evil'])).code, 1, '/etc/systemd/airlock-evil does not exist');
  });

  test('Unmount through a link cannot detach /boot', async () => {
    await sh('/usr/bin/mount', '-t', 'tmpfs', '-o', 'size=1m', '--', 'boot-fs', '/boot');
    try {
      await asAgent('/usr/bin/ln', '-s', '/boot', '/srv/agent/boot');
      await refusedNaming(preview('Unmount', { mountpoint: '/srv/agent/boot' }), '/srv/agent');
      await sh('/usr/bin/ln', '-s', '/boot', '/srv/boot-link');
      await refusedNaming(preview('Unmount', { mountpoint: '/srv/boot-link' }), '/srv/boot-link');
      assert.equal(await mountsOn('/boot'), 'boot-fs', '/boot is still mounted');
    } finally {
      await sh('/usr/bin/umount', '--', '/boot');
    }
  });

  test('a component swapped for a link between approval and execution is refused at execution, the receipt unspent', async () => {
    await sh('/usr/bin/mkdir', '-p', '--', '/srv/swapme/profile.d');
    await write('/etc/fstab', `${fstab}tmpfs /srv/swapme/profile.d tmpfs mode=1777 0 0\n`);
    try {
      const p = await preview('Mount', { mountpoint: '/srv/swapme/profile.d' });
      const g = await w.approve(human, p);
      await sh('/usr/bin/mv', '--', '/srv/swapme', '/srv/swapme.old');
      await sh('/usr/bin/ln', '-s', '/etc', '/srv/swapme');
      await refusedNaming(agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt }), '/srv/swapme');
      assert.equal(await mountsOn('/etc/profile.d'), '', 'nothing is mounted on /etc/profile.d');
      assert.equal((await human.call('transaction.get', { transaction_id: p.transaction_id })).state, 'Queued', 'refused before the receipt was spent');
    } finally {
      await restoreFstab();
    }
  });

  test('a findmnt --verify warning (a non-canonical target already in fstab) fails the check and is shown', async () => {
    await sh('/usr/bin/mkdir', '-p', '--', '/srv/real-target', '/srv/okdir');
    await sh('/usr/bin/ln', '-s', '/srv/real-target', '/srv/noncanon');
    await write('/etc/fstab', `${fstab}tmpfs /srv/noncanon tmpfs defaults 0 0\n`);
    try {
      const e = await rejectsWith(preview('AddFstabEntry', { source: 'tmpfs', mountpoint: '/srv/okdir', fstype: 'tmpfs' }), 'conflict', 'fstab_already_invalid');
      assert.match(e.message, /non-canonical target/, e.message);
    } finally {
      await restoreFstab();
    }
  });
});

describe('swap files', () => {
  test("CreateSwapFile refuses a directory the agent can write (its file would receive root's swapped-out memory)", async () => {
    const swaps = await w.d.box.readFile('/proc/swaps');
    await refusedNaming(preview('CreateSwapFile', { path: '/srv/agent/swapfile', sizeMiB: 16 }), '/srv/agent');
    await sh('/usr/bin/ln', '-s', '/root', '/srv/root-link');
    await refusedNaming(preview('CreateSwapFile', { path: '/srv/root-link/swapfile', sizeMiB: 16 }), '/srv/root-link');
    await refusedNaming(preview('RemoveSwapFile', { path: '/srv/agent/swapfile' }), '/srv/agent');
    assert.equal((await w.d.box.run('/usr/bin/stat', ['--', '/srv/agent/swapfile'])).code, 1, 'no swap file was made');
    assert.equal((await w.d.box.run('/usr/bin/stat', ['--', '/root/swapfile'])).code, 1, 'no swap file was made under /root');
    assert.equal(await w.d.box.readFile('/proc/swaps'), swaps, 'no swap was added');
    assert.equal(await w.d.box.readFile('/etc/fstab'), fstab, 'fstab unchanged');
  });
});

describe('logrotate', () => {
  const SHADOW = '/var/log/agent-app/root/etc/shadow';
  test('a linked parent cannot make copytruncate empty /etc/shadow (SetLogrotatePolicy, RunLogrotate)', async () => {
    const shadow = await w.d.box.readFile('/etc/shadow');
    assert.ok(shadow && shadow.length > 0);
    await asAgent('/usr/bin/ln', '-s', '/', '/var/log/agent-app/root');
    await refusedNaming(preview('SetLogrotatePolicy', { name: 'evil', path: SHADOW, rotate: 1, frequency: 'daily', compress: false }), '/var/log/agent-app');
    assert.equal(await w.d.box.readFile('/etc/logrotate.d/airlock-evil'), null, 'no policy was written');
    // A policy written while the directory was a real one: rotating it now is refused.
    await write('/etc/logrotate.d/airlock-evil2', `${SHADOW} {\n\tdaily\n\trotate 1\n\tnocompress\n\tmissingok\n\tnotifempty\n\tcopytruncate\n}\n`);
    await refusedNaming(preview('RunLogrotate', { name: 'evil2' }), '/var/log/agent-app');
    assert.equal(await w.d.box.readFile('/etc/shadow'), shadow, '/etc/shadow is intact');
    assert.equal(await w.d.box.readFile('/etc/shadow.1'), null, 'no rotated copy of /etc/shadow');
  });
});

describe('disk usage', () => {
  test('DiskUsageOf does not reveal sizes under /root through a link', async () => {
    await sh('/usr/bin/mkdir', '-p', '--', '/root/secret-dir');
    await asAgent('/usr/bin/ln', '-s', '/root', '/home/agent/r');
    await refusedNaming(preview('DiskUsageOf', { path: '/home/agent/r/secret-dir' }), '/home/agent');
    await asAgent('/usr/bin/ln', '-s', '/root', '/var/tmp/agent-root');
    await refusedNaming(preview('DiskUsageOf', { path: '/var/tmp/agent-root/secret-dir' }), '/var/tmp');
  });
});
