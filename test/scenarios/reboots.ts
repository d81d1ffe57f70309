/**
 * Reboots, on the booted test bed (systemd's shutdown asks logind, which keeps the schedule in
 * /run/systemd/shutdown/scheduled and warns logged-in users). A reboot itself ends the test bed
 * the scenarios share: RebootHost runs in test/integration/reboot.test.ts, on a test bed of its
 * own that boots again, where the daemon reconciles it.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const SCHEDULE = '/run/systemd/shutdown/scheduled';
const MESSAGE = 'Airlock scenario: reboot in 30 minutes';

async function schedule(box: SandboxView): Promise<Map<string, string> | null> {
  const text = await box.readFile(SCHEDULE);
  if (text === null) return null;
  return new Map(text.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

export const scenarios: Scenario[] = [
  {
    action: 'ScheduleReboot',
    params: { delay_minutes: 30, message: MESSAGE },
    // A change that needs a reboot: done once the host came back (reboot.test.ts shows that part).
    expect: 'NeedsReboot',
    setup: async (box) => assert.equal(await schedule(box), null, 'no shutdown is scheduled before'),
    check: async (box, r) => {
      assert.equal(r.needs_reboot, true);
      const s = await schedule(box);
      assert.ok(s, `${SCHEDULE} written by logind`);
      assert.equal(s.get('MODE'), 'reboot');
      assert.equal(s.get('WALL_MESSAGE'), MESSAGE);
      const at = Number(BigInt(s.get('USEC')!) / 1000n);
      assert.ok(Math.abs(at - (Date.now() + 30 * 60_000)) < 3 * 60_000, `scheduled about 30 minutes ahead: ${new Date(at).toISOString()}`);
      assert.match(r.summary, /^Scheduled a reboot at /);
    },
  },
  {
    action: 'CancelScheduledReboot',
    params: {},
    setup: async (box) => assert.equal((await schedule(box))?.get('MODE'), 'reboot', 'the reboot ScheduleReboot left'),
    check: async (box, r) => {
      assert.equal(await schedule(box), null, 'the schedule is gone');
      assert.equal(r.summary, 'No shutdown is scheduled now');
    },
  },
];
