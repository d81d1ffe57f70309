/**
 * RevertTransaction's declaration against a fixture host: what it refuses (an unknown or
 * unrevertable transaction, a host drifted from what the change left), the steps it builds (the
 * kept steps undone last first, each command's redo as its own undo), and its risk (the
 * reverted change's). The real thing runs in every change scenario (catalogue-scenarios.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { MAX_KEPT_BYTES, type FinishedChange, type KeptStep } from '../../src/catalogue/change-record.js';
import { keptRevert } from '../../src/daemon/kept-change.js';
import { probeState } from '../../src/catalogue/lib/state-probes.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { FixtureHost, NoChange, checked } from './catalogue-fixture-host.js';

const revert = CATALOGUE.get('RevertTransaction')!;
const TX = 'tx_' + 'ab'.repeat(12);

async function built(host: FixtureHost) {
  const p = revert.params.parse({ transaction_id: TX });
  const cur = await revert.current(p, host);
  const risk = revert.riskFrom!(cur); // read before the check speaks, as the daemon does
  checked(revert, p, cur);
  return { steps: revert.mechanism(p, cur), preview: revert.preview(p, cur), cur, risk };
}

async function change(host: FixtureHost, over: Partial<FinishedChange> = {}): Promise<FinishedChange> {
  const probes = [{ file: '/etc/hosts' }, { file: '/etc/new.conf' }, { program: 'systemctl' as const, args: ['is-active', '--', 'demo.service'] }];
  const after = await probeState(probes, host);
  return {
    transactionId: TX,
    actionName: 'Something',
    stepActions: [],
    risk: 'high',
    state: 'Succeeded',
    summary: 'did something',
    kept: [
      { kind: 'file', path: '/etc/hosts', existed: true, content: '127.0.0.1 localhost\n', mode: 0o644, owner: { uid: 0, gid: 0 } },
      { kind: 'command', undo: { kind: 'command', program: 'systemctl', args: ['stop', '--', 'demo.service'] }, redo: { kind: 'command', program: 'systemctl', args: ['start', '--', 'demo.service'] } },
      { kind: 'file', path: '/etc/new.conf', existed: false },
    ],
    probes,
    before: { x: '0' },
    after,
    ...over,
  };
}

const host = () => new FixtureHost({ '/etc/hosts': '127.0.0.1 localhost\n10.0.0.1 db\n', '/etc/new.conf': 'new\n' }, (program, args) => (program === 'systemctl' && args[0] === 'is-active' ? { code: 0, stdout: 'active\n', stderr: '' } : { code: 1, stdout: '', stderr: '' }));

test('the kept steps are undone last first: a made file deleted, the command undone (its redo undoes that), a replaced file written back', async () => {
  const h = host();
  h.finished.set(TX, await change(h));
  const { steps, preview, risk } = await built(h);
  assert.deepEqual(
    steps.map((s) => (s.kind === 'command' ? `${s.program} ${s.args.join(' ')} / undo ${s.undo?.args.join(' ')}` : `${s.kind} ${s.path}`)),
    ['fileDelete /etc/new.conf', 'systemctl stop -- demo.service / undo start -- demo.service', 'fileWrite /etc/hosts'],
  );
  const write = steps[2] as { content: string; mode: number; owner: unknown };
  assert.equal(write.content, '127.0.0.1 localhost\n');
  assert.deepEqual([write.mode, write.owner], [0o644, { uid: 0, gid: 0 }]);
  assert.match(preview.summary, new RegExp(`Revert ${TX} \\(Something: did something\\)`));
  assert.equal(risk, 'high', 'a revert is approved at the risk of the change it reverts');
});

test('a host drifted since the change finished refuses the revert, naming what changed', async () => {
  const h = host();
  h.finished.set(TX, await change(h));
  const drifted = new FixtureHost({ '/etc/hosts': '127.0.0.1 localhost\n10.0.0.1 db\n# edited since\n', '/etc/new.conf': 'new\n' }, (program, args) => (program === 'systemctl' && args[0] === 'is-active' ? { code: 0, stdout: 'active\n', stderr: '' } : { code: 1, stdout: '', stderr: '' }));
  drifted.finished.set(TX, h.finished.get(TX)!);
  await assert.rejects(built(drifted), (e: unknown) => e instanceof AirlockError && e.code === 'drifted' && /\/etc\/hosts/.test(e.message) && !/new\.conf/.test(e.message));
  // Live state drifts as files do: the unit stopped since.
  const stopped = new FixtureHost({ '/etc/hosts': '127.0.0.1 localhost\n10.0.0.1 db\n', '/etc/new.conf': 'new\n' }, () => ({ code: 3, stdout: 'inactive\n', stderr: '' }));
  stopped.finished.set(TX, h.finished.get(TX)!);
  await assert.rejects(built(stopped), (e: unknown) => e instanceof AirlockError && e.code === 'drifted' && /systemctl is-active -- demo\.service/.test(e.message));
});

test('what cannot be reverted is refused with its reason; an unknown transaction is not found', async () => {
  const h = host();
  h.finished.set(TX, await change(h, { unavailable: 'SignalProcess cannot be rolled back: a delivered signal cannot be taken back' }));
  await assert.rejects(built(h), (e: unknown) => e instanceof AirlockError && e.code === 'not_revertible' && /delivered signal/.test(e.message));
  await assert.rejects(built(host()), (e: unknown) => e instanceof AirlockError && e.code === 'no_such_transaction');
});

test('a change that kept nothing to undo (an event: a restart) reverts as no change', async () => {
  const h = host();
  h.finished.set(TX, await change(h, { kept: [] }));
  await assert.rejects(built(h), (e: unknown) => e instanceof NoChange && /nothing to undo/.test((e as Error).message));
});

test('the requester sees what is reverted, never the kept bytes', async () => {
  const h = host();
  h.finished.set(TX, await change(h));
  const { cur } = await built(h);
  const shown = JSON.stringify(revert.shown!(cur));
  assert.doesNotMatch(shown, /127\.0\.0\.1/);
  assert.match(shown, /\/etc\/hosts/);
});

test('a revert may write the files the reverted change wrote, as kept, and no others', async () => {
  const h = host();
  h.finished.set(TX, await change(h));
  const { cur } = await built(h);
  assert.deepEqual(revert.files, []);
  assert.deepEqual([...revert.filesFrom!(cur)].sort(), ['/etc/hosts', '/etc/new.conf']);
});

test('a file the reverted change deleted is written back with its lines bound but not shown, as its deletion showed only its digest', async () => {
  const h = host();
  h.finished.set(TX, await change(h, { kept: [{ kind: 'file', path: '/etc/cron.d/backup', existed: true, content: '0 3 * * * root /usr/local/bin/backup --token=x\n', mode: 0o644, owner: { uid: 0, gid: 0 }, deleted: true }], probes: [], after: {} }));
  const { steps } = await built(h);
  assert.deepEqual(steps, [{ kind: 'fileWrite', path: '/etc/cron.d/backup', content: '0 3 * * * root /usr/local/bin/backup --token=x\n', mode: 0o644, owner: { uid: 0, gid: 0 }, contentShown: false }]);
});

test('a finished change keeps at most MAX_KEPT_BYTES of files for its revert, and says so beyond', () => {
  const file = (n: number): KeptStep => ({ kind: 'file', path: '/etc/big', existed: true, content: 'x'.repeat(n), mode: 0o644, owner: { uid: 0, gid: 0 } });
  const a = CATALOGUE.get('AddHostsEntry')!;
  // Counted as stored: JSON, its two quotes included.
  assert.equal(keptRevert(a, [file(MAX_KEPT_BYTES - 2)], [], {}, {}).unavailable, undefined);
  const over = keptRevert(a, [file(MAX_KEPT_BYTES - 2), file(0)], [], {}, {});
  // A NUL is stored as \u0000: six bytes, counted as six.
  assert.match(keptRevert(a, [file(0), { kind: 'file', path: '/etc/nul', existed: true, content: '\u0000'.repeat(Math.ceil(MAX_KEPT_BYTES / 6)), mode: 0o644, owner: { uid: 0, gid: 0 } }], [], {}, {}).unavailable!, /over the/);
  assert.match(over.unavailable!, /over the/);
  assert.deepEqual(over.kept, [], 'nothing of it is kept');
  assert.match(keptRevert(a, null, [], {}, {}).unavailable!, /nothing undoes/);
  assert.match(keptRevert(a, [], [], 'the state it touches could not be read before it: x', {}).unavailable!, /could not be read/);
});
