/**
 * The secret detectors (src/mask) one syntax at a time, what they must leave alone, the
 * stream across every split point, JSON values, pseudonyms, and the daemon's output path.
 * The corpus tests (mask-corpus.test.ts) measure recall and false positives at scale.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { maskText, secretSpans } from '../../src/mask/mask.js';
import { MaskStream, HOLD_LIMIT } from '../../src/mask/stream.js';
import { maskDeep } from '../../src/mask/deep.js';
import { secretName, kindOfName } from '../../src/mask/names.js';
import { Pseudonyms, replaceEmails } from '../../src/mask/pseudonyms.js';
import { releaseOutput, MAX_LINE_LENGTH } from '../../src/daemon/output.js';
import { SHOWN_VALUE_CHARS, shownParams, shownValue } from '../../src/daemon/secret-params.js';

const alnum = (n: number) => randomBytes(n * 2).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, n).padEnd(n, 'x');
const hex = (n: number) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n);

/** [text with the value as {V}, the value, the kind it must be masked as]. */
const SECRETS: [string, string, string][] = [
  ['DB_PASSWORD={V}', alnum(14), 'password'],
  ['export MYSQL_ROOT_PASSWORD="{V}"', alnum(20), 'password'],
  ['Environment="API_TOKEN={V}" "MODE=prod"', alnum(32), 'token'],
  ['Environment=API_TOKEN={V}', alnum(32), 'token'],
  ['      password: "{V}"', `${alnum(6)} ${alnum(6)} ${alnum(5)}`, 'password'],
  ['  password: {V}', alnum(12), 'password'],
  ['psk="{V}"', `correct horse ${alnum(8)}`, 'psk'],
  ['psk={V}', hex(64), 'psk'],
  ['{"client_secret": "{V}", "user": "bob"}', alnum(24), 'secret'],
  ['{\\"password\\": \\"{V}\\"}', alnum(16), 'password'],
  ["define('DB_PASSWORD', '{V}');", alnum(12), 'password'],
  ["'password' => '{V}',", alnum(12), 'password'],
  ['db.password={V}', alnum(12), 'password'],
  ['X-Api-Key: {V}', alnum(32), 'api_key'],
  ['--password={V}', alnum(10), 'password'],
  ['aws_secret_access_key = {V}', alnum(40), 'secret'],
  ['AccountName=x;AccountKey={V};EndpointSuffix=core.windows.net', randomBytes(64).toString('base64'), 'secret'],
  ['"auth": "{V}"', Buffer.from(`user:${alnum(12)}`).toString('base64'), 'key'],
  ['client-key-data: {V}', randomBytes(90).toString('base64'), 'private_key'],
  ['Authorization: Bearer {V}', alnum(40), 'bearer'],
  ['GET / HTTP/1.1 authorization: Basic {V}', Buffer.from(`u:${alnum(10)}`).toString('base64'), 'basic_auth'],
  ['curl -H "Bearer {V}" https://x', alnum(30), 'bearer'],
  ['postgres://app:{V}@db.internal:5432/app', alnum(14), 'url_password'],
  ['redis://:{V}@cache:6379/0', alnum(14), 'url_password'],
  ['root:{V}:19000:0:99999:7:::', `$y$j9T$${alnum(22)}$${alnum(43)}`, 'password_hash'],
  ['admin:{V}', `$2b$12$${alnum(53)}`, 'password_hash'],
  ['db.example.com:5432:app:appuser:{V}', alnum(16), 'password'],
  ['machine api.example.com login bob password {V}', alnum(16), 'password'],
  ['token {V} here', `ghp_${alnum(36)}`, 'github_token'],
  ['{V}', `github_pat_${alnum(22)}_${alnum(59)}`, 'github_token'],
  ['CI_TOKEN {V}', `glpat-${alnum(20)}`, 'gitlab_token'],
  ['{V}', `xoxb-${Date.now()}-${alnum(24)}`, 'slack_token'],
  ['{V} and more', `AKIA${'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[0]}${'Q'.repeat(15)}`, 'aws_access_key_id'],
  ['key {V}', `sk-ant-api03-${alnum(90)}`, 'anthropic_key'],
  ['key {V}', `sk-proj-${alnum(48)}`, 'openai_key'],
  ['maps {V}', `AIza${alnum(35)}`, 'google_api_key'],
  ['{V}', `npm_${alnum(36)}`, 'npm_token'],
  ['{V}', `sk_live_${alnum(24)}`, 'stripe_key'],
  ['{V}', `SG.${alnum(22)}.${alnum(43)}`, 'sendgrid_key'],
  ['{V}', `hf_${alnum(34)}`, 'huggingface_token'],
  ['bot {V}', `123456789:AA${alnum(33)}`, 'telegram_token'],
  ['jwt={V}', `eyJ${alnum(20)}.eyJ${alnum(30)}.${alnum(43)}`, 'jwt'],
  ['{V}', `eyJ${alnum(20)}.eyJ${alnum(30)}.${alnum(43)}`, 'jwt'],
  ['https://hooks.slack.com/services/{V}', `T${alnum(8)}/B${alnum(8)}/${alnum(24)}`, 'webhook'],
  ['https://acct.blob.core.windows.net/c?sv=2022-11-02&sig={V}&se=2030', `${alnum(40)}%3D`, 'azure_sas'],
];

