/**
 * privilege family, in the booted Debian test bed (sudo installed): sudo grants of one
 * exact command line are created for a user and a group, read back with the daemon's own
 * reads, used for real through sudo as that user (the exact arguments run; any other
 * arguments are refused by sudo itself), and revoked; a revoke that would break the
 * policy is rolled back. Every effect is checked from outside the daemon: the drop-in's
 * bytes and mode, `visudo -c`, `sudo -l -U USER`, and `sudo -n PROGRAM ARGS` run as the user.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const USER = 'deploy';
const GROUP = 'ops';
const MEMBER = 'opsuser';
const GRANT = '/etc/sudoers.d/60-airlock-deploy-tools';
const GROUP_GRANT = '/etc/sudoers.d/60-airlock-ops-free';
const PINNED = '/etc/sudoers.d/60-airlock-pinned';
const PINNER = '/etc/sudoers.d/10-pin';

async function ok(box: SandboxView, program: string, args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const modeOf = (box: SandboxView, path: string) => ok(box, '/usr/bin/stat', ['-c', '%a %U:%G', '--', path]).then((s) => s.trim());
/** What `sudo -l -U` says a user may run (sudo's own answer, not the daemon's). */
const sudoList = (box: SandboxView, user: string) => ok(box, '/usr/bin/sudo', ['-l', '-U', user]);
/** Runs a command line through sudo as `user`, without a password prompt: exit 0 only if a rule allows exactly it. */
const sudoAs = (box: SandboxView, user: string, program: string, ...args: string[]) => box.run('/usr/sbin/runuser', ['-u', user, '--', '/usr/bin/sudo', '-n', program, ...args]);
/** The grant's command line: df of / with two columns; `=` and `,` need escaping in sudoers. */
const DF_ARGS = ['-h', '--output=source,size', '/'];
const DF_RULE = 'deploy ALL=(root) NOEXEC: NOPASSWD: /usr/bin/df -h --output\\=source\\,size /';
const policyValid = async (box: SandboxView) => assert.equal((await box.run('/usr/sbin/visudo', ['-c', '-q'])).code, 0, 'visudo -c passes');

