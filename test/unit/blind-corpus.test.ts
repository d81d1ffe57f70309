/**
 * The blind secret corpus's generator checks itself: deterministic per seed, about a hundred
 * kinds at six or more values each, every planted value really in its file, no planted value a
 * placeholder, and the ordinary files free of every planted value. It never imports the masker:
 * the corpus must stay independent of what it measures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { blindCorpus, kindCounts, KIND_SPECS, PER_KIND, ORDINARY_FILES } from '../support/blind-corpus/index.js';

const corpus = blindCorpus(1);
const lineCount = (s: string): number => s.split('\n').filter((l) => l.length > 0).length;

test('the same seed gives the same bytes, another seed other values', () => {
  assert.deepEqual(blindCorpus(1), corpus);
  const other = blindCorpus(2);
  assert.equal(other.planted.length > 0, true);
  const values1 = new Set(corpus.planted.flatMap((f) => f.secrets.map((s) => s.value)));
  const shared = other.planted.flatMap((f) => f.secrets).filter((s) => values1.has(s.value));
  assert.deepEqual(shared, []);
  assert.notEqual(other.ordinary[0]!.text, corpus.ordinary[0]!.text);
});

test('about a hundred kinds, each planted at least PER_KIND times, about 650 values', () => {
  const counts = kindCounts(corpus.planted);
  assert.ok(counts.size >= 90 && counts.size <= 115, `kinds: ${counts.size}`);
  for (const spec of KIND_SPECS) for (const kind of spec.kinds) assert.ok((counts.get(kind) ?? 0) >= PER_KIND, `${kind}: ${counts.get(kind)}`);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  assert.ok(total >= 550 && total <= 750, `values: ${total}`);
  // No kind dominates. Recovery codes and unseal keys come 5..10 to a file, so they run higher.
  for (const [kind, n] of counts) assert.ok(n <= (kind === 'otp-recovery-code' ? 4 : 2) * PER_KIND, `${kind}: ${n}`);
});

test('the kinds the issue asks for are all there', () => {
  const counts = kindCounts(corpus.planted);
  const required = ['k3s-token', 'kubeadm-bootstrap-token', 'kubeadm-certificate-key', 'docker-swarm-join-token', 'elastic-enrollment-token', 'consul-acl-token',
    'vault-service-token', 'vault-batch-token', 'vault-legacy-token', 'docker-config-auth', 'gitlab-pat', 'github-classic-pat', 'github-oauth-token', 'github-fine-grained-pat',
    'npm-token', 'pypi-token', 'snmp-community', 'snmpv3-auth-pass', 'snmpv3-priv-pass', 'ntp-symmetric-key', 'chrony-key', 'postfix-sasl-password', 'msmtp-password',
    'otp-recovery-code', 'synapse-signing-key', 'synapse-registration-secret', 'mattermost-salt', 'aws-access-key-id', 'aws-secret-access-key', 'azure-storage-account-key',
    'gcs-hmac-secret', 'gcp-service-account-private-key', 'crypt-md5', 'crypt-sha256', 'crypt-sha512', 'crypt-yescrypt', 'crypt-bcrypt', 'argon2id-hash', 'crypt-scrypt',
    'htpasswd-sha1', 'htpasswd-apr1', 'totp-uri-secret', 'totp-raw-seed', 'k8s-secret-data', 'k8s-secret-stringdata', 'wpa-supplicant-psk', 'networkmanager-psk',
    'hostapd-passphrase', 'password-ini', 'password-yaml', 'password-json', 'password-xml-attribute', 'password-xml-element', 'password-dotenv', 'password-toml',
    'cli-password-flag', 'mysql-p-flag', 'pgpassword-env', 'postgres-url-password', 'mongodb-srv-password', 'redis-url-password', 'jdbc-password', 'odbc-pwd',
    'http-bearer-token', 'http-basic-credentials', 'pem-rsa-private-key', 'openssh-private-key', 'slack-bot-token', 'stripe-secret-key', 'twilio-auth-token', 'sendgrid-api-key',
    'jwt', 'url-api-key-param', 'url-token-param', 'wireguard-private-key', 'wireguard-preshared-key', 'openvpn-static-key', 'ldap-bindpw', 'redis-requirepass',
    'mysql-mycnf-password', 'pgpass-password', 'rclone-obscured-pass', 'restic-password', 'borg-passphrase', 'ansible-vault-password'];
  for (const kind of required) assert.ok(counts.has(kind), kind);
});

test('every planted value is in its file, with ordinary context around it', () => {
  for (const f of corpus.planted) {
    assert.ok(f.secrets.length > 0, f.name);
    for (const s of f.secrets) assert.ok(f.text.includes(s.value), `${f.name}: ${s.kind}`);
    assert.ok(lineCount(f.text) >= 4, `${f.name} has ${lineCount(f.text)} lines`);
    const secretChars = [...new Set(f.secrets.map((s) => s.value))].reduce((n, v) => n + v.length, 0);
    assert.ok(f.text.length - secretChars >= 80, `${f.name}: too little context`);
  }
  const names = corpus.planted.map((f) => f.name);
  assert.equal(new Set(names).size, names.length, 'file names are unique');
});

const PLACEHOLDER = /changeme|change_me|change-me|redacted|placeholder|your[-_]|xxxxx|\*\*\*|<[a-z _-]+>|\$\{|\{\{|^\$[A-Z_]+$|^example$|^password$|^secret$/i;

test('no planted value is a placeholder or trivially short', () => {
  for (const f of corpus.planted) {
    for (const s of f.secrets) {
      assert.doesNotMatch(s.value, PLACEHOLDER, `${f.name}: ${s.value}`);
      assert.ok(s.value.length >= 8, `${f.name}: ${s.value}`);
      assert.ok(!/\s$|^\s/.test(s.value), `${f.name}: value has edge whitespace`);
    }
  }
});

test('ordinary files: the stated number, many lines each, and no planted value in any of them', () => {
  assert.equal(corpus.ordinary.length, ORDINARY_FILES);
  const lines = corpus.ordinary.map((o) => lineCount(o.text));
  assert.ok(Math.min(...lines) >= 15, `shortest ordinary file: ${Math.min(...lines)}`);
  const average = lines.reduce((a, b) => a + b, 0) / lines.length;
  assert.ok(average >= 35, `average ordinary lines: ${average}`);
  const all = corpus.ordinary.map((o) => o.text).join('\n\u0000\n');
  for (const f of corpus.planted) for (const s of f.secrets) assert.ok(!all.includes(s.value), `${f.name}: ${s.value} appears in ordinary text`);
  // The ordinary set does carry the look-alikes it is meant to: placeholders, digests, ids, public keys.
  for (const needle of ['changeme', '${DB_PASSWORD}', 'sha256:', '-----BEGIN CERTIFICATE-----', 'ssh-ed25519 AAAA', 'InvocationID=', 'UUID=', '(sensitive value)', 'commit ']) {
    assert.ok(all.includes(needle), needle);
  }
});

test('the kinds list at the top of index.ts matches what seed 1 generates', () => {
  const source = readFileSync(fileURLToPath(new URL('../support/blind-corpus/index.ts', import.meta.url)), 'utf8');
  const documented = new Map<string, number>();
  for (const m of source.matchAll(/^ \* {3}([a-z0-9-]+) +(\d+)$/gm)) documented.set(m[1]!, Number(m[2]));
  assert.deepEqual([...documented], [...kindCounts(corpus.planted)]);
});
