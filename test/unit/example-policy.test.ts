/**
 * The policy `airlock install` writes: the daemon's parser reads it as exactly the built-in
 * default, and every commented example in it is a valid policy line once uncommented.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXAMPLE_POLICY } from '../../src/cli/example-policy.js';
import { DEFAULT_POLICY, parsePolicy, type Policy } from '../../src/policy/policy.js';

const meaning = (p: Policy) => ({ ...p, digest: undefined, source: undefined, riskOverrides: [...p.riskOverrides] });

test('the installed example policy means exactly the built-in default', () => {
  assert.deepEqual(meaning(parsePolicy(EXAMPLE_POLICY)), meaning(DEFAULT_POLICY));
});

test('its commented examples, uncommented, are a valid policy that changes every setting they show', () => {
  const keyOf = (l: string) => (/^[a-z_]+ =/.test(l) ? l.split(' =')[0] : null);
  const lines = EXAMPLE_POLICY.split('\n').map((l) => (/^#(?! |$)/.test(l) ? l.slice(1) : l));
  // An uncommented example replaces the default setting on the line just above it.
  const examples = lines.filter((l, i) => keyOf(l) === null || keyOf(l) !== keyOf(lines[i + 1] ?? ''));
  const p = parsePolicy(examples.join('\n'));
  assert.deepEqual(p.unattended, ['ci-runner']);
  assert.equal(p.riskOverrides.get('CreateGroup'), 'high');
  assert.equal(p.highApprovers, 2);
  assert.deepEqual(p.pseudonyms, ['email', 'ip', 'hostname']);
  assert.deepEqual(p.notify.command, ['/usr/bin/logger', '-t', 'airlock']);
  assert.equal(p.rules.length, 1);
  assert.equal(p.rules[0]!.action, 'RestartService');
  assert.equal(p.audit.checkpointIntervalSeconds, 30);
  assert.deepEqual(p.audit.syslog, { protocol: 'tls', host: 'logs.example.org', port: 6514 });
  assert.equal(p.audit.syslogCa, '/etc/airlock/syslog-ca.pem');
  assert.deepEqual(p.audit.witnesses.map((w) => [w.url, w.name]), [['https://witness.example.org/', 'witness.example.org']]);
  assert.equal(p.audit.postgres, 'postgres://airlock_host@db.example.org/audit');
  assert.deepEqual(p.store, { keepDetailsMs: 86_400_000, keepHistoryMs: 30 * 86_400_000, archiveSegmentEntries: 50_000, archiveAfterMs: 7 * 86_400_000, archiveDir: '/srv/airlock-archive', minFreeBytes: 512 * 1048576, reserveBytes: 128 * 1048576 });
});