describe('every syntax the issue names is masked, and only the secret', () => {
  for (const [shape, value, kind] of SECRETS) {
    test(shape, () => {
      const text = shape.replace('{V}', value);
      const m = maskText(text);
      assert.ok(!m.text.includes(value), `${value} survived in ${m.text}`);
      assert.equal(m.text, shape.replace('{V}', `⟦secret:${kind}⟧`), 'the context stays, the value is one marker');
      assert.deepEqual(m.counts, { [kind]: 1 });
    });
  }
});

test('private keys in every armour, also inside JSON strings and cut short', () => {
  const body = Array.from({ length: 6 }, () => randomBytes(48).toString('base64')).join('\n');
  for (const type of ['RSA ', 'EC ', 'DSA ', 'ENCRYPTED ', 'OPENSSH ', '']) {
    const pem = `before\n-----BEGIN ${type}PRIVATE KEY-----\n${body}\n-----END ${type}PRIVATE KEY-----\nafter\n`;
    assert.equal(maskText(pem).text, 'before\n⟦secret:private_key⟧\nafter\n', type);
  }
  const pgp = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body}\n-----END PGP PRIVATE KEY BLOCK-----`;
  assert.equal(maskText(pgp).text, '⟦secret:private_key⟧');
  const json = JSON.stringify({ type: 'service_account', private_key_id: hex(40), private_key: `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n` });
  const m = maskText(json);
  assert.ok(!m.text.includes(body.slice(0, 40)) && m.text.includes('"private_key":"⟦secret:private_key⟧'), m.text);
  const cut = `-----BEGIN RSA PRIVATE KEY-----\n${body.slice(0, 100)}`;
  assert.equal(maskText(cut).text, '⟦secret:private_key⟧', 'no END: masked to the end (fail closed)');
  assert.equal(maskText(`AGE-SECRET-KEY-1${'Q'.repeat(58)}`).text, '⟦secret:private_key⟧');
  // The armour's literals share the command-line flags' pass: a flag before the armour on its line (` --` is one) hides none.
  for (const before of ['echo --', 'mysql -pX --x', 'x -p ']) {
    assert.ok(!maskText(`${before} -----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\n`).text.includes(body.slice(0, 40)), before);
    assert.ok(!maskText(`${before} AGE-SECRET-KEY-1${'Q'.repeat(58)}`).text.includes('Q'.repeat(58)), before);
  }
});

test('public material and settings stay as they are', () => {
  const keep = [
    'PasswordAuthentication no',
    'PermitEmptyPasswords no',
    'password required pam_unix.so obscure yescrypt',
    'key_size=4096',
    'token_lifetime = 3600',
    'PASSWORD_FILE=/run/secrets/db',
    'password: ${DB_PASSWORD}',
    'password = <redacted>',
    'secret: ""',
    'token: null',
    'passwd:         files systemd',
    'PWD=/root',
    'root:*:19000:0:99999:7:::',
    'daemon:!:19000::::::',
    `sha256:${hex(64)}`,
    `commit ${hex(40)}`,
    `${hex(64)}  /usr/bin/airlock`,
    'UUID=3f0c8d3e-5b7a-4c1e-9a2b-0d4e6f8a1b2c / ext4 defaults 0 1',
    `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${alnum(43)} user@host`,
    `public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${alnum(43)}"`,
    `-----BEGIN CERTIFICATE-----\n${randomBytes(48).toString('base64')}\n-----END CERTIFICATE-----`,
    'Dec 01 10:00:00 host sshd[123]: Failed password for root from 192.0.2.1 port 22 ssh2',
    'Accepted publickey for bob from 192.0.2.7 port 50022 ssh2: ED25519 SHA256:abcdefghijklmnop',
    'https://deb.debian.org/debian bookworm main',
    'ExecStart=/usr/bin/app --config /etc/app.yaml',
    'token:ci may not approve',
    '//nas.internal/media /mnt/media cifs credentials=/etc/samba/media.cred,uid=1000 0 0',
    '  "Passwd": true,',
    '{"Passwd": false, "Env": ["A=b"]}',
    'requested by token:deploy-bot',
  ];
  for (const t of keep) assert.equal(maskText(t).text, t);
});

