/**
 * The notifier's bounds, against a real webhook receiver on loopback: a few deliveries
 * at once, one notification per requester per interval with the rest coalesced into it,
 * and a cap on waiting requesters whose drops are counted in the log. Every event is
 * accounted for: listed, counted as not listed, or counted as dropped.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { notifier, NOTIFY_CONCURRENCY, NOTIFY_MAX_LISTED, NOTIFY_MAX_REQUESTERS, type PendingNotification as Notification, type PendingEvent } from '../../src/daemon/notify.js';
import { parsePolicy, type Policy } from '../../src/policy/policy.js';

const received: Array<{ at: number; n: Notification }> = [];
let inFlight = 0;
let peak = 0;
let holdMs = 0;
const hook = createServer((req, res) => {
  inFlight++;
  peak = Math.max(peak, inFlight);
  let body = '';
  req.on('data', (d) => (body += d)).on('end', () => {
    received.push({ at: Date.now(), n: JSON.parse(body) });
    setTimeout(() => (inFlight--, res.end('ok')), holdMs);
  });
});
let policy: Policy;
before(async () => {
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  policy = parsePolicy(`[notify]\nwebhook = "http://127.0.0.1:${(hook.address() as AddressInfo).port}/n"\n`);
});
after(() => hook.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;
const event = (who: string): PendingEvent => ({ event: 'pending_approval', transaction_id: `tx_${String(seq++).padStart(24, '0')}`, action: 'CreateGroup', risk: 'medium', summary: 'Create group g', requested_by: who, expires_at: '2030-01-01T00:00:00.000Z' });
const reset = (hold: number) => {
  received.length = 0;
  peak = 0;
  holdMs = hold;
};
async function quiet(ms: number): Promise<void> {
  let n = -1;
  while (n !== received.length || inFlight > 0) {
    n = received.length;
    await sleep(ms);
  }
}

test('a burst from one requester is one notification now and one coalesced notification an interval later', async () => {
  reset(0);
  const logs: string[] = [];
  const notify = notifier((m) => logs.push(m), { intervalMs: 600 });
  const t0 = Date.now();
  for (let i = 0; i < 50; i++) notify(policy, event('agent'));
  await quiet(900);
  assert.equal(received.length, 2);
  const [first, second] = received;
  assert.deepEqual([first!.n.event, first!.n.requested_by, first!.n.count, first!.n.pending.length, first!.n.not_listed], ['pending', 'agent', 1, 1, 0]);
  assert.ok(first!.at - t0 < 500);
  assert.ok(second!.at - t0 >= 590, `the second came ${second!.at - t0} ms after the burst`);
  assert.deepEqual([second!.n.count, second!.n.pending.length, second!.n.not_listed], [49, NOTIFY_MAX_LISTED, 49 - NOTIFY_MAX_LISTED]);
  assert.ok(received.flatMap((r) => r.n.pending).every((e) => !('params' in e)));
  assert.deepEqual(logs, []);
});

test(`many requesters: at most ${NOTIFY_CONCURRENCY} deliveries at once, at most ${NOTIFY_MAX_REQUESTERS} waiting, and every event accounted for`, async () => {
  reset(150);
  const logs: string[] = [];
  const notify = notifier((m) => logs.push(m), { intervalMs: 300 });
  const N = 100;
  for (let round = 0; round < 3; round++) for (let i = 0; i < N; i++) notify(policy, event(`user${i}`));
  await quiet(1500);
  assert.ok(peak <= NOTIFY_CONCURRENCY, `${peak} webhook requests at once`);
  assert.ok(received.length >= NOTIFY_MAX_REQUESTERS, `${received.length} notifications`);
  const notified = received.reduce((k, r) => k + r.n.count, 0);
  assert.equal(received.reduce((k, r) => k + r.n.pending.length + r.n.not_listed, 0), notified);
  const dropped = logs.map((l) => /^notify: (\d+) pending event\(s\) not notified/.exec(l)).reduce((k, m) => k + Number(m?.[1] ?? 0), 0);
  assert.ok(dropped > 0, 'some requesters found the waiting list full');
  assert.ok(logs.length <= 3, `drops are logged in a few counted lines, not one each: ${logs.length}`);
  assert.equal(notified + dropped, 3 * N, `${notified} notified and ${dropped} dropped`);
  // A requester is never notified twice within the interval.
  const byWho = new Map<string, number[]>();
  for (const r of received) byWho.set(r.n.requested_by, [...(byWho.get(r.n.requested_by) ?? []), r.at]);
  for (const [who, times] of byWho) for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 250, `${who} notified ${times[i]! - times[i - 1]!} ms apart`);
});

test('no notifier configured: nothing is queued or sent', async () => {
  reset(0);
  const notify = notifier(() => assert.fail('nothing to log'));
  for (let i = 0; i < 10; i++) notify(parsePolicy(''), event('agent'));
  await sleep(100);
  assert.equal(received.length, 0);
});

test('a change of disk pressure is sent at once, as it is, beside the pending events', async () => {
  reset(0);
  const logs: string[] = [];
  const notify = notifier((m) => logs.push(m), { intervalMs: 600 });
  notify(policy, event('agent'));
  notify(policy, { event: 'storage_pressure', state: 'low', state_dir: '/var/lib/airlock', free_bytes: 1000, min_free_bytes: 2000, at: '2030-01-01T00:00:00.000Z' });
  await quiet(300);
  const sent = received.map((r) => r.n as unknown as Record<string, unknown>);
  assert.equal(sent.length, 2);
  assert.deepEqual(
    sent.find((n) => n.event === 'storage_pressure'),
    { event: 'storage_pressure', state: 'low', state_dir: '/var/lib/airlock', free_bytes: 1000, min_free_bytes: 2000, at: '2030-01-01T00:00:00.000Z' },
  );
  assert.deepEqual(logs, []);
});

test('an ntfy topic gets a message a phone shows: the title and priority in headers, the lines in the body, and a tap opening the console page of the change', async () => {
  const got: Array<{ headers: Record<string, string | string[] | undefined>; body: string; url: string }> = [];
  const topic = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d)).on('end', () => (got.push({ headers: req.headers, body, url: req.url ?? '' }), res.end('{}')));
  });
  await new Promise<void>((r) => topic.listen(0, '127.0.0.1', r));
  try {
    const p = parsePolicy(`[notify]\nntfy = "http://127.0.0.1:${(topic.address() as AddressInfo).port}/airlock-alice"\n[passkeys]\nrp_id = "airlock.example.org"\norigins = ["https://airlock.example.org"]\n[console]\nurl = "https://airlock.example.org"\n`);
    const notify = notifier(() => {}, { intervalMs: 50 });
    notify(p, { ...event('agent(uid 1002)'), risk: 'high', action: 'CreateUser', summary: 'Create user wéb \\u202e' });
    for (let i = 0; i < 100 && got.length === 0; i++) await sleep(20);
    assert.equal(got.length, 1);
    const m = got[0]!;
    assert.equal(m.url, '/airlock-alice');
    assert.equal(m.headers.title, 'Airlock: a change waits for approval');
    assert.equal(m.headers.priority, 'high');
    assert.match(String(m.headers.click), /^https:\/\/airlock\.example\.org\/tx\/tx_\d{24}$/);
    assert.match(m.body, /^agent\(uid 1002\) asks:\nHIGH CreateUser: Create user wéb \\u202e \(tx_\d{24}\)$/);
  } finally {
    topic.close();
  }
});

test("ntfy's access token comes from a file only the daemon's uid reads, never followed through a link; a file others may read is not used, and the log says why", async () => {
  const got: Array<string | undefined> = [];
  const topic = createServer((req, res) => (got.push(req.headers.authorization), req.resume(), req.on('end', () => res.end('{}'))));
  await new Promise<void>((r) => topic.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'ntfy-token-'));
  try {
    const file = join(dir, 'token');
    writeFileSync(file, 'tk_0123456789abcdefghijklmnopqrs\n', { mode: 0o600 });
    const policyWith = (path: string) => parsePolicy(`[notify]\nntfy = "http://127.0.0.1:${(topic.address() as AddressInfo).port}/t"\nntfy_token_file = "${path}"\n`);
    const logs: string[] = [];
    const send = async (p: Policy) => {
      const before = got.length;
      notifier((m) => logs.push(m), { intervalMs: 10 })(p, event(`r${seq}`));
      for (let i = 0; i < 100 && got.length === before; i++) await sleep(20);
      return got.at(-1);
    };
    assert.equal(await send(policyWith(file)), 'Bearer tk_0123456789abcdefghijklmnopqrs', "a file only the daemon's uid reads: its token");
    chmodSync(file, 0o644);
    assert.equal(await send(policyWith(file)), undefined, 'readable by others: not used');
    assert.match(logs.join('\n'), /the token is not used: .*has mode 644: group or others can read it/);
    symlinkSync(file, join(dir, 'link'));
    assert.equal(await send(policyWith(join(dir, 'link'))), undefined, 'a link: not followed');
    assert.throws(() => parsePolicy('[notify]\nntfy_token_file = "/etc/airlock/ntfy.token"\n'), /name the topic/);
  } finally {
    topic.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
