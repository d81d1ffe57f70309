/**
 * Host and agent text reaches clients escaped, through the real daemon: a user whose GECOS
 * field and authorized_keys comment (written straight into the host's files, as root)
 * carry ESC, CSI (U+009B) and RIGHT-TO-LEFT OVERRIDE (U+202E) shows up in previews and in
 * action output only as visible escapes (\x1b, \x9b, \u202e); so does agent text quoted
 * in an error; and parameters carrying such characters are refused outright.
 */
import { sshKeyFingerprint } from '../../src/protocol/ssh-fingerprint.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { previewDigestMatches } from '../../src/cli/render.js';

/** What a terminal would obey: C0 but tab and newline, DEL, C1, bidirectional controls and the Unicode line separators. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const EVIL = 'Eve\u001b[2J\u009b31m\u202esys';
const ESCAPED = 'Eve\\x1b[2J\\x9b31m\\u202esys';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d';

/** Every string in a JSON value, keys included. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]);
  return [];
}
function assertClean(v: unknown, what: string): void {
  const bad = strings(v).filter((s) => UNSAFE.test(s));
  assert.deepEqual(bad, [], `${what} carries raw control or bidirectional characters`);
}

let w: World;
let agent: Principal, human: Principal;

before(async () => {
  w = await startWorld();
  agent = await w.as('agent', ['airlock-admin']);
  human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  const must = async (p: string, a: string[]) => assert.equal((await w.d.box.run(p, a)).code, 0, `${p} ${a.join(' ')}`);
  await must('/usr/sbin/useradd', ['-m', '--', 'eve']);
  // Written straight into the files, as root: the tools that edit them would refuse these bytes.
  const root = `/proc/${w.d.box.pid}/root`;
  const passwd = (await w.d.box.readFile('/etc/passwd'))!;
  await writeFile(`${root}/etc/passwd`, passwd.replace(/^eve:x:(\d+):(\d+):[^:]*:/m, `eve:x:$1:$2:${EVIL}:`));
  await must('/usr/bin/install', ['-d', '-m', '0700', '-o', 'eve', '-g', 'eve', '--', '/home/eve/.ssh']);
  await writeFile(`${root}/home/eve/.ssh/authorized_keys`, `${KEY} ${EVIL}\n`, { mode: 0o600 });
});
after(() => w?.close());

describe('host text in previews and output', () => {
  test('UserInfo: the GECOS field in the preview is escaped, and the preview digest covers the escaped text', async () => {
    const p = await agent.call('preview', { action_name: 'UserInfo', params: { user: 'eve' } });
    assertClean(p, 'the UserInfo preview');
    assert.equal((p.current_state as { gecos: string }).gecos, ESCAPED);
    const { auto_approval: _auto, ...envelope } = p as PreviewEnvelope & { auto_approval?: unknown }; // not part of the envelope
    assert.ok(previewDigestMatches(envelope), 'the digest is over the text as shown');
  });

  test('ListUsers: the /etc/passwd line shown as output is escaped', async () => {
    const { r } = await w.lifecycle(agent, human, 'ListUsers', {});
    assert.equal(r.state, 'Succeeded');
    assertClean(r, 'the ListUsers result');
    assert.ok(r.output.some((l) => l.startsWith('eve:x:') && l.includes(`:${ESCAPED}:`)), r.output.join('\n'));
  });

  test('ListAuthorizedKeys: the key comment is escaped in the preview and in the output', async () => {
    const { p, r } = await w.lifecycle(agent, human, 'ListAuthorizedKeys', { user: 'eve' });
    assertClean(p, 'the ListAuthorizedKeys preview');
    assert.match(JSON.stringify(p.current_state), /Eve\\\\x1b\[2J\\\\x9b31m\\\\u202esys/);
    assert.equal(r.state, 'Succeeded');
    assertClean(r, 'the ListAuthorizedKeys result');
    assert.deepEqual(r.output, [`${KEY} ${ESCAPED}`]);
  });

  test('RemoveAuthorizedKey: the line it removes is shown described and escaped, never raw', async () => {
    const p = await agent.call('preview', { action_name: 'RemoveAuthorizedKey', params: { user: 'eve', key: KEY } });
    assertClean(p, 'the RemoveAuthorizedKey preview');
    const write = p.proposed_change.mechanism.find((m) => m.kind === 'fileWrite');
    assert.ok(write && write.kind === 'fileWrite' && write.binds === 'own_lines');
    assert.deepEqual(write.diff.removed, [`ssh-ed25519 ${sshKeyFingerprint(KEY)!.sha256} ${ESCAPED}`]);
    await agent.call('cancel', { transaction_id: p.transaction_id });
  });
});

describe('agent text', () => {
  test('an error message quoting agent text carries it escaped', async () => {
    const err = await rejectsWith(agent.call('preview', { action_name: `Evil\u001b[2J\u009b\u202e`, params: {} }), 'validation', 'unknown_action');
    assert.doesNotMatch(err.message, UNSAFE);
    assert.ok(err.message.includes('\\x9b\\u202e'), err.message);
  });

  test('a parameter carrying C1 or bidirectional controls is refused before anything reads the host', async () => {
    for (const bad of ['/etc/logrotate.d/a\u202eb', '/etc/logrotate.d/a\u009bb', '/etc/logrotate.d/a\u2066b']) {
      const err = await rejectsWith(agent.call('preview', { action_name: 'ReadConfigFile', params: { path: bad } }), 'validation', 'bad_params');
      assert.doesNotMatch(err.message, UNSAFE);
    }
  });
});
