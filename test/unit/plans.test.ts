/**
 * Plans, the parts without a daemon: which actions declare effects (over the whole catalogue),
 * the projection of those effects over a host (ProjectedHost, over the catalogue's fixture
 * host), what is computed after an earlier step, and the plan digests (domain separated,
 * order-bound).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { command, reversibleWhenDone, type Step } from '../../src/catalogue/mechanism.js';
import { ComputedAfter, ProjectedHost } from '../../src/daemon/projected-host.js';
import { canonicalize } from '../../src/protocol/canonical.js';
import { sha256Hex } from '../../src/protocol/hash.js';
import { PLAN_ACTION, planDigest, planStepDigest } from '../../src/protocol/plan.js';
import { FixtureHost } from './catalogue-fixture-host.js';

/**
 * The actions whose effects a plan's later steps are previewed against. Adding one is a
 * decision (its effects must be exactly what its mechanism leaves): this list says so.
 */
const DECLARING = ['AddAuthorizedKey', 'AddUserToGroup', 'CreateGroup', 'CreateUser', 'EnableService', 'InstallPackage', 'RemoveUserFromGroup', 'RestartService', 'StartService', 'StopService'];

test('the catalogue: exactly these actions declare effects, none of them a read, and no action is named as a plan is', () => {
  const declaring = [...CATALOGUE.values()].filter((a) => a.effects).map((a) => a.name).sort();
  assert.deepEqual(declaring, DECLARING);
  for (const a of CATALOGUE.values()) if (a.effects) assert.equal(a.readOnly, false, `${a.name}: a read changes nothing and declares no effect`);
  assert.equal(CATALOGUE.get(PLAN_ACTION), undefined, `no action is named ${PLAN_ACTION}`);
});

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n';
const GROUP = 'root:x:0:\nalice:x:1000:\n';
const host = () => new FixtureHost({ '/etc/passwd': PASSWD, '/etc/group': GROUP, '/home/alice': { dir: true, uid: 1000 } }, () => ({ code: 0, stdout: 'real answer', stderr: '' }));

test('a group, a member and a user laid over the host: later steps see them in the account files', async () => {
  const p = new ProjectedHost(host());
  await p.apply(1, [{ kind: 'group', group: 'ops' }]);
  await p.apply(2, [{ kind: 'member', user: 'alice', group: 'ops', member: true }]);
  await p.apply(3, [{ kind: 'user', user: 'bob', home: '/home/bob', shell: '/bin/bash', comment: '', groups: ['ops'] }]);
  assert.deepEqual((await p.groups()).find((g) => g.name === 'ops'), { name: 'ops', gid: 1001, members: ['alice', 'bob'] });
  assert.deepEqual((await p.users()).find((u) => u.name === 'bob'), { name: 'bob', uid: 1001, gid: 1002, gecos: '', home: '/home/bob', shell: '/bin/bash' });
  assert.deepEqual((await p.groups()).find((g) => g.name === 'bob'), { name: 'bob', gid: 1002, members: [] }, "useradd -U: the uid's gid is taken by ops, so the next free one");
  assert.equal((await p.stat('/home/bob'))?.isDir, true);
  await p.apply(4, [{ kind: 'member', user: 'alice', group: 'ops', member: false }]);
  assert.deepEqual((await p.groups()).find((g) => g.name === 'ops')?.members, ['bob']);
  assert.equal(await host().readFile('/etc/group'), GROUP, 'the host itself is only read');
});

test("a file's new bytes: read and stat as the step leaves it", async () => {
  const p = new ProjectedHost(host());
  const owner = { uid: 1000, gid: 1000 };
  await p.apply(1, [{ kind: 'file', path: '/home/alice/.ssh/authorized_keys', content: 'ssh-ed25519 AAAA k\n', mode: 0o600, owner, parent: { mode: 0o700, owner } }]);
  assert.equal(await p.readFile('/home/alice/.ssh/authorized_keys'), 'ssh-ed25519 AAAA k\n');
  assert.deepEqual(await p.stat('/home/alice/.ssh/authorized_keys'), { mode: 0o600, uid: 1000, gid: 1000, size: 19, isFile: true, isDir: false, isSymlink: false });
  assert.equal((await p.stat('/home/alice/.ssh'))?.mode, 0o700);
  await p.apply(2, [{ kind: 'file', path: '/home/alice/.ssh/authorized_keys', content: null, mode: 0o600, owner }]);
  assert.equal(await p.readFile('/home/alice/.ssh/authorized_keys'), null);
  assert.equal(await p.stat('/home/alice/.ssh/authorized_keys'), null);
});

test("a program's output is the real host's before any change, computed after the last change once there is one", async () => {
  const p = new ProjectedHost(host());
  assert.equal((await p.run('systemctl', ['show'])).stdout, 'real answer');
  await p.apply(1, []); // a read: nothing changes
  assert.equal((await p.run('systemctl', ['show'])).stdout, 'real answer');
  await p.apply(2, [{ kind: 'package', package: 'nginx' }]);
  await assert.rejects(p.run('systemctl', ['show']), (e: unknown) => e instanceof ComputedAfter && e.step === 2);
  assert.equal(await p.readFile('/etc/passwd'), PASSWD, 'files are still projected');
});

test('after a change that declares no effects nothing is projected: every read is computed after it', async () => {
  const p = new ProjectedHost(host());
  await p.apply(1, [{ kind: 'group', group: 'ops' }]);
  await p.apply(2, undefined);
  for (const read of [() => p.readFile('/etc/group'), () => p.stat('/etc/group'), () => p.groups(), () => p.users(), () => p.run('id', [])]) {
    await assert.rejects(read(), (e: unknown) => e instanceof ComputedAfter && e.step === 2);
  }
});

test('plan digests: domain separated from a plain preview digest, bound to the order of the steps', () => {
  const step = { step: 1, action_name: 'CreateGroup', summary: 'Create group ops' };
  assert.notEqual(planStepDigest(step), sha256Hex(canonicalize(step)), "a step's digest is not a preview digest of the same bytes");
  const a = { request_hash: 'a'.repeat(64), preview_digest: 'b'.repeat(64) };
  const b = { request_hash: 'c'.repeat(64), preview_digest: 'd'.repeat(64) };
  assert.notEqual(planDigest([a, b]), planDigest([b, a]), 'reordered: another digest');
  assert.notEqual(planDigest([a, b]), planDigest([a, b, a]), 'extended: another digest');
  assert.notEqual(planDigest([a]), planStepDigest({}), 'the two domains differ');
});

test('a finished job is reversible only when its undos cover every command it ran (reversibleWhenDone)', () => {
  const write: Step = { kind: 'fileWrite', path: '/etc/x', content: 'x\n', mode: 0o644 };
  const check = command('sshd', ['-t'], { noUndo: 'changes_nothing' });
  const reload = command('systemctl', ['reload', '--', 'ssh.service']);
  assert.equal(reversibleWhenDone([write, check]), true, 'files come back from their snapshots; a check changed nothing');
  assert.equal(reversibleWhenDone([write, check, reload]), false, 'a reload with no undo leaves the live daemon on the new file');
  assert.equal(reversibleWhenDone([write, { ...reload, noUndo: 'undone_earlier' }]), true);
  assert.equal(reversibleWhenDone([{ ...reload, undo: reload }]), true);
  assert.equal(reversibleWhenDone([command('mkswap', ['--', '/proc/self/fd/3'], { file: { path: '/swapfile' }, noUndo: 'changes_nothing' })]), false, 'a file held by descriptor is gone with the job');
});
