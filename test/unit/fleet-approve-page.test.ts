/**
 * The page `airlock fleet approve` serves for the one passkey assertion
 * (src/cli/fleet-approve-page.ts), on a real loopback socket, as a hostile local page or
 * process would reach it: nothing without the link's token, no POST from another origin, no
 * other Host name (DNS rebinding), a bounded body, ONE assertion accepted (a second is refused
 * while the hosts are asked), the console's strict headers, and the deadline ends the wait.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveFleetPage, type FleetPage } from '../../src/cli/fleet-approve-page.js';
import { CSP } from '../../src/console/headers.js';
import { ask, freePort } from '../support/loopback.js';

const plan = { challenge: 'Y2hhbGxlbmdl', rp_id: 'localhost', hosts: [{ host: 'web1', tx: `tx_${'a'.repeat(24)}`, risk: 'medium', match_code: 'ABC-DEF', summary: '<img src=x onerror=alert(1)>' }] };

async function withPage(fn: (page: FleetPage, port: number, token: string) => Promise<void>, deadline = Date.now() + 60_000): Promise<void> {
  const port = await freePort();
  const page = await serveFleetPage({ host: '127.0.0.1', port }, plan, deadline);
  page.assertion.catch(() => {}); // a test that posts nothing leaves it waiting
  try {
    assert.match(page.url, new RegExp(`^http://localhost:${port}/#[A-Za-z0-9_-]{43}$`));
    await fn(page, port, page.url.split('#')[1]!);
  } finally {
    await page.close();
  }
}

const post = (port: number, body: unknown, origin = `http://localhost:${port}`) => ask(port, '/assertion', { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin }, body: JSON.stringify(body) });

test('its files and the plan, with the console\'s strict headers; the plan only with the token; no other Host name', async () => {
  await withPage(async (_page, port, token) => {
    const index = await ask(port, '/');
    assert.equal(index.status, 200);
    assert.equal(index.headers['content-security-policy'], CSP);
    assert.equal(index.headers['x-frame-options'], 'DENY');
    assert.match(index.body, /<script src="\/fleet.js" defer><\/script>/);
    assert.doesNotMatch(index.body, /<script>/, 'no inline script');
    assert.equal((await ask(port, '/fleet.js')).status, 200);
    assert.equal((await ask(port, '/plan')).status, 403);
    assert.equal((await ask(port, '/plan', { headers: { 'X-Airlock-Token': token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A') } })).status, 403);
    const ok = await ask(port, '/plan', { headers: { 'X-Airlock-Token': token } });
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body), plan);
    assert.equal((await ask(port, '/', { headers: { Host: `attacker.example:${port}` } })).status, 421);
    assert.equal((await ask(port, '/plan', { headers: { Host: `attacker.example:${port}`, 'X-Airlock-Token': token } })).status, 421);
    assert.equal((await ask(port, '/../package.json')).status, 404);
  });
});

test('one assertion, from the page\'s origin with the token: another origin, a wrong token, a large body, a second one are refused', async () => {
  await withPage(async (page, port, token) => {
    assert.equal((await post(port, { token, assertion: { id: 'x' } }, 'https://attacker.example')).status, 403);
    assert.equal((await post(port, { token: 'x'.repeat(43), assertion: { id: 'x' } })).status, 403);
    assert.equal((await post(port, { token, pad: 'z'.repeat(70_000) })).status, 413);
    assert.equal((await post(port, { token, assertion: 'not an object' })).status, 400);
    const first = post(port, { token, assertion: { id: 'mine' } });
    assert.deepEqual(await page.assertion, { id: 'mine' });
    // While the hosts are asked, a second assertion is refused.
    const second = await post(port, { token, assertion: { id: 'another' } });
    assert.equal(second.status, 409);
    await page.answer({ approved: 1, hosts: [{ host: 'web1', line: 'approved by alice(uid 1001)' }] });
    const answered = await first;
    assert.equal(answered.status, 200);
    assert.deepEqual(JSON.parse(answered.body), { approved: 1, hosts: [{ host: 'web1', line: 'approved by alice(uid 1001)' }] });
  });
});

test('no assertion before the deadline: the wait ends, as an expired preview', async () => {
  await withPage(async (page) => {
    await assert.rejects(page.assertion, (e: Error & { code?: string }) => e.code === 'preview_expired');
  }, Date.now() + 300);
});
