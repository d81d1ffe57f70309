/**
 * The web console's server on its own (no daemon: its socket does not exist, so a relay that
 * got through would answer 503): the headers every response carries, the cookie's flags, and
 * what is refused before anything is relayed: a POST from another origin or without the page's
 * CSRF token (403), an API call without a session (401), a body too large (413) or not JSON
 * (415). And the page itself: no inline script or style, no event-handler attribute, and no
 * way for the script to parse text as HTML.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { consoleServer } from '../../src/console/server.js';
import { ASSET_DIR } from '../../src/console/assets.js';
import { CSP } from '../../src/console/headers.js';
import { parseListen, parseOrigin } from '../../src/console/listen-address.js';
import { Sessions } from '../../src/console/sessions.js';

let server: Server;
let base: string;
const ORIGIN = 'http://localhost:7443';

before(async () => {
  server = consoleServer({ host: '127.0.0.1', port: 0, origin: ORIGIN, socket: '/nonexistent/airlock.sock' });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

/** A fresh anonymous session: its cookie and CSRF token. */
async function session(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const r = await fetch(`${base}/api/me`);
  const setCookie = r.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0]!, csrf: ((await r.json()) as { csrf: string }).csrf, setCookie };
}

test('every response carries the CSP, nosniff, no-referrer and no-store, a page as an error', async () => {
  for (const path of ['/', '/register', '/tx/tx_000000000000000000000000', '/app.js', '/style.css', '/api/me', '/api/inbox', '/nothing', '/api/nothing']) {
    const r = await fetch(`${base}${path}`);
    assert.equal(r.headers.get('content-security-policy'), CSP, path);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer', path);
    assert.equal(r.headers.get('cache-control'), 'no-store', path);
    await r.arrayBuffer();
  }
  assert.match(CSP, /script-src 'self'; style-src 'self'/);
  assert.match(CSP, /frame-ancestors 'none'/);
});

test('the cookie is HttpOnly, SameSite=Strict, Path=/, and holds a random id, not a daemon token', async () => {
  const { setCookie, csrf } = await session();
  assert.match(setCookie, /^airlock_console=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/);
  assert.match(csrf, /^[A-Za-z0-9_-]{43}$/);
});

test('an API call without a session is 401, and nothing is relayed', async () => {
  for (const path of ['/api/inbox', '/api/tx/tx_000000000000000000000000', '/api/tx/tx_000000000000000000000000/approval-options']) {
    const r = await fetch(`${base}${path}`);
    assert.equal(r.status, 401, path);
    assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'not_signed_in');
  }
});

test('a POST without the Origin of the console, or without its CSRF token, is 403', async () => {
  const { cookie, csrf } = await session();
  const post = (headers: Record<string, string>) => fetch(`${base}/api/sign-in/options`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie, ...headers }, body: '{}' });
  const cases: Array<[string, Record<string, string>]> = [
    ['no Origin', { 'X-Airlock-CSRF': csrf }],
    ['another Origin', { Origin: 'https://evil.example', 'X-Airlock-CSRF': csrf }],
    ['no CSRF token', { Origin: ORIGIN }],
    ['a wrong CSRF token', { Origin: ORIGIN, 'X-Airlock-CSRF': csrf.replace(/^./, (ch) => (ch === 'A' ? 'B' : 'A')) }],
  ];
  for (const [what, headers] of cases) {
    const r = await post(headers);
    assert.equal(r.status, 403, what);
    assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'forged_request', what);
  }
  const approve = await fetch(`${base}/api/tx/tx_000000000000000000000000/approve`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie, Origin: 'https://evil.example' }, body: '{}' });
  assert.equal(approve.status, 403);
  // With both, the request is relayed: here to a daemon that is not there.
  const ok = await post({ Origin: ORIGIN, 'X-Airlock-CSRF': csrf });
  assert.equal(ok.status, 503);
});

test('bodies are bounded and JSON only; a GET route refuses POST', async () => {
  const { cookie, csrf } = await session();
  const h = { Cookie: cookie, Origin: ORIGIN, 'X-Airlock-CSRF': csrf };
  const big = await fetch(`${base}/api/sign-in`, { method: 'POST', headers: { ...h, 'Content-Type': 'application/json' }, body: JSON.stringify({ x: 'a'.repeat(70_000) }) });
  assert.equal(big.status, 413);
  const form = await fetch(`${base}/api/sign-in`, { method: 'POST', headers: { ...h, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
  assert.equal(form.status, 415);
  const wrong = await fetch(`${base}/api/inbox`, { method: 'POST', headers: { ...h, 'Content-Type': 'application/json' }, body: '{}' });
  assert.equal(wrong.status, 405);
  const badId = await fetch(`${base}/api/registration/${'x'.repeat(200)}`);
  assert.equal(badId.status, 400);
});

test('the page has no inline script or style and never parses text as HTML', () => {
  const html = readFileSync(join(ASSET_DIR, 'index.html'), 'utf8');
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    assert.match(m[1]!, /\bsrc="\/(webauthn|app)\.js"/);
    assert.equal(m[2]!.trim(), '', 'no inline script');
  }
  assert.doesNotMatch(html, /<style\b|\sstyle=|\son[a-z]+=|javascript:/i);
  const js = ['app.js', 'webauthn.js'].map((f) => readFileSync(join(ASSET_DIR, f), 'utf8')).join('\n');
  assert.doesNotMatch(js, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\(['"]on/);
});

test('sessions are bounded: anonymous visits never evict a signed-in person; expiry ends them', () => {
  let now = 1_000;
  const s = new Sessions(3, () => now);
  const signed = s.signIn(null, { token: 't', approver: 'alice(uid 1001)', user: 'alice', expiresAt: 5_000 });
  for (let i = 0; i < 10; i++) s.anonymousSession();
  assert.equal(s.get(signed.id)?.daemon?.user, 'alice');
  now = 5_000;
  assert.equal(s.get(signed.id), null, 'gone with the daemon session');
});

test('--listen and --origin are checked', () => {
  assert.deepEqual(parseListen('127.0.0.1:7443'), { host: '127.0.0.1', port: 7443 });
  assert.deepEqual(parseListen('[::1]:8080'), { host: '::1', port: 8080 });
  assert.throws(() => parseListen('7443'), /ADDRESS:PORT/);
  assert.equal(parseOrigin('https://airlock.example.org/'), 'https://airlock.example.org');
  assert.throws(() => parseOrigin('http://airlock.example.org'), /https/);
  assert.throws(() => parseOrigin('https://x.example/path'), /not an origin/);
});