export const scenarios: Scenario[] = [
  {
    action: 'ListSudoGrants',
    params: {},
    setup: async (box) => {
      await ok(box, '/usr/sbin/useradd', ['-m', '--', USER]);
      await ok(box, '/usr/sbin/groupadd', ['--', GROUP]);
      await ok(box, '/usr/sbin/useradd', ['-m', '-G', GROUP, '--', MEMBER]);
    },
    check: async (_box, r) => {
      assert.ok(r.output.includes('/etc/sudoers:50:%sudo\tALL=(ALL:ALL) ALL'), JSON.stringify(r.output));
      assert.ok(r.output.includes('/etc/sudoers:54:@includedir /etc/sudoers.d'));
      assert.ok(!r.output.some((l) => /^[^:]+:\d+:\s*#\s/.test(l)), 'comment lines are left out');
      assert.ok(!r.output.some((l) => l.includes('60-airlock-')), 'no Airlock grant yet');
    },
  },
  {
    action: 'CreateSudoGrant',
    params: { name: 'deploy-tools', user: USER, program: '/usr/bin/df', args: DF_ARGS, nopasswd: true },
    check: async (box) => {
      assert.equal(await box.readFile(GRANT), `# Airlock sudo grant "deploy-tools": written by CreateSudoGrant, removed by RevokeSudoGrant; do not edit.\n${DF_RULE}\n`);
      assert.equal(await modeOf(box, GRANT), '440 root:root');
      await policyValid(box);
      assert.match(await sudoList(box, USER), /User deploy may run the following commands on .*:\n\s+\(root\) NOEXEC: NOPASSWD: \/usr\/bin\/df -h --output\\=source\\,size \/\n/);
      const df = await sudoAs(box, USER, '/usr/bin/df', ...DF_ARGS);
      assert.equal(df.code, 0, `sudo -n df ${DF_ARGS.join(' ')} as deploy: ${df.stderr}`);
      assert.match(df.stdout, /^Filesystem\s+Size\n/);
      // sudo itself refuses every other command line: no arguments, more, fewer, different ones.
      for (const other of [[], ['-h'], [...DF_ARGS, '/etc'], ['-h', '--output=source,size,target', '/'], ['-h', '--output=source', 'size', '/']]) {
        const r = await sudoAs(box, USER, '/usr/bin/df', ...other);
        assert.notEqual(r.code, 0, `sudo df ${other.join(' ')} must be refused`);
        assert.match(r.stderr, /a password is required|not allowed/, r.stderr);
      }
      assert.notEqual((await sudoAs(box, USER, '/usr/bin/id')).code, 0, 'a program outside the grant is refused');
    },
  },
  {
    title: 'for a group, with a password, with no arguments at all',
    action: 'CreateSudoGrant',
    params: { name: 'ops-free', group: GROUP, program: '/usr/bin/free', args: [] },
    check: async (box) => {
      assert.equal((await box.readFile(GROUP_GRANT))!.split('\n')[1], '%ops ALL=(root) NOEXEC: /usr/bin/free ""');
      assert.equal(await modeOf(box, GROUP_GRANT), '440 root:root');
      await policyValid(box);
      assert.match(await sudoList(box, MEMBER), /\n\s+\(root\) NOEXEC: \/usr\/bin\/free ""\n/);
      assert.doesNotMatch(await sudoList(box, USER), /\/usr\/bin\/free/, 'deploy is not in ops');
      const free = await sudoAs(box, MEMBER, '/usr/bin/free');
      assert.notEqual(free.code, 0, 'without NOPASSWD, sudo -n wants a password');
      assert.match(free.stderr, /password is required/);
    },
  },
  {
    action: 'ShowSudoPolicyFor',
    params: { user: USER },
    check: async (_box, r) => {
      assert.ok(r.output.includes('deploy ALL = (root) NOEXEC: NOPASSWD: /usr/bin/df -h --output\\=source\\,size /'), JSON.stringify(r.output));
      assert.ok(!r.output.some((l) => /^%ops|^%sudo|^root /.test(l)), 'only rules that match deploy');
    },
  },
  {
    title: 'through a group',
    action: 'ShowSudoPolicyFor',
    params: { user: MEMBER },
    check: async (_box, r) => {
      assert.ok(r.output.includes('%ops ALL = (root) NOEXEC: /usr/bin/free ""'), JSON.stringify(r.output));
      assert.ok(!r.output.some((l) => l.startsWith('deploy ')));
    },
  },
  {
    title: 'with the grants in place',
    action: 'ListSudoGrants',
    params: {},
    check: async (_box, r) => {
      assert.ok(r.output.includes(`${GRANT}:2:${DF_RULE}`), JSON.stringify(r.output));
      assert.ok(r.output.includes(`${GROUP_GRANT}:2:%ops ALL=(root) NOEXEC: /usr/bin/free ""`));
    },
  },
  {
    action: 'RevokeSudoGrant',
    params: { name: 'deploy-tools' },
    check: async (box) => {
      assert.equal(await box.readFile(GRANT), null);
      await policyValid(box);
      assert.doesNotMatch(await sudoList(box, USER), /\/usr\/bin\/df/);
      assert.notEqual((await sudoAs(box, USER, '/usr/bin/df', ...DF_ARGS)).code, 0, 'the grant is gone for real');
      assert.ok(await box.readFile(GROUP_GRANT), 'the other grant stays');
    },
  },
  {
    title: 'a grant another file names in @include cannot go: visudo -c fails and the file comes back',
    action: 'RevokeSudoGrant',
    params: { name: 'pinned' },
    expect: 'RolledBack',
    setup: async (box) => {
      // The grant is made by hand here (same bytes as CreateSudoGrant writes), then pinned by another drop-in.
      assert.ok(box.writeFile);
      await box.writeFile(PINNED, '# Airlock sudo grant "pinned"\ndeploy ALL=(root) /usr/bin/free\n');
      await box.writeFile(PINNER, `@include ${PINNED}\n`);
      await ok(box, '/usr/bin/chmod', ['0440', '--', PINNED, PINNER]);
      await policyValid(box);
    },
    check: async (box) => {
      assert.equal(await box.readFile(PINNED), '# Airlock sudo grant "pinned"\ndeploy ALL=(root) /usr/bin/free\n', 'restored byte for byte');
      assert.equal(await modeOf(box, PINNED), '440 root:root', 'with its mode and owner');
      await policyValid(box);
      assert.match(await sudoList(box, USER), /\(root\) \/usr\/bin\/free/);
    },
  },
  {
    title: 'the group grant',
    action: 'RevokeSudoGrant',
    params: { name: 'ops-free' },
    setup: async (box) => {
      await ok(box, '/usr/bin/rm', ['-f', '--', PINNER, PINNED]);
    },
    check: async (box) => {
      assert.equal(await box.readFile(GROUP_GRANT), null);
      await policyValid(box);
      assert.doesNotMatch(await sudoList(box, MEMBER), /\/usr\/bin\/free/);
      assert.deepEqual((await ok(box, '/usr/bin/ls', ['-1', '--', '/etc/sudoers.d'])).trim().split('\n'), ['README']);
    },
  },
];
