/**
 * What runs is what was approved, byte for byte, through the real daemon. A file step is
 * bound by its full content (plus mode, owner and the file it replaces): a file rebuilt
 * from a host that changed since the approval, with the same kind and path but other bytes,
 * is refused with state_changed and the receipt stays unspent. An action that declares it
 * rebuilds a file at execution (AddHostsEntry) is bound by its own lines only: it still
 * runs when another program changed other lines, and is refused when its own lines differ.
 * Bytes that are not valid UTF-8 are bound and kept as bytes: two files differing only in
 * such bytes bind to different digests, a patch or rebuild writes them back unchanged, and
 * the preview shows them escaped (\xNN) and says so.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { ApprovalGrant, FileWriteEntry, PreviewEnvelope } from '../../src/protocol/messages.js';

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

function harness(host: 'overlay' | 'testbed') {
  const h = {} as { w: World; agent: Principal; human: Principal };
  before(async () => {
    h.w = await startWorld([], host);
    h.agent = await h.w.as('agent', ['airlock-admin']);
    h.human = await h.w.as('alice', ['airlock-admin', 'airlock-approvers']);
  });
  after(() => h.w?.close());
  return {
    h,
    /** Writes a file inside the sandbox as root, as another program on the host would. */
    put: (path: string, content: string | Buffer) => writeFile(`/proc/${h.w.d.box.pid}/root${path}`, content),
    read: (path: string) => h.w.d.box.readFile(path),
    /** The file's bytes as they are (null: absent), with no decoding. */
    bytes: (path: string) => readFile(`/proc/${h.w.d.box.pid}/root${path}`).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e))),
    approved: async (action: string, params: Record<string, unknown>): Promise<{ p: PreviewEnvelope; g: ApprovalGrant }> => {
      const p = await h.agent.call('preview', { action_name: action, params });
      // Who approves does not matter here (what is bound is the bytes): a deputy when alice's codes are spent.
      return { p, g: await h.w.approveSoon(h.human, p) };
    },
    execute: ({ p, g }: { p: PreviewEnvelope; g: ApprovalGrant }) =>
      h.agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt }),
    state: async (p: PreviewEnvelope) => (await h.human.call('transaction.get', { transaction_id: p.transaction_id })).state,
  };
}

const writeTo = (p: PreviewEnvelope, path: string) => {
  const e = p.proposed_change.mechanism.find((m): m is FileWriteEntry => m.kind === 'fileWrite' && m.path === path);
  assert.ok(e, `the preview shows the write of ${path}: ${JSON.stringify(p.proposed_change.mechanism)}`);
  return e;
};

describe('a file step bound by its content (sshd drop-in, booted test bed)', () => {
  const t = harness('testbed');
  const DROPIN = '/etc/ssh/sshd_config.d/60-airlock.conf';
  const HEADER =
    '# Managed by Airlock (SetSshdOption, ResetSshdOption): one line per option.\n# sshd reads this through the Include at the top of /etc/ssh/sshd_config and keeps the first value it reads.\n';

  test('the approver sees the content digest, size, mode and owner, and the lines it writes', async () => {
    const p = await t.h.agent.call('preview', { action_name: 'SetSshdOption', params: { option: 'MaxAuthTries', value: 4 } });
    const e = writeTo(p, DROPIN);
    const content = `${HEADER}MaxAuthTries 4\n`;
    assert.equal(e.binds, 'content');
    if (e.binds !== 'content') return;
    assert.equal(e.sha256, sha256(content), 'the sha256 sum of exactly the bytes written');
    assert.equal(e.bytes, Buffer.byteLength(content));
    assert.deepEqual([e.mode, e.owner, e.parent], ['0644', { uid: 0, gid: 0 }, { mode: '0755', owner: { uid: 0, gid: 0 } }]);
    assert.equal(e.before, null, 'the drop-in does not exist yet');
    const added = [...HEADER.split('\n').slice(0, 2), 'MaxAuthTries 4'];
    assert.deepEqual(e.diff, { removed: [], added, not_shown: 0, hunks: [{ old_start: 0, old_lines: 0, new_start: 1, new_lines: 3, lines: added.map((l) => '+' + l) }] }, 'a new file: one hunk of added lines');
    assert.match(p.proposed_change.digest, /^[0-9a-f]{64}$/);
  });

  test('another line appearing in the file after the approval: execute refuses, nothing is written, the receipt stays unspent', async () => {
    const tx = await t.approved('SetSshdOption', { option: 'MaxAuthTries', value: 4 });
    // Someone (a person, another tool) adds a line the approver never saw. The rebuilt drop-in
    // keeps it: same step kind and path as approved, other bytes.
    const planted = `${HEADER}PermitRootLogin yes\n`;
    await t.put(DROPIN, planted);
    try {
      await rejectsWith(t.execute(tx), 'stale_approval', 'state_changed');
      assert.equal(await t.read(DROPIN), planted, 'the drop-in was not rewritten');
      assert.equal(await t.state(tx.p), 'Queued', 'the receipt was not spent');
      // Put back as it was at the preview: the same receipt now runs, and writes exactly the approved bytes.
      await t.h.w.d.box.run('/usr/bin/rm', ['-f', '--', DROPIN]);
      const r = await t.execute(tx);
      assert.equal(r.state, 'Succeeded', JSON.stringify(r.error ?? ''));
      assert.equal(sha256((await t.read(DROPIN))!), writeTo(tx.p, DROPIN).sha256);
    } finally {
      await t.h.w.d.box.run('/usr/bin/rm', ['-f', '--', DROPIN]);
    }
  });
});

