/**
 * What the daemon decides at start for a transaction left NeedsReboot (src/daemon/reboots.ts):
 * finished only when it was recorded in another boot than this one. The store side (oldest
 * first, bounded, once) is in the store contract (test/support/store-contract.ts); the whole of
 * it, with a real reboot, in test/integration/reboot.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentBootId, rebootVerdict } from '../../src/daemon/reboots.js';
import { parseSchedule } from '../../src/catalogue/families/system/boot-state.js';

const A = '216fc5da-d366-4938-b72f-14205032d855';
const B = '9a0e1c2b-3d4f-4a5b-8c6d-7e8f9a0b1c2d';

test('same boot: it stays NeedsReboot (a reboot still ahead); another boot: Succeeded, naming the boot before', () => {
  assert.equal(rebootVerdict({ result: { state: 'NeedsReboot', boot_id_before: A } }, A), null);
  assert.deepEqual(rebootVerdict({ result: { state: 'NeedsReboot', boot_id_before: A } }, B), { bootBefore: A });
});

test('no boot recorded, or not a boot id: it cannot be told apart, so it stays', () => {
  for (const result of [null, {}, { boot_id_before: null }, { boot_id_before: 'not-a-uuid' }, { boot_id_before: 7 }]) assert.equal(rebootVerdict({ result: result as Record<string, unknown> | null }, B), null, JSON.stringify(result));
});

test('this machine shows its boot id as a UUID', () => {
  assert.match(currentBootId() ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
});

test('the schedule logind keeps: mode, time, message; anything else is none', () => {
  const s = parseSchedule('USEC=1796662565390256\nWARN_WALL=1\nMODE=reboot\nUID=0\nWALL_MESSAGE=Kernel update: back in 5 minutes\n');
  assert.deepEqual(s, { mode: 'reboot', at: new Date(1796662565390).toISOString(), message: 'Kernel update: back in 5 minutes' });
  assert.equal(parseSchedule(null), null);
  assert.equal(parseSchedule('USEC=1\n'), null, 'no MODE: not a schedule');
  assert.equal(parseSchedule('MODE=reboot; rm -rf\n'), null, 'a mode that is not a word');
  assert.equal(parseSchedule('MODE=poweroff\nUSEC=x\n')?.at, null);
  assert.equal(parseSchedule('x'.repeat(5000)), null, 'bounded');
});

test('an action whose step takes the host down needs a reboot, declares no rollback, and runs one command (the daemon writes its outcome before it)', async () => {
  const { CATALOGUE } = await import('../../src/catalogue/index.js');
  const down = [...CATALOGUE.values()].filter((a) => a.takesHostDown);
  assert.deepEqual(down.map((a) => a.name), ['RebootHost']);
  for (const a of down) {
    assert.equal(a.reboot, true, a.name);
    assert.equal(a.readOnly, false, a.name);
    assert.equal(!a.readOnly && a.rollback.class, 'none', `${a.name}: a reboot cannot be undone`);
    const steps = a.mechanism(a.example, { bootId: A, uptimeSeconds: 1, scheduled: null });
    assert.deepEqual(steps.map((s) => s.kind), ['command'], a.name);
  }
  // What needs a reboot: these, and nothing else said so by accident.
  assert.deepEqual([...CATALOGUE.values()].filter((a) => a.reboot).map((a) => a.name).sort(), ['RebootHost', 'ScheduleReboot']);
});

test('the -c guard lets through `shutdown -c` alone, exactly', async () => {
  const { shellViolation } = await import('../../src/catalogue/programs.js');
  assert.equal(shellViolation('shutdown', ['-c']), null);
  for (const [program, args] of [['shutdown', ['-c', 'message']], ['shutdown', ['-r', '-c']], ['systemctl', ['-c']], ['ls', ['-c']]] as const) assert.match(shellViolation(program, args) ?? '', /is passed -c/, `${program} ${args.join(' ')}`);
});