test('the stream gives what masking the whole text gives, wherever the pieces split', () => {
  const token = `ghp_${alnum(36)}`;
  const body = randomBytes(120).toString('base64').match(/.{1,64}/g)!.join('\n');
  const text = `line one\nAuthorization: Bearer ${alnum(30)}\n-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----\ntoken=${token} done\nlast`;
  const whole = maskText(text).text;
  for (let cut = 0; cut <= text.length; cut++) {
    const s = new MaskStream();
    const out = s.push(text.slice(0, cut)) + s.push(text.slice(cut)) + s.end();
    assert.equal(out, whole, `split at ${cut}`);
  }
  // Three pieces, every pair of split points a few characters apart.
  for (let a = 0; a < text.length; a += 7) {
    for (let b = a; b <= text.length; b += 11) {
      const s = new MaskStream();
      assert.equal(s.push(text.slice(0, a)) + s.push(text.slice(a, b)) + s.push(text.slice(b)) + s.end(), whole);
    }
  }
});

test('the stream holds a bounded amount: a key that never ends is masked, not held or leaked', () => {
  const s = new MaskStream();
  let out = s.push('start\n-----BEGIN PRIVATE KEY-----\n');
  const line = randomBytes(48).toString('base64') + '\n';
  for (let i = 0; i < (2 * HOLD_LIMIT) / line.length; i++) out += s.push(line);
  out += s.end();
  assert.ok(!out.includes(line.trim()), 'no line of the key came out');
  assert.ok(out.startsWith('start\n⟦secret:private_key⟧'), out.slice(0, 80));
});

test('JSON values: every string, and whole values under a key that names a secret', () => {
  const pw = alnum(12);
  const { value, counts } = maskDeep({ env: [`DB_PASSWORD=${pw}`, 'MODE=prod'], auth: { password: pw, user: 'bob', token_ttl: 60 }, note: 'ok' });
  assert.deepEqual(value, { env: ['DB_PASSWORD=⟦secret:password⟧', 'MODE=prod'], auth: { password: '⟦secret:password⟧', user: 'bob', token_ttl: 60 }, note: 'ok' });
  assert.deepEqual(counts, { password: 2 });
});

