/**
 * One client cannot stall the daemon (issue 8, section 6), against the real daemon on
 * real sockets with real Unix users: a connection that pipelines a thousand requests
 * and never reads; a burst of previews that each want a notification; hundreds of
 * connections that never say hello, an oversized hello and a frame trickled a byte a
 * second; one principal holding every process slot with long reads; and concurrent
 * previews racing a rule's daily cap.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createServer } from 'node:http';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { AirlockClient } from '../../src/client/client.js';
import { newToken, tokenHash } from '../../src/protocol/token.js';
import { MAX_UNAUTHENTICATED } from '../../src/daemon/admission.js';
import { FRAME_MS } from '../../src/daemon/connection.js';
import { READ_PROCESSES, READ_PROCESSES_PER_PRINCIPAL } from '../../src/daemon/executor.js';
import { NOTIFY_CONCURRENCY, NOTIFY_INTERVAL_MS } from '../../src/daemon/notify.js';
import { frame, hello } from '../support/frames.js';

const PORT = 30_000 + Math.floor(Math.random() * 20_000);
const token = newToken();
const TOKENS = `[[token]]\nname = "ci"\nrole = "dev"\nunattended = false\nsha256 = "${tokenHash(token).toString('hex')}"\n`;
/** The notifier sleeps and the webhook answers late, so notifications pile up while the previews come. */
const NOTIFY_SLEEP_S = 3;
const HOOK_DELAY_MS = 2000;
const POLICY = `[[rule]]
id = "capped"
action = "CreateGroup"
params = { group = "cap-*" }
cooldown_minutes = 0
daily_cap = 1

[notify]
command = ["/usr/bin/sleep", "${NOTIFY_SLEEP_S}"]
webhook = "http://127.0.0.1:HOOK_PORT/airlock"
`;

/** The webhook receiver (the overlay daemon shares this host's network); it counts requests in flight. */
const posted: Array<Record<string, unknown>> = [];
let hookInFlight = 0;
let hookPeak = 0;
const hook = createServer((req, res) => {
  hookInFlight++;
  hookPeak = Math.max(hookPeak, hookInFlight);
  let body = '';
  req.on('data', (d) => (body += d)).on('end', () => {
    posted.push(JSON.parse(body));
    setTimeout(() => {
      hookInFlight--;
      res.end('ok');
    }, HOOK_DELAY_MS);
  });
});

