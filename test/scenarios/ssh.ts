/**
 * ssh family, for real in the throwaway overlay: a user gets a key (file and
 * directory created with the right owner and modes), a second key, loses one;
 * host key fingerprints are read when the host has keys.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

const USER = 'sshtest1';
const KEY1 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d one@test';
const KEY2 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ7r3tm0Cz2fFqYQ2pzp6dAJf7Oj2e+0H7mQk2mXbXUe two@test';
const PATH = `/home/${USER}/.ssh/authorized_keys`;

const stat = async (box: SandboxView, path: string) => (await box.run('/usr/bin/stat', ['-c', '%a %U %G', '--', path])).stdout.trim();
const lines = async (box: SandboxView) => ((await box.readFile(PATH)) ?? '').split('\n').filter(Boolean);

export const scenarios: Scenario[] = [
  {
    action: 'AddAuthorizedKey',
    params: { user: USER, key: KEY1 },
    setup: async (box) => {
      assert.equal((await box.run('/usr/sbin/useradd', ['-m', '--', USER])).code, 0);
    },
    check: async (box) => {
      assert.deepEqual(await lines(box), [KEY1]);
      assert.equal(await stat(box, PATH), `600 ${USER} ${USER}`);
      assert.equal(await stat(box, `/home/${USER}/.ssh`), `700 ${USER} ${USER}`);
    },
  },
  {
    title: 'a second key is appended, the first kept',
    action: 'AddAuthorizedKey',
    params: { user: USER, key: KEY2 },
    check: async (box) => assert.deepEqual(await lines(box), [KEY1, KEY2]),
  },
  {
    action: 'ListAuthorizedKeys',
    params: { user: USER },
    check: async (_box, r) => assert.deepEqual(r.output, [KEY1, KEY2]),
  },
  {
    action: 'RemoveAuthorizedKey',
    params: { user: USER, key: KEY1 },
    check: async (box) => {
      assert.deepEqual(await lines(box), [KEY2]);
      assert.equal(await stat(box, PATH), `600 ${USER} ${USER}`, 'owner and mode kept');
    },
  },
  {
    action: 'HostKeyFingerprints',
    params: {},
    setup: async (box) => {
      // The test host may have no sshd: give it a host key, as openssh-server's postinst would.
      if ((await box.readFile('/etc/ssh/ssh_host_ed25519_key.pub')) === null) {
        assert.equal((await box.run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', '/etc/ssh/ssh_host_ed25519_key'])).code, 0);
      }
    },
    check: async (box, r) => {
      const expected = (await box.run('/usr/bin/ssh-keygen', ['-l', '-f', '/etc/ssh/ssh_host_ed25519_key.pub'])).stdout.trim();
      assert.ok(r.output.includes(expected), `${expected} not in ${r.output.join(' | ')}`);
    },
  },
];
