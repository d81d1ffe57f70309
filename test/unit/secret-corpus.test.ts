/**
 * The masking corpus itself (test/support/secret-corpus.ts): the detectors' figures are only as good as it is, so its
 * size, its coverage of what issue 11 lists, the measurability of every planted value and its determinism are held here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ordinaryOutputs, plantedSecrets } from '../support/secret-corpus.js';
import { base62, crc32 } from '../support/corpus-random.js';

const planted = plantedSecrets();
const ordinary = ordinaryOutputs();
const secrets = planted.flatMap((f) => f.secrets.map((s) => ({ ...s, file: f.name })));

test('at least 220 planted secrets over at least 40 distinct files', () => {
  assert.ok(secrets.length >= 220, `${secrets.length} secrets`);
  const names = new Set(planted.map((f) => f.name));
  assert.equal(names.size, planted.length, 'file names are unique');
  assert.ok(names.size >= 40, `${names.size} files`);
  for (const f of planted) assert.ok(f.secrets.length > 0, `${f.name} plants something`);
});

test('every value is at least 8 characters, occurs in its own text and is unique across the corpus', () => {
  const owner = new Map<string, string>();
  for (const s of secrets) {
    assert.ok(s.value.length >= 8, `${s.file}: ${s.kind} "${s.value}" is too short to measure`);
    assert.ok(planted.find((f) => f.name === s.file)!.text.includes(s.value), `${s.file}: ${s.kind} not in its text`);
    assert.ok(!owner.has(s.value), `${s.kind} value planted twice (${owner.get(s.value)} and ${s.file})`);
    owner.set(s.value, s.file);
  }
});

test('no planted value occurs by chance in another planted file or in any ordinary output', () => {
  for (const s of secrets) {
    for (const f of planted) if (f.name !== s.file) assert.ok(!f.text.includes(s.value), `${s.file}: ${s.kind} also occurs in ${f.name}`);
    for (const f of ordinary) assert.ok(!f.text.includes(s.value), `${s.file}: ${s.kind} occurs in ordinary ${f.name}`);
  }
});

test('values are the secret material alone, with no surrounding syntax', () => {
  for (const s of secrets) {
    assert.ok(!/^\s|\s$/.test(s.value), `${s.file}: ${s.kind} has surrounding whitespace`);
    assert.ok(!/\n/.test(s.value), `${s.file}: ${s.kind} spans lines`);
    assert.ok(!/^["']|["']$/.test(s.value), `${s.file}: ${s.kind} keeps its quotes`);
    assert.ok(!/^(password|passwd|secret|token|api_?key)\s*[=:]/i.test(s.value), `${s.file}: ${s.kind} keeps its name`);
  }
});

test('the planted corpus covers every shape issue 11 lists', () => {
  const values = secrets.map((s) => s.value);
  const prefixes = ['AKIA', 'ASIA', 'ghp_', 'gho_', 'ghs_', 'ghu_', 'ghr_', 'github_pat_', 'glpat-', 'npm_', 'pypi-', 'dckr_pat_', 'xoxb-', 'xoxp-', 'xapp-', 'SG.',
    'sk_live_', 'rk_live_', 'sq0atp-', 'sq0csp-', 'EAAA', 'sk-proj-', 'sk-ant-', 'AIza', 'hf_', 'gsk_', 'xai-', 'key-', 'eyJ', '$y$', '$6$', '$5$', '$2b$', '$1$'];
  for (const p of prefixes) assert.ok(values.some((v) => v.startsWith(p)), `a value starting ${p}`);
  assert.ok(values.some((v) => /^[0-9a-f]{32}-us\d+$/.test(v)), 'a Mailchimp key');
  assert.ok(values.some((v) => /^\d{8,10}:AA[\w-]{33}$/.test(v)), 'a Telegram bot token');
  assert.ok(values.some((v) => /^[\w-]{24,28}\.[\w-]{6}\.[\w-]{27,38}$/.test(v)), 'a Discord bot token');
  assert.ok(values.some((v) => /^T\w+\/B\w+\/\w{24}$/.test(v)), 'a Slack webhook path');
  const all = planted.map((f) => f.text).join('\n');
  for (const armour of ['RSA PRIVATE KEY', 'EC PRIVATE KEY', 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'DSA PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'PGP PRIVATE KEY BLOCK'])
    assert.ok(all.includes(`-----BEGIN ${armour}-----\n`), armour);
  assert.ok(all.includes('Proc-Type: 4,ENCRYPTED'), 'a legacy encrypted PEM');
  assert.ok(/"private_key": "-----BEGIN PRIVATE KEY-----\\n/.test(all), 'a key in a JSON string with escaped newlines');
  for (const context of ['AccountKey=', 'SharedAccessKey=', '&sig=', 'hooks.slack.com/services/', 'Authorization: Bearer ', 'Authorization: Basic ', 'postgres://', 'redis://',
    'amqp://', 'mongodb+srv://', 'client-key-data: ', '"auth": ', '"identitytoken": ', 'Environment="', 'key-management: psk, password: ', '\tpsk="', 'define( \'DB_PASSWORD\'',
    'aws_secret_access_key', 'Config', 'MYSQL_ROOT_PASSWORD', 'DB_PASSWORD', 'client_secret', 'requirepass', 'machine ', 'pass = ', '_authToken='])
    assert.ok(all.includes(context), `some planted file has ${JSON.stringify(context)}`);
  const kinds = new Set(secrets.map((s) => s.kind));
  for (const k of ['pgpass_password', 'mycnf_password', 'kube_token', 'kube_password', 'wifi_password', 'wifi_psk', 'docker_auth', 'url_password', 'bearer_token', 'basic_auth'])
    assert.ok(kinds.has(k), k);
});

test('GitHub and npm tokens carry the base62 CRC-32 checksum of their random part', () => {
  const checked = secrets.filter((s) => /^(gh[posur]|npm)_/.test(s.value));
  assert.ok(checked.length >= 10);
  for (const { value } of checked) {
    const body = value.slice(value.indexOf('_') + 1);
    assert.equal(body.length, 36, value);
    assert.equal(body.slice(30), base62(crc32(body.slice(0, 30)), 6), value);
  }
});

test('at least 20,000 ordinary lines, none with a planted secret, full of the near-misses that must stay', () => {
  const lines = ordinary.reduce((n, f) => n + f.text.split('\n').length - 1, 0);
  assert.ok(lines >= 20_000, `${lines} ordinary lines`);
  assert.equal(new Set(ordinary.map((f) => f.name)).size, ordinary.length, 'file names are unique');
  for (const f of ordinary) assert.deepEqual(f.secrets, [], f.name);
  const all = ordinary.map((f) => f.text).join('\n');
  assert.ok(!/-----BEGIN [A-Z ]*PRIVATE KEY/.test(all), 'no private key armour in ordinary output');
  for (const miss of ['-----BEGIN CERTIFICATE-----', '-----BEGIN PGP PUBLIC KEY BLOCK-----', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5', 'ssh-rsa AAAAB3NzaC1yc2E', '|1|',
    'SHA256: ', 'sha256:', 'sha512-', 'Modulus:', 'PasswordAuthentication no', 'PermitEmptyPasswords no', 'pam_unix.so obscure use_authtok try_first_pass yescrypt',
    'key_size=4096', 'token_lifetime = 3600', '${DB_PASSWORD}', 'PASSWORD_FILE=/run/secrets/db', 'password = <redacted>', 'secret: ""', 'token_file=/etc/app/token',
    ':x:1000:', ':*:', ':!:', ':!*:', 'UUID=', 'Machine ID: ', 'Failed password for', 'table inet filter', 'Signed-By:', 'Config', 'ii  '])
    assert.ok(all.includes(miss), `ordinary output has ${JSON.stringify(miss)}`);
  assert.ok(/\b[0-9a-f]{40}\b/.test(all) && /\b[0-9a-f]{64}\b/.test(all) && /\b[0-9a-f]{128}\b/.test(all), 'sha1, sha256 and sha512 hex digests');
  assert.ok(/\b[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\b/.test(all), 'UUIDs');
});

test('deterministic: two calls give identical corpora', () => {
  assert.deepEqual(plantedSecrets(), planted);
  assert.deepEqual(ordinaryOutputs(), ordinary);
});