let w: World;
let bob: Principal, agent: Principal, alice: Principal;
before(async () => {
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const policy = POLICY.replace('HOOK_PORT', String((hook.address() as AddressInfo).port));
  w = await startWorld(['--listen-tcp', `127.0.0.1:${PORT}`], 'overlay', { policy, tokens: TOKENS });
  bob = await w.as('bob', ['airlock-observer']);
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(async () => {
  hook.close();
  await w?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const daemonPid = () => w.d.box.pid;
const vmRssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${daemonPid()}/status`, 'utf8'))![1]) / 1024;
const openFds = () => readdirSync(`/proc/${daemonPid()}/fd`).length;
/** The daemon's live child processes, with their command lines. */
function children(): Array<{ pid: number; cmd: string }> {
  const kids: Array<{ pid: number; cmd: string }> = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === daemonPid()) kids.push({ pid: Number(d), cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // the process exited while we looked
    }
  }
  return kids;
}


/** A raw connection (root on the Unix socket, anonymous on TCP) that decodes whatever the daemon sends. */
async function raw(target: string | number): Promise<{ sock: net.Socket; replies: any[]; closed: () => boolean; closedAt: () => number }> {
  const sock = typeof target === 'number' ? net.createConnection(target, '127.0.0.1') : net.createConnection(target);
  await new Promise((r, j) => (sock.once('connect', r), sock.once('error', j)));
  const replies: any[] = [];
  let buf = Buffer.alloc(0);
  let closedAt = 0;
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
      replies.push(JSON.parse(buf.subarray(4, 4 + buf.readUInt32BE(0)).toString('utf8')));
      buf = buf.subarray(4 + buf.readUInt32BE(0));
    }
  });
  sock.on('close', () => (closedAt = Date.now()));
  sock.on('error', () => {});
  return { sock, replies, closed: () => closedAt > 0, closedAt: () => closedAt };
}
async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await sleep(20);
  return cond();
}
/** How long one fresh connection takes to get an answer. */
async function answerTime(who: Principal): Promise<number> {
  const t0 = Date.now();
  assert.equal((await who.call('history', { limit: 1 }, { fresh: true })).length <= 1, true);
  return Date.now() - t0;
}

describe('a connection that never reads', () => {
  test('1000 pipelined actions.list neither stall another client nor grow the daemon, and their replies come in order once read', async (t) => {
    assert.match(readFileSync(`/proc/${daemonPid()}/cmdline`, 'utf8'), /daemon/, 'the pid measured is the daemon');
    await bob.call('actions.list');
    const before = vmRssMiB();
    const c = await raw(w.d.socket);
    c.sock.pause(); // read nothing until the end
    const N = 1000;
    c.sock.write(Buffer.concat([hello, ...Array.from({ length: N }, (_, i) => frame(JSON.stringify({ type: 'request', id: String(i), method: 'actions.list' })))]));
    await sleep(200);
    const took = await answerTime(bob);
    assert.ok(took < 2000, `another client waited ${took} ms for an answer`);
    let peak = 0;
    for (let i = 0; i < 15; i++, await sleep(200)) peak = Math.max(peak, vmRssMiB());
    t.diagnostic(`another client answered in ${took} ms; the daemon grew by ${(peak - before).toFixed(1)} MiB`);
    assert.ok(peak - before < 48, `the daemon grew by ${(peak - before).toFixed(0)} MiB for one client that does not read`);
    c.sock.resume();
    assert.ok(await until(() => c.replies.length >= N + 1, 60_000), `only ${c.replies.length - 1} of ${N} replies arrived`);
    assert.equal(c.replies[0].type, 'welcome');
    assert.deepEqual(c.replies.slice(1).map((r) => r.id), Array.from({ length: N }, (_, i) => String(i)));
    assert.ok(c.replies.slice(1).every((r) => r.ok === true && r.result.length > 30));
    c.sock.destroy();
  });
});

describe('connections before the hello', () => {
  test(`500 connections that never say hello hold at most ${MAX_UNAUTHENTICATED} sockets, and an authenticated client still gets in`, async (t) => {
    const base = openFds();
    const idle = await Promise.all(Array.from({ length: 500 }, () => raw(PORT)));
    await sleep(500);
    const held = openFds() - base;
    t.diagnostic(`the daemon holds ${held} more descriptors`);
    assert.ok(held <= MAX_UNAUTHENTICATED + 8, `the daemon holds ${held} sockets for connections that never said hello`);
    const t0 = Date.now();
    const cl = await AirlockClient.connect(`tcp:127.0.0.1:${PORT}`, { token });
    assert.equal(cl.welcome.principal.user, 'token:ci');
    assert.ok((await cl.call('actions.list')).length > 30);
    assert.ok(Date.now() - t0 < 2000, `the token client took ${Date.now() - t0} ms`);
    cl.close();
    assert.ok((await answerTime(bob)) < 2000);
    const evicted = idle.filter((c) => c.closed());
    assert.ok(evicted.length >= 500 - MAX_UNAUTHENTICATED, `${evicted.length} were dropped`);
    assert.ok(evicted.some((c) => c.replies.some((r) => r.error?.code === 'too_many_unauthenticated')));
    idle.forEach((c) => c.sock.destroy());
  });

  test('a length prefix over the pre-hello limit is refused at once, on TCP and on the Unix socket', async () => {
    for (const target of [PORT, w.d.socket]) {
      const c = await raw(target);
      const t0 = Date.now();
      const head = Buffer.alloc(4);
      head.writeUInt32BE(64 * 1024, 0); // under MAX_FRAME, far over what a hello needs
      c.sock.write(head);
      assert.ok(await until(c.closed, 3000), 'the connection was closed');
      assert.ok(c.closedAt() - t0 < 1000, `closed after ${c.closedAt() - t0} ms`);
      assert.equal(c.replies[0]?.error?.code, 'frame_too_large');
    }
  });

  test('a frame trickled one byte a second is dropped at its deadline', async () => {
    const c = await raw(w.d.socket);
    c.sock.write(hello);
    assert.ok(await until(() => c.replies.length === 1, 2000));
    const body = Buffer.from(JSON.stringify({ type: 'request', id: 't', method: 'history', params: { limit: 1 } }));
    const f = frame(body);
    const t0 = Date.now();
    for (let i = 0; i < Math.min(f.length - 1, FRAME_MS / 1000 + 4) && !c.closed(); i++) {
      c.sock.write(f.subarray(i, i + 1));
      await sleep(1000);
    }
    assert.ok(c.closed(), 'the connection was dropped before the frame could complete');
    const after = c.closedAt() - t0;
    assert.ok(after >= FRAME_MS - 500 && after < FRAME_MS + 2500, `dropped after ${after} ms (deadline ${FRAME_MS})`);
    assert.equal(c.replies.at(-1)?.error?.code, 'frame_timeout');
    assert.ok((await answerTime(bob)) < 2000);
  });
});

describe('process slots', () => {
  // VerifyJournal is a low-risk read with a 10-minute limit. Its program is made slow here,
  // while a flag file exists, so the test decides how long one run holds a slot.
  const FLAG = '/run/airlock-test-slow-journal';
  const slowJournal = `#!/bin/sh\nif [ -e ${FLAG} ]; then exec /usr/bin/sleep 30; fi\nexit 0\n`;
  test('one principal saturating long reads holds at most its share; another principal\'s read and a change still run', async () => {
    const root = (p: string) => `/proc/${daemonPid()}/root${p}`;
    writeFileSync(root('/usr/bin/journalctl'), slowJournal, { mode: 0o755 });
    writeFileSync(root(FLAG), '');
    const sleepers = () => children().filter((k) => k.cmd === '/usr/bin/sleep 30');
    // Root (this process) runs 16 of them at once, on four connections.
    const conns = await Promise.all(Array.from({ length: 4 }, () => AirlockClient.connect(w.d.socket)));
    const runs = conns.flatMap((cl) =>
      Array.from({ length: 4 }, async () => {
        const p = await cl.preview('VerifyJournal', {});
        assert.ok(p.auto_approval, 'a non-sensitive read is approved by the policy');
        return cl.execute(p.transaction_id, p.action_name, p.params, p.auto_approval!.receipt);
      }),
    );
    try {
      assert.ok(await until(() => sleepers().length >= READ_PROCESSES_PER_PRINCIPAL, 10_000), `only ${sleepers().length} long reads started`);
      await sleep(500);
      assert.equal(sleepers().length, READ_PROCESSES_PER_PRINCIPAL, `one principal holds at most ${READ_PROCESSES_PER_PRINCIPAL} of the ${READ_PROCESSES} read slots`);
      // Another principal's read (uname) runs at once.
      let t0 = Date.now();
      const p = await bob.call('preview', { action_name: 'HostInfo', params: {} });
      const r = await bob.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: p.auto_approval!.receipt });
      assert.equal(r.state, 'Succeeded');
      assert.ok(Date.now() - t0 < 4000, `bob's read took ${Date.now() - t0} ms`);
      // And so does a change (groupadd), approved by a person.
      t0 = Date.now();
      const { r: change } = await w.lifecycle(agent, alice, 'CreateGroup', { group: 'during-reads' });
      assert.equal(change.state, 'Succeeded');
      assert.ok(Date.now() - t0 < 4000, `the change took ${Date.now() - t0} ms`);
    } finally {
      rmSync(root(FLAG), { force: true });
      for (const k of sleepers()) process.kill(k.pid, 'SIGTERM');
      await Promise.allSettled(runs);
      conns.forEach((c) => c.close());
    }
  });
});