describe('a file the action declares it rebuilds at execution (/etc/hosts, overlay host)', () => {
  const t = harness('overlay');

  test('the approver sees exactly the lines that are the action’s own', async () => {
    const p = await t.h.agent.call('preview', { action_name: 'AddHostsEntry', params: { ip: '10.77.0.1', names: ['mine.test'] } });
    const e = writeTo(p, '/etc/hosts');
    assert.equal(e.binds, 'own_lines');
    const { hunks, ...lines } = e.diff;
    assert.deepEqual(lines, { removed: [], added: ['10.77.0.1\tmine.test'], not_shown: 0 });
    // The unified view: the file's last (up to) 3 lines as context, then the line added at its end.
    const now = (await t.h.w.d.box.readFile('/etc/hosts'))!.replace(/\n$/, '').split('\n');
    const context = now.slice(-3);
    assert.deepEqual(hunks, [{ old_start: now.length - context.length + 1, old_lines: context.length, new_start: now.length - context.length + 1, new_lines: context.length + 1, lines: [...context.map((l) => ' ' + l), '+10.77.0.1\tmine.test'] }]);
  });

  test('another program adding a line meanwhile: it still runs, and both lines are there', async () => {
    const tx = await t.approved('AddHostsEntry', { ip: '10.77.0.2', names: ['ours.test'] });
    const hosts = (await t.read('/etc/hosts'))!;
    await t.put('/etc/hosts', `${hosts}10.77.0.3\ttheirs.test\n`);
    const r = await t.execute(tx);
    assert.equal(r.state, 'Succeeded', JSON.stringify(r.error ?? ''));
    assert.equal(await t.read('/etc/hosts'), `${hosts}10.77.0.3\ttheirs.test\n10.77.0.2\tours.test\n`);
  });

  test('its own lines differing from the approved ones (it would now also rewrite the last line): refused, receipt unspent', async () => {
    const tx = await t.approved('AddHostsEntry', { ip: '10.77.0.4', names: ['four.test'] });
    const hosts = (await t.read('/etc/hosts'))!;
    assert.ok(hosts.endsWith('\n'));
    // The file loses its final newline: appending now also rewrites the last line, which the approver never saw.
    await t.put('/etc/hosts', hosts.slice(0, -1));
    await rejectsWith(t.execute(tx), 'stale_approval', 'state_changed');
    assert.equal(await t.read('/etc/hosts'), hosts.slice(0, -1));
    assert.equal(await t.state(tx.p), 'Queued');
    await t.put('/etc/hosts', hosts);
    assert.equal((await t.execute(tx)).state, 'Succeeded');
    assert.equal(await t.read('/etc/hosts'), `${hosts}10.77.0.4\tfour.test\n`);
  });
});

