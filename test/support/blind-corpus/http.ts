/** HTTP credentials: Authorization headers, API keys and tokens in query strings, X-API-Key. */
import type { KindSpec } from './types.js';
import { domain, fqdn, ip, text, user } from './context.js';

const bearer: KindSpec = {
  kinds: ['http-bearer-token'],
  make(r) {
    const v = r.pick([r.alnum(40), r.b64url(32), `${r.hex(8)}-${r.alnum(32)}`]);
    const h = `api.${domain(r)}`;
    return { name: `curl -v https://${h}/v2/status`, secrets: [{ kind: 'http-bearer-token', value: v }],
      text: text([`*   Trying ${ip(r)}:443...`, `* Connected to ${h} (${ip(r)}) port 443`, '* ALPN: curl offers h2,http/1.1', '* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384',
        '> GET /v2/status HTTP/2', `> Host: ${h}`, '> User-Agent: curl/7.88.1', '> Accept: */*', `> Authorization: Bearer ${v}`, '>', '< HTTP/2 200', '< content-type: application/json', '< content-length: 17', '<', '{"status":"ok"}']) };
  },
};

const basic: KindSpec = {
  kinds: ['http-basic-credentials'],
  make(r) {
    const v = Buffer.from(`${user(r)}:${r.password()}`).toString('base64');
    if (r.chance(0.5)) {
      return { name: 'grep -r Authorization /etc/nginx/sites-enabled/', secrets: [{ kind: 'http-basic-credentials', value: v }],
        text: text(['location /upstream-metrics/ {', `    proxy_pass https://${fqdn(r)}:9100/metrics;`, `    proxy_set_header Authorization "Basic ${v}";`, '    proxy_set_header Host $host;', '}']) };
    }
    return { name: 'tcpdump -A port 80 (excerpt)', secrets: [{ kind: 'http-basic-credentials', value: v }],
      text: text([`07:22:11.${r.int(100000, 999999)} IP ${ip(r)}.51234 > ${ip(r)}.80: Flags [P.], seq 1:201, ack 1, win 502, length 200: HTTP: GET /admin/ HTTP/1.1`,
        'GET /admin/ HTTP/1.1', `Host: ${fqdn(r)}`, `Authorization: Basic ${v}`, 'User-Agent: Wget/1.21.3', 'Accept: */*']) };
  },
};

const apiKeyParam: KindSpec = {
  kinds: ['url-api-key-param'],
  make(r) {
    const v = r.pick([r.hex(32), r.alnum(32)]);
    const p = r.pick(['api_key', 'apikey', 'key']);
    return { name: 'tail -n 4 /var/log/nginx/access.log', secrets: [{ kind: 'url-api-key-param', value: v }],
      text: text([`${ip(r)} - - [06/Dec/2026:06:59:58 +0000] "GET /favicon.ico HTTP/1.1" 404 153 "-" "Mozilla/5.0"`,
        `${ip(r)} - - [06/Dec/2026:07:00:01 +0000] "GET /v1/weather?city=Hamburg&${p}=${v}&units=metric HTTP/1.1" 200 512 "-" "python-requests/2.31.0"`,
        `${ip(r)} - - [06/Dec/2026:07:00:03 +0000] "POST /v1/ingest HTTP/1.1" 202 0 "-" "Go-http-client/1.1"`]) };
  },
};

const tokenParam: KindSpec = {
  kinds: ['url-token-param'],
  make(r) {
    const v = r.pick([r.b64url(24), r.hex(40)]);
    const p = r.pick(['token', 'access_token', 'auth']);
    if (r.chance(0.5)) {
      return { name: 'haproxy log', secrets: [{ kind: 'url-token-param', value: v }],
        text: text([`Dec  6 07:01:12 edge-lb-1 haproxy[${r.int(1000, 9999)}]: ${ip(r)}:${r.int(30000, 60000)} [06/Dec/2026:07:01:12.345] fe_https~ be_app/app2 0/0/1/12/13 200 845 - - ---- 12/12/0/0/0 0/0 "GET /hooks/deploy?ref=main&${p}=${v} HTTP/1.1"`]) };
    }
    return { name: 'cat /etc/cron.d/heartbeat', secrets: [{ kind: 'url-token-param', value: v }],
      text: text(['# uptime heartbeat', `*/5 * * * * nobody curl -fsS -m 10 "https://status.${domain(r)}/api/push/${r.alnum(10)}?status=up&msg=OK&${p}=${v}" >/dev/null`]) };
  },
};

const xApiKey: KindSpec = {
  kinds: ['x-api-key-header'],
  make(r) {
    const v = r.pick([r.alnum(40), r.hex(32), r.uuid()]);
    return { name: 'cat /etc/prometheus/blackbox.yml', secrets: [{ kind: 'x-api-key-header', value: v }],
      text: text(['modules:', '  http_2xx:', '    prober: http', '    timeout: 5s', '  api_auth:', '    prober: http', '    http:', '      method: GET', '      headers:',
        `        X-API-Key: ${v}`, '      valid_status_codes: [200]', '      preferred_ip_protocol: ip4']) };
  },
};

export const httpSpecs: KindSpec[] = [bearer, basic, apiKeyParam, tokenParam, xApiKey];
