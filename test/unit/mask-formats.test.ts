/**
 * Secrets in the formats issue 23 lists as missed, each from its public documentation, and
 * the placeholders and descriptions that must stay: the value is masked, the rest of the
 * line stays byte-identical. Values are generated fakes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { maskText } from '../../src/mask/mask.js';
import { MaskStream } from '../../src/mask/stream.js';

const alnum = (n: number) => randomBytes(n * 2).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, n).padEnd(n, 'x');
const hex = (n: number) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n);
const b64 = (bytes: number) => randomBytes(bytes).toString('base64');
const base36 = (n: number) => [...randomBytes(n)].map((b) => '0123456789abcdefghijklmnopqrstuvwxyz'[b % 36]).join('');
const base32 = (n: number) => [...randomBytes(n)].map((b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[b % 32]).join('');
const pw = () => 'Qx' + alnum(10) + '7';

/** Each value is masked, and `text` with every value replaced by a marker is all that changed. */
function masks(text: string, values: string[]): void {
  const out = maskText(text).text;
  for (const v of values) assert.ok(!out.includes(v), `${v} survived in ${JSON.stringify(out)}`);
  const pattern = values.reduce((t, v) => t.split(v).join('\u0000'), text);
  const re = new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\u0000/g, '⟦secret:[a-z0-9_]+⟧')}$`);
  assert.match(out, re, 'only the values changed');
}

const unchanged = (text: string) => assert.equal(maskText(text).text, text);

describe('cluster join and enrolment tokens', () => {
  test('k3s node-token (K10<ca-hash>::server:<password>)', () => {
    const t = `K10${hex(64)}::server:${hex(32)}`;
    masks(`root@k3s-1:~# cat /var/lib/rancher/k3s/server/node-token\n${t}\nroot@k3s-1:~# `, [t]);
  });
  test('kubeadm token list: the TOKEN column', () => {
    const t = `${base36(6)}.${base36(16)}`;
    masks(`TOKEN                     TTL   EXPIRES\n${t}   23h   2030-01-01T00:00:00Z   authentication,signing`, [t]);
  });
  test('kubeadm certificate key: after --certificate-key, and alone under "Using certificate key:"', () => {
    const k = hex(64);
    masks(`kubeadm join 10.0.0.1:6443 --control-plane --certificate-key ${k}`, [k]);
    masks(`[upload-certs] Using certificate key:\n${k}\n`, [k]);
  });
  test('Elastic enrolment token', () => {
    const t = Buffer.from(JSON.stringify({ ver: '8.14.0', adr: ['10.0.0.5:9200'], fgr: hex(64), key: `${alnum(20)}:${alnum(22)}` })).toString('base64');
    masks(`root@es-1:~# elasticsearch-create-enrollment-token -s node\n${t}\n`, [t]);
  });
});

describe('service ACL tokens and keys', () => {
  test('Consul: SecretID, gossip encrypt key, tokens block', () => {
    const id = crypto.randomUUID();
    masks(`AccessorID:       ${crypto.randomUUID()}\nSecretID:         ${id}`.replace(/AccessorID:.*\n/, (l) => l), [id]);
    const g = b64(32);
    masks(`{\n  "encrypt": "${g}",\n  "server": true\n}`, [g]);
    const a = crypto.randomUUID();
    masks(`acl {\n  enabled = true\n  tokens {\n    agent = "${a}"\n  }\n}`, [a]);
  });
  test('Vault: unseal keys and a legacy service token in `vault token lookup`', () => {
    const k1 = b64(32);
    const k2 = b64(32);
    masks(`Unseal Key 1: ${k1}\nUnseal Key 2: ${k2}\n`, [k1, k2]);
    const t = `s.${alnum(22)}A1`;
    masks(`id                  ${t}\nttl                 768h`, [t]);
  });
});

