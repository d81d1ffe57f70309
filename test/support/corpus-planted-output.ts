/**
 * Planted files, part 4: what read actions return when a secret has leaked into program output: journals, curl -v,
 * web server logs, podman inspect, ps, systemctl show, git remote.
 */
import * as T from './corpus-tokens.js';
import { plantedFile } from './corpus-planted-keys.js';
import type { Rng } from './corpus-random.js';
import type { CorpusFile } from './secret-corpus.js';

const stamp = (i: number) => `2026-12-01T${String(8 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')}+0000`;

export function outputFiles(rng: Rng): CorpusFile[] {
  return [
    plantedFile('journalctl -u orders -o short-iso', (s) => [
      `${stamp(1)} web01 systemd[1]: Started orders.service - Orders API.`,
      `${stamp(2)} web01 orders[2211]: INFO  listening on 0.0.0.0:8080`,
      `${stamp(3)} web01 orders[2211]: DEBUG outgoing request GET https://partner.example.net/v2/stock headers={'Accept': 'application/json', 'Authorization': 'Bearer ${s('bearer_token', T.jwt(rng, 'RS256', { scope: 'stock:read' }))}'}`,
      `${stamp(4)} web01 orders[2211]: WARN  upstream 401 for Authorization: Bearer ${s('bearer_token', T.opaqueToken(rng, 40))}`,
      `${stamp(5)} web01 orders[2211]: DEBUG auth header "Authorization: Basic ${s('basic_auth', Buffer.from(`report:${T.password(rng, 14)}`).toString('base64'))}"`,
      `${stamp(6)} web01 orders[2211]: ERROR could not connect to postgres://orders:${s('url_password', T.alnumPassword(rng, 22))}@db.internal:5432/orders: connection refused`,
      `${stamp(7)} web01 orders[2211]: DEBUG config loaded: db_password=${s('password', T.password(rng, 16))} pool=10`,
      `${stamp(8)} web01 orders[2211]: INFO  using stripe key ${s('stripe_secret', T.stripe(rng, 'sk_live'))}`,
      `${stamp(9)} web01 kernel: [UFW BLOCK] IN=eth0 OUT= MAC=52:54:00:12:34:56 SRC=203.0.113.9 DST=10.0.0.4 LEN=60 PROTO=TCP SPT=51234 DPT=23`,
      `${stamp(10)} web01 sshd[3011]: Accepted publickey for deploy from 10.0.0.2 port 50122 ssh2: ED25519 SHA256:${Buffer.from(rng.bytes(32)).toString('base64').replace(/=+$/, '')}`,
      `${stamp(11)} web01 worker[2290]: INFO  posting to https://hooks.slack.com/services/${s('slack_webhook', T.slackWebhookPath(rng))}`,
      `${stamp(12)} web01 worker[2290]: DEBUG redis url redis://default:${s('url_password', T.alnumPassword(rng, 32))}@cache.internal:6379`,
      `${stamp(13)} web01 worker[2290]: DEBUG token=${s('token', T.githubToken(rng, 'ghs'))} repo=acme/orders`,
    ].join('\n') + '\n'),
    plantedFile('journalctl -o short-iso -n 20 (proxy)', (s) => [
      `${stamp(20)} edge01 haproxy[901]: 198.51.100.7:53122 [01/Dec/2026:09:20:14.012] https~ api/api1 0/0/1/12/13 200 512 - - ---- 4/4/0/0/0 0/0 "GET /v1/orders?access_token=${s('token', T.opaqueToken(rng, 40))} HTTP/1.1"`,
      `${stamp(21)} edge01 haproxy[901]: 198.51.100.8:53140 [01/Dec/2026:09:21:14.112] https~ api/api2 0/0/1/9/10 200 240 - - ---- 4/4/0/0/0 0/0 "GET /health HTTP/1.1"`,
      `${stamp(22)} edge01 oauth2-proxy[944]: 10.0.0.3 - alice [2026/12/01 09:22:15] auth.example.com GET - "/oauth2/callback?code=${rng.hex(20)}&state=${rng.hex(16)}" HTTP/1.1 "Mozilla/5.0" 302 24 0.120`,
      `${stamp(23)} edge01 app[1200]: request failed: curl -H 'Authorization: token ${s('github_token', T.githubToken(rng, 'ghp'))}' https://api.github.com/user`,
      `${stamp(24)} edge01 app[1200]: sending mail via smtp://notify%40example.com:${s('url_password', T.alnumPassword(rng, 18))}@smtp.example.com:587`,
    ].join('\n') + '\n'),
    plantedFile('curl -v https://api.example.com/v1/me', (s) =>
      `*   Trying 93.184.216.34:443...\n* Connected to api.example.com (93.184.216.34) port 443\n* ALPN: curl offers h2,http/1.1\n* TLSv1.3 (OUT), TLS handshake, Client hello (1):\n` +
      `* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS\n* Server certificate:\n*  subject: CN=api.example.com\n*  start date: Oct  1 00:00:00 2026 GMT\n` +
      `> GET /v1/me HTTP/2\n> Host: api.example.com\n> User-Agent: curl/8.5.0\n> Accept: */*\n> Authorization: Bearer ${s('bearer_token', T.jwt(rng))}\n>\n< HTTP/2 200\n< content-type: application/json\n< \n{"id":42,"name":"alice"}\n`),
    plantedFile('curl -v -u (basic)', (s) =>
      `* Server auth using Basic with user 'deploy'\n> PUT /repository/raw/dist.tgz HTTP/1.1\n> Host: nexus.internal\n> Authorization: Basic ${s('basic_auth', Buffer.from(`deploy:${T.password(rng, 20)}`).toString('base64'))}\n> User-Agent: curl/7.88.1\n> Content-Length: 1048576\n>\n< HTTP/1.1 201 Created\n`),
    plantedFile('var/log/nginx/access.log', (s) => {
      const ua = '"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"';
      return [
        `203.0.113.5 - - [01/Dec/2026:10:00:01 +0000] "GET /api/v1/items?api_key=${s('api_key', T.opaqueToken(rng, 32))}&page=2 HTTP/1.1" 200 1532 "-" ${ua} "-"`,
        `203.0.113.6 - - [01/Dec/2026:10:00:02 +0000] "GET /static/app.${rng.hex(8)}.js HTTP/1.1" 200 88210 "https://www.example.com/" ${ua} "-"`,
        `203.0.113.7 - - [01/Dec/2026:10:00:03 +0000] "POST /api/v1/orders HTTP/1.1" 201 91 "-" "python-requests/2.31.0" "Bearer ${s('bearer_token', T.opaqueToken(rng, 64))}"`,
        `203.0.113.8 - alice [01/Dec/2026:10:00:04 +0000] "GET /admin HTTP/1.1" 200 4410 "-" ${ua} "Basic ${s('basic_auth', Buffer.from(`alice:${T.humanPassword(rng)}`).toString('base64'))}"`,
        `203.0.113.9 - - [01/Dec/2026:10:00:05 +0000] "GET /reset?token=${s('token', T.opaqueToken(rng, 43))} HTTP/1.1" 302 0 "-" ${ua} "-"`,
        `203.0.113.9 - - [01/Dec/2026:10:00:06 +0000] "GET /favicon.ico HTTP/1.1" 404 153 "-" ${ua} "-"`,
      ].join('\n') + '\n';
    }),
    plantedFile('var/log/apache2/error.log', (s) =>
      `[Tue Dec 01 10:01:02.123456 2026] [php:error] [pid 4411] [client 203.0.113.5:50522] PHP Fatal error:  Uncaught PDOException: SQLSTATE[HY000] [1045] in /var/www/html/db.php:12\n` +
      `[Tue Dec 01 10:01:02.123460 2026] [php:error] [pid 4411] #0 /var/www/html/db.php(12): PDO->__construct('mysql:host=loca...', 'wp', '${s('password', T.alnumPassword(rng, 16))}')\n`),
    plantedFile('podman inspect orders', (s) =>
      JSON.stringify([{
        Id: rng.hex(64), Created: '2026-11-30T09:12:44.123456789Z', Path: '/usr/local/bin/docker-entrypoint.sh', Args: ['orders'],
        State: { OciVersion: '1.2.0', Status: 'running', Running: true, Pid: 3321, StartedAt: '2026-11-30T09:12:45.002Z' },
        Image: rng.hex(64), ImageDigest: `sha256:${rng.hex(64)}`, ImageName: 'ghcr.io/acme/orders:1.4.2', Name: 'orders',
        Config: {
          Hostname: rng.hex(12), User: 'app',
          Env: [
            'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'TERM=xterm', 'container=podman', 'NODE_VERSION=20.18.1',
            `DB_PASSWORD=${s('password', T.password(rng, 18))}`, `DATABASE_URL=postgres://orders:${s('url_password', T.alnumPassword(rng, 20))}@db:5432/orders`,
            `API_TOKEN=${s('token', T.opaqueToken(rng, 40))}`, `SENDGRID_API_KEY=${s('sendgrid_key', T.sendgrid(rng))}`, `JWT_SECRET=${s('secret', T.hexSecret(rng, 64))}`,
            `AWS_SECRET_ACCESS_KEY=${s('aws_secret_access_key', T.awsSecret(rng))}`, `AWS_ACCESS_KEY_ID=${s('aws_access_key_id', T.awsKeyId(rng))}`,
            'HOME=/home/app', `HOSTNAME=${rng.hex(12)}`,
          ],
          Cmd: ['orders'], Image: 'ghcr.io/acme/orders:1.4.2', Labels: { 'org.opencontainers.image.revision': rng.hex(40) },
        },
        HostConfig: { NetworkMode: 'bridge', PortBindings: { '8080/tcp': [{ HostIp: '', HostPort: '8080' }] } },
      }], null, 4) + '\n'),
    plantedFile('podman inspect mariadb --format {{.Config.Env}}', (s) =>
      `[PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin GOSU_VERSION=1.17 MARIADB_VERSION=1:11.4.4+maria~ubu2404 MARIADB_ROOT_PASSWORD=${s('password', T.alnumPassword(rng, 24))} MARIADB_PASSWORD=${s('password', T.humanPassword(rng))} MARIADB_USER=wp container=podman]\n`),
    plantedFile('ps auxww', (s) =>
      `USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\nroot           1  0.0  0.1 167744 13140 ?        Ss   Nov30   0:04 /sbin/init\n` +
      `app         2211  1.2  3.4 2210440 280512 ?      Ssl  Nov30  12:01 java -Xmx512m -Djavax.net.ssl.keyStorePassword=${s('password', T.alnumPassword(rng, 16))} -jar /opt/orders/orders.jar\n` +
      `root        3001  0.0  0.2  11000  4400 ?        S    09:00   0:00 mysqldump --user=backup --password=${s('password', T.password(rng, 16))} --all-databases\n` +
      `root        3002  0.0  0.3 1236000 24000 ?       Sl   09:00   0:00 podman run -d -e POSTGRES_PASSWORD=${s('password', T.alnumPassword(rng, 20))} -e POSTGRES_DB=app docker.io/library/postgres:16\n` +
      `exporter    3100  0.1  0.2 724000 18000 ?        Ssl  Nov30   1:10 /usr/bin/redis_exporter --redis.addr=redis://localhost:6379 --redis.password ${s('password', T.alnumPassword(rng, 28))}\n` +
      `alice       4012  0.0  0.0   9000  3000 pts/0    S+   10:02   0:00 curl -s -H X-Api-Key:${s('api_key', T.opaqueToken(rng, 32))} https://api.example.com/v1/status\n`),
    plantedFile('systemctl show orders -p Environment', (s) =>
      `Environment=LOG_LEVEL=info DB_PASSWORD=${s('password', T.alnumPassword(rng, 18))} API_TOKEN=${s('token', T.opaqueToken(rng, 36))} MODE=prod\n`),
    plantedFile('git remote -v', (s) => {
      const tok = T.githubToken(rng, 'ghp');
      return `origin\thttps://alice:${s('github_token', tok)}@github.com/acme/orders.git (fetch)\norigin\thttps://alice:${tok}@github.com/acme/orders.git (push)\n` +
        `mirror\thttps://mirror:${s('url_password', T.alnumPassword(rng, 20))}@git.internal/acme/orders.git (fetch)\n`;
    }),
    plantedFile('cat /proc/2211/environ | tr \\0 \\n', (s) =>
      `LANG=C.UTF-8\nPATH=/usr/bin:/bin\nINVOCATION_ID=${rng.hex(32)}\nJOURNAL_STREAM=8:31337\nDB_PASSWORD=${s('password', T.password(rng, 20))}\nAMQP_URL=amqps://orders:${s('url_password', T.alnumPassword(rng, 22))}@mq.internal:5671/%2f\nMAILCHIMP_API_KEY=${s('mailchimp_key', T.mailchimp(rng))}\n`),
  ];
}