/** Text with bytes that are not UTF-8 spliced in: `bytes('caf', [0xe9])`. */
const bytes = (...parts: Array<string | number[] | Buffer>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('a file that is not valid UTF-8 (overlay host)', () => {
  const t = harness('overlay');

  test('two files differing only in bytes that are not UTF-8 bind to different digests: the swapped one is not deleted', async () => {
    const path = '/etc/modprobe.d/60-airlock-blacklist-airlock_bytes.conf';
    const a = bytes('blacklist airlock_bytes\n# caf', [0xe9], '\n');
    const b = bytes('blacklist airlock_bytes\n# caf', [0xe8], '\n');
    await t.h.w.d.box.run('/usr/bin/mkdir', ['-p', '--', '/etc/modprobe.d']);
    await t.put(path, a);
    try {
      const tx = await t.approved('UnblacklistModule', { module: 'airlock_bytes' });
      await t.put(path, b);
      await rejectsWith(t.execute(tx), 'stale_approval', 'state_changed');
      assert.deepEqual(await t.bytes(path), b, 'the swapped file was not deleted');
      assert.equal(await t.state(tx.p), 'Queued', 'the receipt was not spent');
      await t.put(path, a);
      assert.equal((await t.execute(tx)).state, 'Succeeded');
      assert.equal(await t.bytes(path), null);
      // What the approver saw: the digest of the bytes on disk, and that the file is not UTF-8.
      const del = tx.p.proposed_change.mechanism.find((m) => m.kind === 'fileDelete');
      assert.deepEqual(del, { kind: 'fileDelete', path, before: { bytes: a.length, sha256: sha256(a), not_utf8: 1 } });
      assert.ok(tx.p.warnings.some((w) => w.includes(`${path} is not valid UTF-8`)), JSON.stringify(tx.p.warnings));
    } finally {
      await t.h.w.d.box.run('/usr/bin/rm', ['-f', '--', path]);
    }
  });

  const DEFS = '/etc/login.defs';
  /** login.defs with a comment, and the PASS_WARN_AGE line, holding bytes that are not UTF-8 (`tail`, after the value). */
  const plantDefs = async (tail: number[]) => {
    const original = (await t.bytes(DEFS))!;
    const line = Buffer.from('PASS_WARN_AGE\t7\n');
    const at = original.indexOf(line);
    assert.ok(at >= 0 && original.indexOf(line, at + 1) < 0, 'the host’s login.defs sets PASS_WARN_AGE 7 once');
    const planted = (value: string, last = tail) =>
      bytes('# r', [0xe9], 'sum', [0xe9], '\n', original.subarray(0, at), `PASS_WARN_AGE\t${value}\t# caf`, last, '\n', original.subarray(at + line.length));
    await t.put(DEFS, planted('7'));
    return { original, planted };
  };

  test('a patch keeps the bytes that are not UTF-8 exactly, and the preview shows them escaped', async () => {
    const { original, planted } = await plantDefs([0xff, 0x20, 0xc3]);
    try {
      const tx = await t.approved('SetPasswordAgingDefaults', { pass_warn_age: 9 });
      const r = await t.execute(tx);
      assert.equal(r.state, 'Succeeded', JSON.stringify(r.error ?? ''));
      assert.deepEqual(await t.bytes(DEFS), planted('9'), 'every other byte as it was, the value changed');
      const patch = tx.p.proposed_change.mechanism.find((m) => m.kind === 'filePatch');
      assert.ok(patch && patch.kind === 'filePatch', JSON.stringify(tx.p.proposed_change.mechanism));
      assert.ok(patch.diff.removed.includes('PASS_WARN_AGE\t7\t# caf\\xff \\xc3'), JSON.stringify(patch.diff));
      assert.ok(patch.diff.added.includes('PASS_WARN_AGE\t9\t# caf\\xff \\xc3'), JSON.stringify(patch.diff));
      assert.equal(patch.not_utf8, 4, 'the two bytes in the text searched for and the two in its replacement');
      assert.ok(tx.p.warnings.some((w) => w.includes(`${DEFS} is not valid UTF-8`)), JSON.stringify(tx.p.warnings));
    } finally {
      await t.put(DEFS, original);
    }
  });

  test('the patched line differing only in a byte that is not UTF-8: execute refuses, the file is not rewritten', async () => {
    const { original, planted } = await plantDefs([0xff]);
    try {
      const tx = await t.approved('SetPasswordAgingDefaults', { pass_warn_age: 10 });
      await t.put(DEFS, planted('7', [0xfe]));
      await rejectsWith(t.execute(tx), 'stale_approval', 'state_changed');
      assert.deepEqual(await t.bytes(DEFS), planted('7', [0xfe]));
      assert.equal(await t.state(tx.p), 'Queued', 'the receipt was not spent');
    } finally {
      await t.put(DEFS, original);
    }
  });

  test('a file rebuilt at execution keeps the bytes that are not UTF-8 in lines it does not own (/etc/hosts)', async () => {
    const original = (await t.bytes('/etc/hosts'))!;
    const planted = bytes(original, '10.77.0.9\tcaf', [0xe9], '.test # ', [0x80, 0xfe], '\n');
    await t.put('/etc/hosts', planted);
    try {
      const tx = await t.approved('AddHostsEntry', { ip: '10.77.0.10', names: ['ten.test'] });
      const r = await t.execute(tx);
      assert.equal(r.state, 'Succeeded', JSON.stringify(r.error ?? ''));
      assert.deepEqual(await t.bytes('/etc/hosts'), bytes(planted, '10.77.0.10\tten.test\n'));
      // The approver saw those bytes escaped in the context of the change, and was told.
      assert.deepEqual(writeTo(tx.p, '/etc/hosts').diff?.hunks?.at(-1)?.lines.slice(-2), [' 10.77.0.9\tcaf\\xe9.test # \\x80\\xfe', '+10.77.0.10\tten.test']);
      assert.ok(tx.p.warnings.some((w) => w.includes('/etc/hosts is not valid UTF-8')), JSON.stringify(tx.p.warnings));
    } finally {
      await t.put('/etc/hosts', original);
    }
  });
});
