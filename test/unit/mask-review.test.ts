/**
 * An attacker's review of the masking (issue 11): each test states what realistic host
 * output must come out as; each failed before the fix it asked for. Values are generated fakes. Grouped by
 * what goes wrong: secrets the detectors miss, ordinary output they change, ways past the
 * masker (stream pieces, fake markers), and inputs that make it super-linear.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { maskText } from '../../src/mask/mask.js';
import { MaskStream, HOLD_LIMIT } from '../../src/mask/stream.js';
import { maskValueForClient, releaseOutput } from '../../src/daemon/output.js';
import { answer } from '../../src/mcp/tool-result.js';

const alnum = (n: number) => randomBytes(n * 2).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, n).padEnd(n, 'x');
const hex = (n: number) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n);
/** A password as people choose them: letters and digits, 12 characters, not key material. */
const pw = () => 'Fk' + alnum(8) + '26';

/** The value must not survive masking, and the text around it should. */
function hides(text: string, value: string, keep?: string): void {
  const out = maskText(text).text;
  assert.ok(!out.includes(value), `value survived: ${JSON.stringify(out)}`);
  if (keep !== undefined) assert.ok(out.includes(keep), `context lost: ${JSON.stringify(out)}`);
}

/** Ordinary output: nothing in it is a secret, so masking must not change it. */
function unchanged(text: string): void {
  assert.equal(maskText(text).text, text);
}