test('names: a secret word, last or followed only by qualifiers', () => {
  for (const n of ['db_password_replica', 'SECRET_KEY_BASE', '--redis.password', 'requirepass', 'DB_PASSWORD', 'PGPASSWORD', 'client_secret', 'apiKey', 'X-Api-Key', 'aws_session_token', 'psk', 'private_key', 'credentials', 'db.pass']) assert.equal(secretName(n), 'strong', n);
  for (const n of ['PasswordAuthentication', 'token_lifetime', 'password_file', 'PermitEmptyPasswords', 'bypass', 'public_key', 'key_size', 'token_endpoint', 'password_encryption']) assert.equal(secretName(n), null, n);
  for (const n of ['key', 'auth', 'sig', 'HostKey']) assert.equal(secretName(n), 'weak', n);
  // Every weak name is read by the word scan too (its hint is built from the same lists).
  for (const n of ['hmac', 'session', 'cookie', 'salt']) assert.equal(maskText(`${n}: Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0L`).text, `${n}: ⟦secret:key⟧`, n);
  assert.equal(secretName('AccountKey'), 'strong', "Azure's storage key");
  assert.equal(kindOfName('MYSQL_ROOT_PASSWORD'), 'password');
  assert.equal(kindOfName('GITHUB_TOKEN'), 'token');
});

test('pseudonyms: stable per key, different under another key, loopback kept, secrets masked first', () => {
  const p = new Pseudonyms(Buffer.alloc(32, 1), ['email', 'ip', 'hostname']);
  const q = new Pseudonyms(Buffer.alloc(32, 2), ['email', 'ip', 'hostname']);
  const line = 'login from 192.0.2.7 by bob@example.com to db1.corp.example.com, then 127.0.0.1 and 2001:db8::1';
  const a = maskText(line, { pseudonyms: p }).text;
  assert.equal(maskText(line, { pseudonyms: p }).text, a, 'stable');
  assert.notEqual(maskText(line, { pseudonyms: q }).text, a, 'keyed');
  assert.match(a, /^login from ⟦ip:[0-9a-f]{8}⟧ by ⟦email:[0-9a-f]{8}⟧ to ⟦host:[0-9a-f]{8}⟧, then 127\.0\.0\.1 and ⟦ip:[0-9a-f]{8}⟧$/);
  assert.equal(maskText('from 192.0.2.7', { pseudonyms: p }).text, a.slice(a.indexOf('from '), a.indexOf(' by')), 'the same address, the same pseudonym');
  const only = new Pseudonyms(Buffer.alloc(32, 1), ['ip']);
  assert.match(maskText(line, { pseudonyms: only }).text, /by bob@example\.com to db1\.corp\.example\.com/);
  assert.equal(maskText(`postgres://u:${'p'.repeat(12)}@192.0.2.9/db`, { pseudonyms: p }).text.includes('p'.repeat(12)), false);
});

test('e-mail addresses are found from their @ exactly as the expression they replace found them, on text made to tell them apart', () => {
  const EMAIL = /\b[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}[A-Za-z]{2,24}\b/g;
  const pieces = ['a', 'bob', 'x'.repeat(63), 'y'.repeat(70), '.', '_', '-', '%', '+', '@', '@@', ' ', ',', 'com', 'example.org', '@example.com', 'mail.example.co', 'é', '\n', '1'];
  const mark = (v: string) => `<${v}>`;
  let found = 0;
  for (let i = 0; i < 20_000; i++) {
    let text = '';
    for (let j = randomBytes(1)[0]! % 16; j >= 0; j--) text += pieces[randomBytes(1)[0]! % pieces.length]!;
    const expected = text.replace(EMAIL, mark);
    assert.equal(replaceEmails(text, mark), expected, JSON.stringify(text));
    if (expected !== text) found++;
  }
  assert.ok(found > 1000, `only ${found} texts held an address`);
});