describe('network service secrets', () => {
  test('SNMP: communities in snmpd.conf and on the command line, v3 passphrases', () => {
    const c = pw();
    masks(`rocommunity  ${c}  10.0.0.0/8`, [c]);
    masks(`  512  snmpwalk -v2c -c ${c} 10.1.2.3 1.3.6.1.2.1.1`, [c]);
    const a = pw();
    const p = pw();
    masks(`createUser librenms SHA-256 ${a} AES ${p}`, [a, p]);
    masks(`/usr/bin/snmpbulkwalk -v3 -l authPriv -u zabbix -a SHA -A ${a} -x AES -X ${p} -OQUs udp:10.0.0.9:161`, [a, p]);
    unchanged('rocommunity public 127.0.0.1');
  });
  test('NTP and chrony symmetric keys', () => {
    const a = hex(40);
    const b = alnum(20);
    masks(`1 SHA1 ${a}  # SHA1 key\n2 MD5 ${b}  # MD5 key`, [a, b]);
    const c = hex(64);
    masks(`7 SHA256 HEX:${c}`, [c]);
  });
  test('redis-cli CONFIG GET requirepass', () => {
    const v = pw();
    masks(`1) "requirepass"\n2) "${v}"`, [v]);
  });
  test('WireGuard: wg show preshared-keys keeps the peer public key', () => {
    const peer = b64(32);
    const psk = b64(32);
    masks(`carol@vpn:~$ wg show wg0 preshared-keys\n${peer}\t${psk}\ncarol@vpn:~$ `, [psk]);
  });
});

describe('one-time passwords and signing keys', () => {
  test('backup codes under their heading', () => {
    const codes = [`${hex(4)} ${hex(4)}`.replace(/[a-f]/g, '7'), `${hex(5)}-${hex(5)}`];
    masks(`SAVE YOUR BACKUP CODES\n\n1. ${codes[0]}\n2. ${codes[1]}\n\nYou can only use each backup code once.`, codes);
  });
  test('GitLab recovery codes (16 hex digits) and a recovery-codes file read in a terminal', () => {
    const codes = [hex(16), hex(16)];
    masks(`Your two-factor authentication recovery codes are:\n\n${codes.join('\n')}\n\nDuring sign in, use one of the codes above.`, codes);
    const more = [`${hex(5)}-${hex(5)}`, `${hex(5)}-${hex(5)}`];
    masks(`root@build-11:/root# cat ~/Documents/github-recovery-codes.txt\n${more.join('\n')}\nroot@build-11:/root# `, more);
  });
  test('~/.google_authenticator: the secret and the scratch codes', () => {
    const s = base32(26);
    const codes = ['30920919', '48215533'];
    masks(`${s}\n" RATE_LIMIT 3 30\n" TOTP_AUTH\n${codes.join('\n')}\n`, [s, ...codes]);
  });
  test("oath-toolkit's users file", () => {
    const seed = hex(40);
    masks(`# Option User Prefix Seed\nHOTP/T30/6 jenkins - ${seed}\n`, [seed]);
  });
  test('oathtool in a shell history', () => {
    const s = base32(32);
    masks(`oathtool --totp -b ${s}`, [s]);
  });
  test("Synapse's signing key", () => {
    const k = b64(32).replace(/=+$/, '');
    masks(`ed25519 a_AbCd ${k}`, [k]);
  });
  test('Mattermost salts (PublicLinkSalt is a salt, not public material)', () => {
    const v = alnum(32);
    masks(`        "PublicLinkSalt": "${v}",`, [v]);
  });
});