describe('secrets the detectors miss', () => {
  test('a flag and its value followed by more flags (ps, ExecStart=, shell history)', () => {
    const v = pw();
    hides(`app      1201  0.1  1.0 /usr/bin/app --password ${v} --port 8080`, v, '--port 8080');
    hides(`ExecStart=/usr/bin/app --db-password ${v} --listen :80`, v, '--listen :80');
    hides(`mysqld_exporter --mysqld.password ${v} --web.listen-address=:9104`, v);
    hides(`minio server /data --secret-key ${v} --console-address :9001`, v);
  });

  test('kubeadm join --token (bootstrap token) followed by more flags', () => {
    const t = `${hex(6)}.${hex(16)}`;
    hides(`kubeadm join 10.0.0.1:6443 --token ${t} --discovery-token-ca-cert-hash sha256:${hex(64)}`, t);
  });

  test('podman inspect prints Cmd and Args one element a line: the flag and its value are on two lines', () => {
    const v = pw();
    hides(`    "Cmd": [\n        "redis-server",\n        "--requirepass",\n        "${v}"\n    ],`, v);
    hides(`    "Args": [\n        "--password",\n        "${v}",\n        "--port",\n        "8080"\n    ],`, v);
  });

  test('Kubernetes and ECS env entries: the name and the value are two fields (kubectl get -o yaml/json, pod specs)', () => {
    const v = pw();
    hides(`        env:\n        - name: DB_PASSWORD\n          value: ${v}`, v);
    hides(`        - name: API_TOKEN\n          value: "${v}"`, v);
    hides(`{"name":"DB_PASSWORD","value":"${v}"}`, v);
  });

  test('XML elements (Maven settings.xml, Jenkins credentials.xml, .NET app.config, Hibernate)', () => {
    const v = pw();
    hides(`    <server>\n      <id>nexus</id>\n      <username>deploy</username>\n      <password>${v}</password>\n    </server>`, v);
    hides(`<add key="DbPassword" value="${v}" />`, v);
    hides(`<property name="hibernate.connection.password" value="${v}"/>`, v);
  });

  test('SQL in ~/.mysql_history and the MySQL general log', () => {
    const v = pw();
    hides(`CREATE USER 'app'@'%' IDENTIFIED BY '${v}';`, v);
    hides(`2026-12-01T10:00:00.000000Z	   12 Query	ALTER USER 'app'@'localhost' IDENTIFIED BY '${v}'`, v);
    hides(`SET PASSWORD FOR 'app'@'%' = PASSWORD('${v}')`, v);
  });

  test('an OpenVPN static key (tls-auth / tls-crypt in /etc/openvpn/*.conf)', () => {
    const body = Array.from({ length: 16 }, () => hex(32)).join('\n');
    hides(`<tls-crypt>\n-----BEGIN OpenVPN Static key V1-----\n${body}\n-----END OpenVPN Static key V1-----\n</tls-crypt>`, body.split('\n')[3]!);
  });

  test('netplan WireGuard keys (key: private:, keys: shared:), which the issue names', () => {
    const priv = randomBytes(32).toString('base64');
    const shared = randomBytes(32).toString('base64');
    const np = `network:\n  tunnels:\n    wg0:\n      mode: wireguard\n      key:\n        private: ${priv}\n      peers:\n        - keys:\n            public: ${randomBytes(32).toString('base64')}\n            shared: ${shared}\n`;
    hides(np, priv);
    hides(np, shared);
  });

  test('unsalted and LDAP-style password hashes ({SHA} in htpasswd, {SSHA} in slapd)', () => {
    const sha = randomBytes(20).toString('base64');
    hides(`bob:{SHA}${sha}`, sha);
    hides(`olcRootPW: {SSHA}${sha}`, sha);
  });

  test('LDAP client and server files on Debian (nslcd.conf, sssd.conf, slapd.conf, LDIF)', () => {
    const v = pw();
    hides(`binddn cn=admin,dc=example,dc=com\nbindpw ${v}`, v);
    hides(`ldap_default_authtok = ${v}`, v);
    hides(`rootpw ${v}`, v);
    hides(`olcRootPW:: ${Buffer.from(v).toString('base64')}`, Buffer.from(v).toString('base64'));
  });

  test('postfix sasl_passwd lines', () => {
    // (ppp's chap-secrets, `bob * SECRET *`, has nothing a detector can tell from other tab-separated columns: left.)
    const v = pw();
    hides(`[smtp.gmail.com]:587 relay@example.com:${v}`, v);
  });

  test('command lines whose password flag says nothing by name', () => {
    const v = pw();
    hides(`redis-cli -a ${v} ping`, v);
    hides(`ldapsearch -x -D cn=admin,dc=ex -w ${v} -b dc=ex`, v);
    hides(`smbclient //srv/share -U bob%${v}`, v);
    hides(`docker login -u deploy -p ${v} registry.example.com`, v);
    hides(`openssl pkcs12 -export -passout pass:${v} -out x.p12`, v);
    hides(`mongosh -u admin -p ${v} --authenticationDatabase admin`, v);
    hides(`wpa_passphrase home ${v}`, v);
  });

  test("Go's %+v of a config struct and a map (the tight key:value needs key material today)", () => {
    const v = pw();
    hides(`config: &{Host:db User:app Password:${v} Port:5432}`, v);
    hides(`config: map[password:${v} user:app]`, v);
  });

  test("the MySQL driver's DSN (user:password@tcp(host)/db), in JSON logs and YAML", () => {
    const v = pw();
    hides(`{"level":"info","msg":"connecting","dsn":"app:${v}@tcp(db:3306)/app"}`, v);
  });

  test('a URL password holding an unencoded @ leaks its tail', () => {
    const tail = alnum(10);
    hides(`DATABASE_URL="mysql://app:p@${tail}@db/app"`, tail);
  });

  test('a cookie inside a quoted header: the whole pair is read as one weak value and skipped', () => {
    const v = alnum(32);
    hides(`curl --header "Cookie: session=${v}; theme=dark" https://app.example.com/`, v);
  });

  test('a colourised log (podman logs of a container with a TTY)', () => {
    const v = pw();
    hides(`\x1b[36mpassword\x1b[0m=\x1b[35m${v}\x1b[0m`, v);
  });
});

describe('ordinary output the detectors change', () => {
  test("systemd's own units: LoadCredential=ID and ConditionCredential= name a credential, hold none", () => {
    unchanged('LoadCredential=passwd.hashed-password.root');
    unchanged('LoadCredential=tmpfiles.extra');
    unchanged('ConditionCredential=|sysusers.extra');
  });

  test("Debian's /etc/ssl/openssl.cnf", () => {
    unchanged('private_key	= $dir/private/cakey.pem# The private key');
    unchanged('secret = $insta::secret # pass:insta');
    unchanged('challengePassword		= A challenge password');
  });

  test("Debian's /etc/redis/redis.conf comment", () => {
    unchanged('#               is flagged as requiring no password: it means that every');
  });

  test('GitHub Actions expressions are references', () => {
    unchanged('    password: ${{ secrets.DOCKER_PASSWORD }}');
  });

  test('the host and path after a masked token in a URL stay', () => {
    const t = 'ghs_' + alnum(36);
    assert.ok(maskText(`git clone https://x-access-token:${t}@github.com/o/r.git`).text.includes('@github.com/o/r.git'));
  });

  test('PGPASSWORD=x before a command masks the command too', () => {
    assert.ok(maskText(`PGPASSWORD=${pw()} psql -h db -U app`).text.includes('psql -h db -U app'));
  });
});

