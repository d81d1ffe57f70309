/**
 * Hostile bytes on the socket: oversized, truncated, non-JSON, non-UTF-8,
 * unknown-type and 10,000-deep frames each get a typed error or a closed
 * connection, while the daemon keeps serving a well-behaved client.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { frame, hello } from '../support/frames.js';

let w: World;
let bystander: Principal;
before(async () => {
  w = await startWorld();
  bystander = await w.as('bob', ['airlock-observer']);
});
after(() => w?.close());


/** Opens a raw connection (as root, so it is admitted), sends bytes, collects decoded replies until close or quiet. */
/** Sends the chunks, then collects replies until `want` arrived, the daemon closes, or it stays quiet for quietMs (5 s at most). */
async function exchange(chunks: Buffer[], quietMs = 400, want = Infinity): Promise<{ replies: any[]; closed: boolean }> {
  const sock = net.createConnection(w.d.socket);
  await new Promise((r) => sock.once('connect', r));
  const replies: any[] = [];
  let buf = Buffer.alloc(0);
  let closed = false;
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
      replies.push(JSON.parse(buf.subarray(4, 4 + buf.readUInt32BE(0)).toString('utf8')));
      buf = buf.subarray(4 + buf.readUInt32BE(0));
    }
  });
  sock.on('close', () => (closed = true));
  sock.on('error', () => {});
  for (const c of chunks) sock.write(c);
  const until = Date.now() + 5000;
  let last = -1;
  while (!closed && Date.now() < until && replies.length < want) {
    await new Promise((r) => setTimeout(r, quietMs));
    if (replies.length === last && want === Infinity) break;
    last = replies.length;
  }
  sock.destroy();
  return { replies, closed };
}

const errorOf = (replies: any[]) => replies.find((r) => r.ok === false)?.error;