describe('password hashes and stores', () => {
  test('argon2, SCRAM, PostgreSQL md5, Django', () => {
    const argon = `$argon2id$v=19$m=65536,t=3,p=4$${b64(16).replace(/=+$/, '')}$${b64(32).replace(/=+$/, '')}`;
    masks(`bob:${argon}`, [argon]);
    const scram = `SCRAM-SHA-256$4096:${b64(16)}$${b64(32)}:${b64(32)}`;
    masks(` deploy                    | ${scram}`, [scram]);
    const md5 = `md5${hex(32)}`;
    masks(`"app" "${md5}"`, [md5]);
    const django = `pbkdf2_sha256$600000$${alnum(22)}$${b64(32)}`;
    masks(`admin|${django}`, [django]);
  });
  test("Postfix's sasl_passwd with the port by name", () => {
    const v = pw();
    masks(`[mail.example.net]:submission app@example.net:${v}`, [v]);
  });
  test('a command that reads a secret file: its lone lines, and key material in | fields', () => {
    const v = pw();
    masks(`deploy@mon-01:~$ ls -l /etc/restic; cat /etc/restic/password\n-rw------- 1 root root 1714 Jul 18 15:56 password\n${v}\ndeploy@mon-01:~$ `, [v]);
    const h = hex(100);
    masks(`root@git:~# sqlite3 gitea.db 'select name,passwd from user'\nbob|${h}\nroot@git:~# `, [h]);
    unchanged(`root@h:~# getent passwd\nroot:x:0:0:root:/root:/bin/bash\nroot@h:~# `);
  });
  test('Kubernetes Secret data: every value of the data block, the names stay', () => {
    const u = b64(6);
    const p = b64(12);
    masks(`apiVersion: v1\ndata:\n  password: ${p}\n  username: ${u}\nkind: Secret\nmetadata:\n  name: smtp-auth\n`, [p, u]);
    unchanged(`apiVersion: v1\ndata:\n  nginx.conf: worker_processes 1;\nkind: ConfigMap\n`);
  });
  test('Azure storage account keys list: keyName then value', () => {
    const k = b64(64);
    masks(`  {\n    "creationTime": "2030-01-01T00:00:00Z",\n    "keyName": "key1",\n    "permissions": "FULL",\n    "value": "${k}"\n  }`, [k]);
  });
});

describe('placeholders and descriptions stay', () => {
  for (const line of [
    'AWS_SECRET_ACCESS_KEY=changeme',
    'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE',
    'GITHUB_TOKEN=your-token-here',
    'STRIPE_SECRET=<stripe secret key>',
    'SENTRY_DSN=https://<key>@sentry.io/<project>',
    '    existingSecret: webapp-db',
    "      DATABASE_PASSWORD:  <set to the key 'password' in secret 'webapp-db'>  Optional: false",
    '        password                = (sensitive value)',
    '      + encrypted_secret               = (known after apply)',
    '+  password: VALUE_SPECIFIED_IN_NO_LOG_PARAMETER',
    'password:  34 bytes',
    '        proxy_pass http://10.0.0.4:8080;',
    'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    'DB_PASSWORD=PLACEHOLDER',
    'DB_PASSWORD={{ .Values.password }}',
    '|1|Smi8uuTGFOCrHuS05SKeuSG3qPw=|4QG+tKEAw+iZKZLXOHafJgxw6LU= ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB',
  ]) {
    test(line.trim(), () => unchanged(line));
  }
});

describe('the stream keeps the context of what it released', () => {
  /** `text` through a stream, split where `pieces` says (each an index of `text`). */
  function streamed(text: string, at: number[]): string {
    const s = new MaskStream();
    let out = '';
    let from = 0;
    for (const cut of [...at, text.length]) {
      out += s.push(text.slice(from, cut));
      from = cut;
    }
    return out + s.end();
  }
  test('a secret whose naming line came in an earlier piece', () => {
    const v = pw();
    const codes = [`${hex(5)}-${hex(5)}`, `${hex(5)}-${hex(5)}`];
    const k = hex(64);
    const cases: [string, string[]][] = [
      [`deploy@mon-01:~$ cat /etc/restic/password\n${v}\ndeploy@mon-01:~$ `, [v]],
      [`SAVE YOUR BACKUP CODES\n\n1. ${codes[0]}\n2. ${codes[1]}\n`, codes],
      [`[upload-certs] Using certificate key:\n${k}\n`, [k]],
      [`        - name: DB_PASSWORD\n          value: ${v}\n`, [v]],
      [`1) "requirepass"\n2) "${v}"\n`, [v]],
    ];
    for (const [text, values] of cases) {
      const whole = maskText(text).text;
      for (const v of values) assert.ok(!whole.includes(v), `masked whole: ${whole}`);
      // Split after every line: each secret arrives in a piece of its own.
      const at = [...text.matchAll(/\n/g)].map((m) => m.index + 1);
      assert.equal(streamed(text, at), whole);
    }
  });
});