describe('ways past the masker', () => {
  test('InspectContainer through the daemon output path: Env is masked, the same password in Cmd is not', async () => {
    const v = pw();
    const inspect = `[\n    {\n        "Config": {\n            "Env": [\n                "REDIS_PASSWORD=${v}"\n            ],\n            "Cmd": [\n                "redis-server",\n                "--requirepass",\n                "${v}"\n            ]\n        }\n    }\n]\n`;
    const out = await releaseOutput([inspect]);
    assert.ok(!out.lines.join('\n').includes(v), out.lines.join('\n'));
  });

  test('a colourised log line through releaseOutput and then the MCP answer: escaped first, never recognised', async () => {
    const v = pw();
    const out = await releaseOutput([`\x1b[36mpassword\x1b[0m=\x1b[35m${v}\x1b[0m\n`]);
    const relayed = answer({ output: out.lines }, out.lines.join('\n'));
    assert.ok(!JSON.stringify(relayed).includes(v), JSON.stringify(relayed));
  });

  test('MaskStream (airlock mask on stdin): a line longer than HOLD_LIMIT is cut at a piece boundary, and a token across it survives', () => {
    const tok = 'ghp_' + alnum(36);
    const s = new MaskStream();
    const out = s.push('x'.repeat(HOLD_LIMIT) + ' ' + tok.slice(0, 20)) + s.push(tok.slice(20) + ' end\n') + s.end();
    assert.ok(!out.includes(tok.slice(20)), out.slice(-80));
  });

  test('MaskStream: a private key in a JSON line longer than HOLD_LIMIT, cut by a piece inside the key, comes out in clear after its BEGIN', () => {
    const body = Array.from({ length: 20 }, () => randomBytes(48).toString('base64')).join('\\n');
    const line = `{"filler":"${'x'.repeat(HOLD_LIMIT - 100)}","private_key":"-----BEGIN PRIVATE KEY-----\\n${body}\\n-----END PRIVATE KEY-----\\n","client_email":"a@b"}\n`;
    const at = line.indexOf('-----BEGIN') + 200;
    const s = new MaskStream();
    const out = s.push(line.slice(0, at)) + s.push(line.slice(at)) + s.end();
    const clear = body.split('\\n').filter((l) => out.includes(l));
    assert.equal(clear.length, 0, `${clear.length} of 20 key lines in clear`);
  });

  test('a preview diff holds a file line by line: a private key in it is masked at its BEGIN line only', async () => {
    const lines = ['-----BEGIN RSA PRIVATE KEY-----\n', ...Array.from({ length: 5 }, () => randomBytes(48).toString('base64') + '\n'), '-----END RSA PRIVATE KEY-----\n'];
    const shown = await maskValueForClient({ binds: 'diff', diff: { removed: lines, added: [], not_shown: 0 } });
    const clear = lines.slice(1, -1).filter((l) => JSON.stringify(shown).includes(l.trim()));
    assert.equal(clear.length, 0, JSON.stringify(shown));
  });

  test('any ⟦...⟧ of up to 48 characters is opaque to the word scan, whatever is inside (a fake marker hides a token)', () => {
    const tok = 'ghp_' + alnum(36);
    hides(`⟦${tok}⟧`, tok);
    hides(`token=⟦${tok}⟧`, tok);
    const v = pw();
    hides(`⟦DB_PASSWORD=${v}⟧`, v);
    hides(`⟦secret:password⟧=${v}`, v);
  });
});

// Inputs crafted to make masking super-linear (a lazy scan from every match, spans x markers)
// are timed by `npm run bench` (bench/masking.ts, "worst crafted input"), not here: a timed test
// on a shared machine fails for the machine's reasons. Here: they come out right.
test('crafted inputs come out right: many program names on one line, markers beside secrets', () => {
  assert.equal(maskText('mysql '.repeat(2000)).text, 'mysql '.repeat(2000));
  assert.equal(maskText('sshpass '.repeat(2000) + '-p hunter2secret').text.includes('hunter2secret'), false);
  const line = '⟦secret:token⟧ password=hunter22\n';
  assert.equal(maskText(line.repeat(500)).text, '⟦secret:token⟧ password=⟦secret:password⟧\n'.repeat(500));
});