// The daemon gives a connection's slot back when it sees the close, which comes
// a moment after the client's: right after a burst that filled the cap, allow it
// that moment (only too_many_connections is retried, for at most 5 s).
async function stillServing(): Promise<void> {
  const until = Date.now() + 5000;
  for (;;) {
    try {
      const list = await bystander.call('actions.list', {}, { fresh: true });
      assert.ok(list.length > 30);
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== 'too_many_connections' || Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('malformed frames', () => {
  test('hello, then a request, works (the baseline the attacks break)', async () => {
    const { replies } = await exchange([hello, frame(JSON.stringify({ type: 'request', id: 'a', method: 'history', params: { limit: 1 } }))]);
    assert.equal(replies[0].type, 'welcome');
    assert.equal(replies[0].principal.uid, 0);
    assert.equal(replies[1].ok, true);
  });

  test('an oversized length prefix gets a typed error and the connection is closed', async () => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(64 * 1024 * 1024, 0);
    const { replies, closed } = await exchange([hello, head, Buffer.alloc(1024)]);
    assert.equal(errorOf(replies)?.code, 'frame_too_large');
    assert.ok(closed);
    await stillServing();
  });

  test('a zero-length frame is refused', async () => {
    const { replies, closed } = await exchange([hello, Buffer.alloc(4)]);
    assert.equal(errorOf(replies)?.code, 'empty_frame');
    assert.ok(closed);
  });

  test('a truncated frame followed by a hang-up changes nothing', async () => {
    const f = frame(JSON.stringify({ type: 'request', id: 'x', method: 'preview', params: { action_name: 'ListUsers', params: {} } }));
    const before = (await bystander.call('history', { limit: 1000 })).length;
    await exchange([hello, f.subarray(0, f.length - 5)], 100);
    assert.equal((await bystander.call('history', { limit: 1000 })).length, before, 'no transaction came out of half a frame');
    await stillServing();
  });

  test('non-JSON and non-UTF-8 bodies get typed validation errors', async () => {
    const { replies } = await exchange([hello, frame('{"type": "request", '), frame(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))]);
    const codes = replies.filter((r) => r.ok === false).map((r) => r.error.code);
    assert.deepEqual(codes, ['bad_json', 'bad_utf8']);
    assert.ok(replies.every((r) => r.ok !== false || r.error.category === 'validation'));
  });

  test('unknown message types and methods are typed errors', async () => {
    const { replies } = await exchange([
      hello,
      frame(JSON.stringify({ type: 'exec', id: '1', cmd: 'id' })),
      frame(JSON.stringify({ type: 'request', id: '2', method: 'shell', params: { cmd: 'id' } })),
      frame(JSON.stringify([1, 2, 3])),
      frame(JSON.stringify({ type: 'request', id: '3', method: 'preview', params: 'ListUsers' })),
    ]);
    assert.deepEqual(
      replies.filter((r) => r.ok === false).map((r) => r.error.code),
      ['unknown_type', 'unknown_method', 'unknown_type', 'bad_params'],
    );
  });

  test('a 10,000-deep frame is refused without harming the daemon', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const deepObj = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const { replies } = await exchange([hello, frame(deep), frame(deepObj)]);
    const errs = replies.filter((r) => r.ok === false).map((r) => r.error);
    assert.equal(errs.length, 2);
    assert.ok(errs.every((e) => e.code === 'too_deep'));
    await stillServing();
  });

  test('deeply nested params inside a valid request are refused', async () => {
    let v: unknown = 'x';
    for (let i = 0; i < 40; i++) v = { v };
    const { replies } = await exchange([hello, frame(JSON.stringify({ type: 'request', id: 'd', method: 'preview', params: { action_name: 'ListUsers', params: v } }))]);
    assert.equal(errorOf(replies)?.category, 'validation');
  });

  test('the first message must be a hello with our protocol', async () => {
    const { replies, closed } = await exchange([frame(JSON.stringify({ type: 'request', id: '1', method: 'history' }))]);
    assert.equal(errorOf(replies)?.code, 'hello_required');
    assert.ok(closed);
    const wrong = await exchange([frame(JSON.stringify({ type: 'hello', protocol: 'lacs/9' }))]);
    assert.equal(errorOf(wrong.replies)?.code, 'hello_required');
  });

  test('a silent connection is closed after the first-frame deadline', async () => {
    const sock = net.createConnection(w.d.socket);
    const t0 = Date.now();
    const closedAfter = await new Promise<number>((resolve) => {
      sock.on('close', () => resolve(Date.now() - t0));
      sock.on('data', () => {});
      sock.on('error', () => {});
    });
    assert.ok(closedAfter >= 4500 && closedAfter < 9000, `closed after ${closedAfter} ms`);
  });

  test('one uid cannot hold more than the connection cap', async () => {
    const results = await bystander.parallel('history', { limit: 1 }, 80);
    const refused = results.filter((r) => !r.ok);
    assert.ok(refused.length >= 16, `expected refusals past the cap, got ${refused.length}`);
    assert.ok(refused.every((r) => r.error!.code === 'too_many_connections' || r.error!.code === 'connection_closed'));
    await stillServing();
  });

  test('huge but well-formed payloads (1 MiB strings) are refused as validation errors', async () => {
    const big = 'A'.repeat(900_000);
    const { replies } = await exchange([hello, frame(JSON.stringify({ type: 'request', id: 'h', method: 'preview', params: { action_name: 'UserInfo', params: { user: big } } }))], 100, 2);
    assert.equal(errorOf(replies)?.category, 'validation');
    await stillServing();
  });
});

describe('resource limits', () => {
  test('a client that pipelines thousands of requests and never reads costs bounded memory', async () => {
    const vmRss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${w.d.box.pid}/status`, 'utf8'))![1]) / 1024;
    const before = vmRss();
    const req = (i: number) => frame(JSON.stringify({ type: 'request', id: String(i), method: 'actions.list' }));
    const sock = net.createConnection(w.d.socket);
    await new Promise((r) => sock.once('connect', r));
    sock.on('error', () => {});
    sock.pause(); // never read a reply
    sock.write(hello);
    for (let i = 0; i < 3000; i++) sock.write(req(i));
    await new Promise((r) => setTimeout(r, 3000));
    const grown = vmRss() - before;
    sock.destroy();
    assert.ok(grown < 150, `daemon grew by ${grown.toFixed(0)} MiB`);
    await stillServing();
  });

  test('an answer larger than a frame is a typed error, not a crash', async () => {
    const dev = await w.as('devon', ['airlock-dev']);
    const names = (i: number) => Array.from({ length: 8 }, (_, k) => `${String.fromCharCode(97 + k)}${i}.${'x'.repeat(60)}.${'y'.repeat(60)}.${'z'.repeat(60)}.example`);
    for (let i = 0; i < 700; i++) await dev.call('preview', { action_name: 'AddHostsEntry', params: { ip: '10.0.0.1', names: names(i) } });
    await assert.rejects(dev.call('history', { limit: 1000 }), (e: { code: string }) => e.code === 'response_too_large');
    assert.equal((await dev.call('history', { limit: 5 })).length, 5);
    await stillServing();
  });
});
