/**
 * The `boot` role (group airlock-boot, LACS §4.1) gives no action of its own: LACS names no
 * boot-time action, and Airlock's boot-time changes (EnableService, CreateTimer, a cron
 * @reboot job) are an admin's or a dev's, approved by a person like any change. A principal in
 * airlock-boot alone reaches exactly what an observer reaches: it previews the Low actions
 * (reads) and nothing above. docs/security.md says so; this holds it to the catalogue, so
 * neither can drift.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { mayCall, mayPreview, type Caller } from '../../src/daemon/authz.js';
import { DOOR } from '../../src/daemon/door.js';
import { METHODS } from '../../src/protocol/methods.js';
import type { Role } from '../../src/protocol/risk.js';

const principal = (role: Role): Caller => ({ uid: 1010, user: role, role, approver: false, pid: 1, unattended: false, person: { uid: 1010, user: role, role, approver: false, via: 'self' } });
const boot = principal('boot');
const observer = principal('observer');

test('the boot role previews exactly what an observer previews: every Low action, nothing above', () => {
  const reach = (who: Caller) => [...CATALOGUE.values()].filter((a) => mayPreview(who, a.name, a.risk).ok).map((a) => a.name);
  const bootReach = reach(boot);
  assert.deepEqual(bootReach, reach(observer));
  assert.deepEqual(bootReach, [...CATALOGUE.values()].filter((a) => a.risk === 'low').map((a) => a.name));
  for (const a of CATALOGUE.values()) if (!a.readOnly) assert.equal(mayPreview(boot, a.name, a.risk).ok, false, `${a.name} is a change: not the boot role's`);
  // The reboot actions in particular.
  for (const name of ['RebootHost', 'ScheduleReboot', 'CancelScheduledReboot']) assert.equal(mayPreview(boot, name, CATALOGUE.get(name)!.risk).ok, false, name);
});

test('the boot role calls the same methods as an observer', () => {
  for (const method of METHODS) {
    const rule = DOOR[method];
    assert.equal(mayCall(boot, rule.access, method).ok, mayCall(observer, rule.access, method).ok, method);
  }
});
