/**
 * Attacks on the executor and the catalogue through the real daemon: symlinks
 * planted on a path the daemon writes, homes outside the allowlist, option-like
 * and injection values, NUL bytes. Each is refused with a typed error and the
 * host is left as it was.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d attacker@evil';
let w: World;
let agent: Principal, human: Principal;

before(async () => {
  w = await startWorld();
  agent = await w.as('agent', ['airlock-admin']);
  human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(() => w?.close());

const sh = async (program: string, args: string[]) => {
  const r = await w.d.box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
};
const preview = (action: string, params: Record<string, unknown>) => agent.call('preview', { action_name: action, params });

describe('symlinks on the write path', () => {
  test("a user's ~/.ssh pointing at /root/.ssh does not give the agent root's authorized_keys", async () => {
    await sh('/usr/sbin/useradd', ['-m', '--', 'mallory']);
    await sh('/usr/bin/mkdir', ['-p', '/root/.ssh']);
    await sh('/usr/bin/ln', ['-s', '/root/.ssh', '/home/mallory/.ssh']);
    const before = await w.d.box.readFile('/root/.ssh/authorized_keys');
    await rejectsWith(preview('AddAuthorizedKey', { user: 'mallory', key: KEY }), 'execution', 'symlink_in_path');
    assert.equal(await w.d.box.readFile('/root/.ssh/authorized_keys'), before);
  });

  test('a link swapped in after the preview is refused at execution, and nothing is written', async () => {
    await sh('/usr/sbin/useradd', ['-m', '--', 'trudy']);
    const p = await agent.call('preview', { action_name: 'AddAuthorizedKey', params: { user: 'trudy', key: KEY } });
    const g = await w.approve(human, p);
    // The user (or anyone who owns the home) swaps ~/.ssh for a link between approval and execution.
    await sh('/usr/bin/ln', ['-s', '/etc', '/home/trudy/.ssh']);
    const shadowBefore = await w.d.box.readFile('/etc/authorized_keys');
    await rejectsWith(agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt }), 'execution', 'symlink_in_path');
    assert.equal(await w.d.box.readFile('/etc/authorized_keys'), shadowBefore);
    assert.equal((await human.call('transaction.get', { transaction_id: p.transaction_id })).state, 'Queued', 'refused before the receipt was spent');
  });

  test('an authorized_keys that is itself a link to /etc/shadow is never read or written', async () => {
    await sh('/usr/sbin/useradd', ['-m', '--', 'eve']);
    await sh('/usr/bin/mkdir', ['-m', '700', '/home/eve/.ssh']);
    await sh('/usr/bin/ln', ['-s', '/etc/shadow', '/home/eve/.ssh/authorized_keys']);
    const shadow = await w.d.box.readFile('/etc/shadow');
    await rejectsWith(preview('ListAuthorizedKeys', { user: 'eve' }), 'execution', 'symlink_in_path');
    await rejectsWith(preview('AddAuthorizedKey', { user: 'eve', key: KEY }), 'execution', 'symlink_in_path');
    assert.equal(await w.d.box.readFile('/etc/shadow'), shadow);
  });

  test('a home directory outside /home and /root is outside the allowlist', async () => {
    await sh('/usr/sbin/useradd', ['-M', '-d', '/etc', '--', 'oscar']);
    await rejectsWith(preview('AddAuthorizedKey', { user: 'oscar', key: KEY }), 'authorization', 'path_not_allowed');
  });
});

describe('hostile parameter values', () => {
  const INJECTIONS = ['; rm -rf /', '$(id)', '`id`', '-rf', '--help', '-oProxyCommand=id', '../../etc/shadow', 'a\u0000b', 'a\nb', 'x'.repeat(100_000), '', ' root', 'root '];
  for (const [action, field, base] of [
    ['UserInfo', 'user', {}],
    ['CreateUser', 'user', {}],
    ['AddUserToGroup', 'group', { user: 'alice' }],
    ['InstallPackage', 'package', {}],
    ['SetSysctl', 'key', { value: '1' }],
    ['SetHostname', 'hostname', {}],
    ['ReadConfigFile', 'path', {}],
    ['AddAuthorizedKey', 'key', { user: 'alice' }],
  ] as const) {
    test(`${action}.${field} refuses injection and option-like values with a validation error`, async () => {
      for (const v of INJECTIONS) {
        await rejectsWith(preview(action, { ...base, [field]: v }), 'validation', 'bad_params');
      }
      await rejectsWith(preview(action, { ...base, [field]: ['root'] }), 'validation', 'bad_params');
      await rejectsWith(preview(action, { ...base, [field]: { $gt: '' } }), 'validation', 'bad_params');
    });
  }

  test('an SSH key with an options prefix (command=...) is refused', async () => {
    await rejectsWith(preview('AddAuthorizedKey', { user: 'alice', key: `command="/bin/sh" ${KEY}` }), 'validation', 'bad_params');
    await rejectsWith(preview('AddAuthorizedKey', { user: 'alice', key: 'ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQABAAABAQ== mismatched-type' }), 'validation', 'bad_params');
  });

  test('unknown parameters and missing ones are refused, not ignored', async () => {
    await rejectsWith(preview('UserInfo', { user: 'root', shell: '/bin/sh' }), 'validation', 'bad_params');
    await rejectsWith(preview('UserInfo', {}), 'validation', 'bad_params');
    await rejectsWith(agent.callUnchecked('preview', { action_name: 'UserInfo', params: ['root'] }), 'validation', 'bad_params');
  });

  test('protected accounts are refused for destructive actions', async () => {
    await rejectsWith(preview('DeleteUser', { user: 'root', removeHome: true }), 'authorization');
    await rejectsWith(preview('LockUser', { user: 'daemon' }), 'authorization');
    await rejectsWith(preview('AddUserToGroup', { user: 'alice', group: 'sudo' }), 'authorization');
  });
});

describe('exclusive resources', () => {
  test('a held dpkg lock is a conflict that leaves the receipt unspent; after release the same receipt works', async () => {
    // Another package manager holds dpkg's lock (a POSIX record lock, as dpkg and apt take it).
    const holder = spawn('/usr/bin/nsenter', ['-t', String(w.d.box.pid), '-m', '-u', '-i', '-r', '-w', '--', '/usr/bin/python3', '-c',
      "import fcntl,sys,time\nf=open('/var/lib/dpkg/lock-frontend','a')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)"], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on('data', (d) => String(d).includes('locked') && resolve());
        holder.once('exit', (c) => reject(new Error(`lock holder exited ${c}`)));
      });
      const p = await agent.call('preview', { action_name: 'HoldPackage', params: { package: 'base-files' } });
      const g = await w.approve(human, p);
      const exec = () => agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt });
      const err = await rejectsWith(exec(), 'conflict', 'resource_busy');
      assert.match(err.message, /lock-frontend is locked by pid \d+/);
      assert.equal((await human.call('transaction.get', { transaction_id: p.transaction_id })).state, 'Queued');
      holder.kill('SIGKILL');
      await new Promise((r) => holder.once('exit', r));
      assert.equal((await exec()).state, 'Succeeded');
      assert.match((await w.d.box.run('/usr/bin/apt-mark', ['showhold'])).stdout, /^base-files$/m);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('what runs is what was approved', () => {
  test('a change rebuilt from a host that changed since the preview is refused, receipt unspent', async () => {
    const p = await agent.call('preview', { action_name: 'SetTimezone', params: { timezone: 'Europe/Paris' } });
    const g = await w.approve(human, p);
    // Someone else changes the zone after the approval: the approved "from" no longer holds.
    await sh('/usr/bin/ln', ['-sfn', '/usr/share/zoneinfo/Asia/Tokyo', '/etc/localtime']);
    await rejectsWith(agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt }), 'stale_approval', 'state_changed');
    assert.equal((await human.call('transaction.get', { transaction_id: p.transaction_id })).state, 'Queued');
    assert.equal((await w.d.box.run('/usr/bin/readlink', ['/etc/localtime'])).stdout.trim(), '/usr/share/zoneinfo/Asia/Tokyo');
  });

  test('two approved edits of one file executed at once both land', async () => {
    const approved = [];
    for (const [ip, name] of [['10.9.0.1', 'one.test'], ['10.9.0.2', 'two.test']] as const) {
      const p = await agent.call('preview', { action_name: 'AddHostsEntry', params: { ip, names: [name] } });
      approved.push({ p, g: await w.approve(human, p) });
    }
    const results = await Promise.all(approved.map(({ p, g }) => agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt })));
    assert.deepEqual(results.map((r) => r.state), ['Succeeded', 'Succeeded']);
    const hosts = (await w.d.box.readFile('/etc/hosts'))!;
    assert.match(hosts, /^10\.9\.0\.1\s+one\.test$/m);
    assert.match(hosts, /^10\.9\.0\.2\s+two\.test$/m);
  });

  test('system groups that grant device or log access cannot be joined', async () => {
    await rejectsWith(preview('AddUserToGroup', { user: 'alice', group: 'kmem' }), 'authorization', 'protected_group');
    await rejectsWith(preview('AddUserToGroup', { user: 'alice', group: 'systemd-journal' }), 'authorization', 'protected_group');
    await rejectsWith(preview('CreateUser', { user: 'newbie', groups: ['kmem'] }), 'authorization', 'protected_group');
  });

  test('binfmt_misc registration (root code execution) is refused', async () => {
    await rejectsWith(preview('SetSysctl', { key: 'fs.binfmt_misc.register', value: ':x:E::pwn::/home/agent/sh:C' }), 'authorization', 'protected_sysctl');
  });
});

describe('what a preview may show before anyone approves', () => {
  test("a preview of someone's authorized_keys shows key fingerprints and comments, never options", async () => {
    await sh('/usr/sbin/useradd', ['-m', '--', 'opsbot']);
    await sh('/usr/bin/mkdir', ['-m', '700', '/home/opsbot/.ssh']);
    const secretLine = `command="/usr/local/bin/backup --s3-secret=SUPERSECRET123" ${KEY}`;
    const file = `/proc/${w.d.box.pid}/root/home/opsbot/.ssh/authorized_keys`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, secretLine + '\n', { mode: 0o600 });
    const p = await agent.call('preview', { action_name: 'ListAuthorizedKeys', params: { user: 'opsbot' } });
    const shown = JSON.stringify(p);
    assert.ok(!shown.includes('SUPERSECRET123'), shown);
    assert.match(shown, /ssh-ed25519 SHA256:[A-Za-z0-9+/]{43} attacker@evil \[with options\]/);
    assert.equal(p.risk, 'medium', 'reading authorized_keys is a sensitive read');
  });

  test('a preview too large to review is refused and the daemon keeps serving', async () => {
    const { writeFileSync } = await import('node:fs');
    await sh('/usr/sbin/useradd', ['-m', '--', 'hoarder']);
    await sh('/usr/bin/mkdir', ['-m', '700', '/home/hoarder/.ssh']);
    writeFileSync(`/proc/${w.d.box.pid}/root/home/hoarder/.ssh/authorized_keys`, `${KEY}\n`.repeat(20_000));
    await rejectsWith(preview('ListAuthorizedKeys', { user: 'hoarder' }), 'validation', 'preview_too_large');
    assert.ok((await agent.call('actions.list', {})).length > 30);
  });
});