describe('notifications', () => {
  test(`300 pending previews run at most ${NOTIFY_CONCURRENCY} notifier processes and webhook requests at once, coalesced, and every one is accounted for`, async () => {
    const notifiers = () => children().filter((k) => k.cmd === `/usr/bin/sleep ${NOTIFY_SLEEP_S}`).length;
    assert.ok(await until(() => notifiers() === 0 && hookInFlight === 0, 30_000), 'earlier notifications finished');
    const burster = await w.as('burster', ['airlock-admin']);
    const mine = () => posted.filter((n) => n.requested_by === `burster(uid ${burster.identity.uid})`);
    hookPeak = 0;
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, notifiers());
        await sleep(25);
      }
    })();
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, k) => burster.call('preview', { action_name: 'CreateGroup', params: { group: `burst-${i}-${k}` } })));
      batch.forEach((p) => ids.add(p.transaction_id));
    }
    assert.equal(ids.size, 300);
    const accounted = () => mine().reduce((n, p) => n + (p.count as number), 0);
    assert.ok(await until(() => accounted() >= 300, (NOTIFY_INTERVAL_MS + HOOK_DELAY_MS) * 3), `${accounted()} of 300 accounted for`);
    await sleep(1000); // nothing more comes
    sampling = false;
    await sampler;
    assert.ok(peak <= NOTIFY_CONCURRENCY, `${peak} notifier processes ran at once`);
    assert.ok(peak >= 1, 'the notifier ran');
    assert.ok(hookPeak <= NOTIFY_CONCURRENCY, `${hookPeak} webhook requests were in flight at once`);
    const notes = mine();
    assert.ok(notes.length >= 2 && notes.length <= 5, `${notes.length} notifications for one burst`);
    // Each lists some of the requester's pending events and counts the others.
    const listed = notes.flatMap((n) => n.pending as Array<Record<string, unknown>>);
    assert.ok(listed.every((e) => e.event === 'pending_approval' && ids.has(e.transaction_id as string) && !('params' in e)));
    assert.equal(new Set(listed.map((e) => e.transaction_id)).size, listed.length, 'no event is listed twice');
    const notListed = notes.reduce((n, p) => n + (p.not_listed as number), 0);
    assert.equal(listed.length + notListed, 300, `${listed.length} listed and ${notListed} counted as not listed`);
    assert.ok(notes.every((n) => n.count === (n.pending as unknown[]).length + (n.not_listed as number)));
  });
});

describe('rule caps under concurrency', () => {
  test('8 concurrent previews under a rule with daily_cap = 1 give exactly one auto-approval', async () => {
    const ps = await Promise.all(Array.from({ length: 8 }, (_, i) => agent.call('preview', { action_name: 'CreateGroup', params: { group: `cap-${i}` } })));
    assert.equal(ps.filter((p) => p.auto_approval?.rule === 'capped').length, 1);
    assert.equal(ps.filter((p) => p.auto_approval).length, 1);
  });
});
