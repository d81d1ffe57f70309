/**
 * Unit names read as systemctl reads them, over the whole catalogue: every action with a
 * unit parameter takes `nginx` for nginx.service, normalised by the shared validator before
 * the daemon hashes, previews or logs anything, so the preview and the log say nginx.service.
 * A name with a type suffix is kept as it is, and what an action refuses it still refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { unitWithType } from '../../src/catalogue/params.js';
import { requestHash } from '../../src/protocol/hash.js';

/** Actions whose `unit` parameter is a systemd unit name (ExtendLogicalVolume's `unit` is M or G). */
const unitPattern = (a: { params: z.ZodType }) => (z.toJSONSchema(a.params) as { properties?: { unit?: { pattern?: string } } }).properties?.unit?.pattern ?? '';
const withUnit = [...CATALOGUE.values()].filter((a) => unitPattern(a).includes('service'));

test('the catalogue has unit parameters to check (the filter finds them)', () => {
  for (const name of ['StartService', 'RestartService', 'EnableService', 'ServiceStatus', 'SignalUnit', 'CreateTimer', 'EnableTimer', 'JournalQuery', 'ShowUnitFile']) {
    assert.ok(withUnit.some((a) => a.name === name), name);
  }
});

test('every action with a unit parameter reads `nginx` as nginx.service, or refuses it for the type it needs', () => {
  for (const a of withUnit) {
    const example = a.example as Record<string, unknown>;
    const r = a.params.safeParse({ ...example, unit: 'nginx' });
    if (r.success) {
      assert.equal((r.data as { unit: string }).unit, 'nginx.service', a.name);
      // The request hash, which the preview, the approval and the log carry, is the one of nginx.service.
      assert.equal(requestHash(a.name, r.data as Record<string, unknown>), requestHash(a.name, a.params.parse({ ...example, unit: 'nginx.service' }) as Record<string, unknown>), a.name);
    } else {
      // Only the timer actions take no service; they say which type they need.
      assert.match(String(example.unit), /\.timer$/, `${a.name} refuses nginx: ${r.error.issues[0]?.message}`);
      assert.match(r.error.issues.map((i) => i.message).join(' '), /\.timer/, a.name);
    }
  }
});

test('a name with a type suffix is kept, templates need their instance, and the refusals of the validator still apply', () => {
  assert.equal(unitWithType('nginx'), 'nginx.service');
  assert.equal(unitWithType('getty@tty1'), 'getty@tty1.service');
  assert.equal(unitWithType('logrotate.timer'), 'logrotate.timer');
  assert.equal(unitWithType('foo.bar'), 'foo.bar', 'a name with a dot is taken as written (and refused when it has no known type)');
  assert.equal(unitWithType('cron.service.d'), 'cron.service.d', 'a drop-in directory is not guessed into a unit');
  assert.equal(unitWithType('dev-sda1.swap'), 'dev-sda1.swap', 'a type Airlock does not manage is kept, and then refused');
  const restart = CATALOGUE.get('RestartService')!;
  for (const bad of ['', '-x', 'getty@', '../nginx', 'ngi nx', 'nginx\n', 'dev-sda1.swap', 'foo.bar', 'cron.service.d', 'a'.repeat(250)]) {
    assert.equal(restart.params.safeParse({ unit: bad }).success, false, JSON.stringify(bad));
  }
  assert.equal(restart.params.safeParse({ unit: 42 }).success, false, 'a number is not normalised into a name');
  const showUnit = CATALOGUE.get('ShowUnitFile')!;
  assert.equal((showUnit.params.parse({ unit: 'ssh.socket' }) as { unit: string }).unit, 'ssh.socket');
});