describe("the daemon's output path", () => {
  test('masks across pieces, before the line cap', async () => {
    const token = `ghp_${alnum(36)}`;
    const out = await releaseOutput([`a\nGITHUB=${token.slice(0, 10)}`, `${token.slice(10)}\nb\n`]);
    // Each piece ends its own line (two programs' outputs), so this token is two lines: neither half is a secret shape.
    assert.equal(out.lines.length, 4);
    const one = await releaseOutput([`x\ntoken=${token}\n`]);
    assert.deepEqual(one.lines, ['x', 'token=⟦secret:github_token⟧'], 'a token of known shape keeps its kind under any name');
    assert.deepEqual(one.masked, { github_token: 1 });
    const long = await releaseOutput(['y'.repeat(MAX_LINE_LENGTH - 10) + ` ${token}\n`]);
    assert.ok(!long.lines[0]!.includes(token.slice(0, 10)), 'a token across the line cap is masked whole, not cut into a leak');
    assert.deepEqual(long.masked, { github_token: 1 });
  });

  test('unmasked output is still capped and escaped, and counted', async () => {
    const out = await releaseOutput([`DB_PASSWORD=${'s'.repeat(12)}\u001b[2J\n`], undefined, true);
    assert.deepEqual(out.lines, [`DB_PASSWORD=${'s'.repeat(12)}\\x1b[2J`]);
    assert.deepEqual(out.masked, { password: 1 });
  });

  test('a refused value is cut before it is masked: a megabyte of text the masker finds hard costs what a short value does (issue 23)', () => {
    const a = { secretParams: [] as string[] };
    const t0 = performance.now();
    const shown = shownValue(a, 'path', 'key='.repeat(256 * 1024));
    const took = performance.now() - t0;
    assert.ok(took < 1000, `quoting took ${took.toFixed(0)} ms`); // masked whole, it took hours
    assert.ok(shown.length <= SHOWN_VALUE_CHARS && shown.endsWith('…'), shown);
    // A secret that starts in what is shown is still recognised whole, not cut into a leak.
    const token = `ghp_${alnum(36)}`;
    const near = shownValue(a, 'comment', `${'x'.repeat(SHOWN_VALUE_CHARS - 20)} ${token} ${'y'.repeat(4096)}`);
    assert.ok(!near.includes(token.slice(0, 8)), near);
    assert.equal(shownValue({ secretParams: ['password'] }, 'password', 'hunter2hunter2'), '⟦secret:password⟧');
  });

  test('declared secret parameters show masked, and are counted', () => {
    const counts = {};
    assert.deepEqual(shownParams({ secretParams: ['password'] }, { user: 'bob', password: 'x' }, counts), { user: 'bob', password: '⟦secret:password⟧' });
    assert.deepEqual(counts, { password: 1 });
    assert.deepEqual(shownParams({}, { user: 'bob' }, counts), { user: 'bob' });
  });
});

test('a fake marker hides nothing: only the exact markers the masker writes are opaque', () => {
  const pw = alnum(14);
  assert.equal(maskText(`password=⟦x:y⟧${pw}`).text, 'password=⟦secret:password⟧', 'not a marker: part of the value');
  assert.equal(maskText(`password=⟦secret:token⟧${pw}`).text, 'password=⟦secret:token⟧⟦secret:password⟧', 'a marker, and what follows it');
  assert.equal(maskText(`⟦secret:password⟧=${pw}`).text, '⟦secret:password⟧=⟦secret:password⟧', 'a marker names a secret');
  assert.equal(maskText(`token ⟦secret:z⟧ghp_${alnum(36)}`).text.includes('ghp_'), false);
});

test('spans never overlap and stay inside the text', () => {
  const text = `password=ghp_${alnum(36)} Authorization: Bearer eyJ${alnum(10)}.eyJ${alnum(10)}.${alnum(10)} postgres://a:${alnum(8)}@h/`;
  const spans = secretSpans(text);
  for (let i = 0; i < spans.length; i++) {
    assert.ok(spans[i]!.start >= 0 && spans[i]!.end <= text.length && spans[i]!.start < spans[i]!.end);
    if (i > 0) assert.ok(spans[i]!.start >= spans[i - 1]!.end);
  }
});

test("the catalogue's clip never cuts inside a word, so a token it shortens is dropped, not halved", async () => {
  const { clip } = await import('../../src/catalogue/lib/text.js');
  const token = `ghp_${alnum(36)}`;
  assert.equal(clip('short', 10), 'short');
  assert.equal(clip(`error: bad value ${token} here`, 30), 'error: bad value…');
  assert.equal(clip(token, 20), '…');
});
