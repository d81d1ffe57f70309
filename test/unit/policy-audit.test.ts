/**
 * The policy's [audit] section: where tree heads go. Every mistake is refused with a
 * sentence naming it, and nothing that would leak or weaken a sink is accepted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePolicy, PolicyError, DEFAULT_POLICY, explainPolicy } from '../../src/policy/policy.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { formatVkey, formatWitnessVkey } from '../../src/audit/note.js';

const witnessKey = formatWitnessVkey('w1.example', signingKeyFromSeed(Buffer.alloc(32, 3)).publicRaw);
const audit = (body: string) => parsePolicy(`[audit]\n${body}\n`).audit;
const refused = (body: string, why: RegExp) => assert.throws(() => audit(body), (e: unknown) => e instanceof PolicyError && why.test(e.message), body);

test('by default: a head every 60 s, the local file only', () => {
  assert.deepEqual(DEFAULT_POLICY.audit, { checkpointIntervalSeconds: 60, witnesses: [] });
  assert.ok(explainPolicy(DEFAULT_POLICY).lines.some((l) => /no copy leaves the host/.test(l)));
});

test('every sink, read', () => {
  const a = audit(`checkpoint_interval_seconds = 5\nsyslog = "tls://[::1]:6514"\nsyslog_ca = "/etc/airlock/ca.pem"\nwitnesses = [{ url = "https://w1.example/", key = "${witnessKey}" }]\npostgres = "postgresql://airlock_host@db.example/audit"`);
  assert.equal(a.checkpointIntervalSeconds, 5);
  assert.deepEqual(a.syslog, { protocol: 'tls', host: '::1', port: 6514 });
  assert.equal(a.witnesses[0]!.name, 'w1.example');
  assert.equal(a.witnesses[0]!.publicRaw.length, 32);
  assert.deepEqual(audit('syslog = "tcp://logs.example:514"').syslog, { protocol: 'tcp', host: 'logs.example', port: 514 });
});

test('refused: other schemes, bad hosts and ports, options smuggled into the URL', () => {
  for (const s of ['udp://logs:514', 'tcp://logs', 'tcp://logs:0', 'tcp://logs:65536', 'tcp://-x:514', 'tcp://lo gs:514', 'tcp://logs:514/x', 'tls://user@logs:514', 'TCP://logs:514']) refused(`syslog = "${s}"`, /syslog|port/);
  refused('syslog = "tcp://logs:514"\nsyslog_ca = "/ca.pem"', /goes with a syslog = "tls/);
  refused('syslog = "tls://logs:514"\nsyslog_ca = "ca.pem"', /absolute path/);
  refused('checkpoint_interval_seconds = 0', /checkpoint_interval_seconds/);
  refused('checkpoint_interval_seconds = 1.5', /checkpoint_interval_seconds/);
  refused('colour = "blue"', /colour|Unrecognized/i);
});

test('refused: a witness without a witness key (a log key, a typo, a forged hash), twice, or too many', () => {
  const logKey = formatVkey('w1.example', signingKeyFromSeed(Buffer.alloc(32, 3)).publicRaw);
  refused(`witnesses = [{ url = "https://w1.example/", key = "${logKey}" }]`, /type 0x01/);
  refused(`witnesses = [{ url = "https://w1.example/", key = "${witnessKey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')}" }]`, /key hash/);
  refused(`witnesses = [{ url = "ftp://w1.example/", key = "${witnessKey}" }]`, /url|protocol/i);
  refused(`witnesses = [{ url = "https://w1.example/", key = "${witnessKey}" }, { url = "https://w1.example/", key = "${witnessKey}" }]`, /twice/);
  const nine = Array.from({ length: 9 }, (_, i) => `{ url = "https://w${i}.example/", key = "${witnessKey}" }`).join(', ');
  refused(`witnesses = [${nine}]`, /witnesses/);
  refused(`witnesses = [{ url = "https://w1.example/" }]`, /key/);
});

test('refused: a postgres URL with a password (the policy is readable by auditors), without a host, of another scheme', () => {
  refused('postgres = "postgres://u:secret@db.example/audit"', /password.*pgpass/);
  refused('postgres = "postgres:///audit"', /names the server/);
  refused('postgres = "mysql://db.example/audit"', /postgres:\/\//);
  refused('postgres = "not a url"', /URL/);
});
