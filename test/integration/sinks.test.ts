/**
 * The sinks tree heads leave the host through, against real servers: a TCP and a TLS
 * syslog collector (node:net / node:tls, certificates made by openssl here), PostgreSQL
 * on 127.0.0.1, the append-only file; and the publisher that feeds them independently.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Collector } from '../support/syslog-collector.js';
import { SyslogSink } from '../../src/daemon/sinks/syslog.js';
import { octetCounted, syslogMessage } from '../../src/daemon/sinks/syslog-message.js';
import { FileSink } from '../../src/daemon/sinks/file.js';
import { PostgresSink } from '../../src/daemon/sinks/postgres.js';
import { TreeHeadPublisher } from '../../src/daemon/sinks/publisher.js';
import type { Sink, TreeHead } from '../../src/daemon/sinks/sink.js';
import { checkpointLineSize } from '../../src/audit/checkpoint-size.js';
import { checkpointOrigin, formatCheckpointLine, signCheckpoint } from '../../src/audit/checkpoint.js';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { signTreeHead, treeHeadLine } from '../../src/audit/note.js';

const ORIGIN = 'web1.example/airlock/0123456789abcdef';
const AT = new Date('2026-03-01T12:00:00.000Z');
/** A stand-in for a signed head: the sinks treat it as opaque bytes. */
function head(size: number): TreeHead {
  const root = createHash('sha256').update(`root ${size}`).digest();
  const note = `${ORIGIN}\n${size}\n${root.toString('base64')}\n\n\u2014 ${ORIGIN} ${Buffer.alloc(68, size).toString('base64')}\n`;
  return { size, root: root.toString('hex'), note, line: `airlock-tree-head ${Buffer.from(note).toString('base64')}` };
}
const message = (h: TreeHead) => syslogMessage({ time: AT, hostname: 'web1', procId: 4242, msg: h.line });
const until = async (what: string, ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
const logs: string[] = [];
const log = (m: string) => logs.push(m);
const tcpSink = (port: number, extra: Partial<ConstructorParameters<typeof SyslogSink>[0]> = {}) =>
  new SyslogSink({ target: { protocol: 'tcp', host: '127.0.0.1', port }, hostname: 'web1', procId: 4242, now: () => AT, backoffMinMs: 20, backoffMaxMs: 100, log, ...extra });

describe('RFC 5424 messages, octet-counted', () => {
  test('PRI <37> (auth.notice), version 1, APP-NAME airlock, MSGID tree-head, no structured data, the line as MSG', () => {
    const m = syslogMessage({ time: AT, hostname: 'web1', procId: 4242, msg: 'airlock-tree-head QUJD' });
    assert.equal(m, '<37>1 2026-03-01T12:00:00.000Z web1 airlock 4242 tree-head - airlock-tree-head QUJD');
    // Counted by hand: 83 octets.
    assert.equal(octetCounted(m).toString('latin1'), `83 ${m}`);
    // A host name with a space or non-ASCII is the NILVALUE, not a broken header.
    assert.match(syslogMessage({ time: AT, hostname: 'web 1', procId: 1, msg: 'x' }), /^<37>1 \S+ - airlock 1 tree-head - x$/);
    assert.match(syslogMessage({ time: AT, hostname: 'hôte', procId: 1, msg: 'x' }), /Z - airlock/);
    assert.throws(() => syslogMessage({ time: AT, hostname: 'h', procId: 1, msg: 'a\nb' }), RangeError);
  });
});

describe('syslog over TCP', () => {
  test('the collector receives each head as one framed message, byte for byte', async () => {
    const c = new Collector();
    await c.start();
    const sink = tcpSink(c.port);
    try {
      for (const n of [1, 2, 3]) await sink.publish(head(n));
      await c.waitFrames(3);
      const expected = Buffer.concat([1, 2, 3].map((n) => octetCounted(message(head(n)))));
      assert.deepEqual(c.bytes, expected);
    } finally {
      await sink.close();
      await c.stop();
    }
  });

  test('collector down then up: the oldest heads are dropped and counted, the newest arrive', async () => {
    const c = new Collector();
    await c.start();
    const sink = tcpSink(c.port, { queueMax: 3 });
    try {
      await sink.publish(head(1));
      await sink.publish(head(2));
      await c.waitFrames(2);
      await c.stop();
      await until('the sink to see the collector gone', () => !sink.stats().connected);
      for (const n of [3, 4, 5, 6, 7]) await sink.publish(head(n));
      assert.deepEqual(sink.stats(), { queued: 3, dropped: 2, connected: false }, 'the queue holds its bound');
      c.bytes = Buffer.alloc(0);
      await c.start();
      await c.waitFrames(3);
      await sink.flush(2_000);
      // Lost: exactly the two counted ones (3 and 4); received: the newest, in order.
      assert.deepEqual(c.frames(), [5, 6, 7].map((n) => message(head(n))));
      assert.ok(logs.some((l) => l.startsWith(`checkpoint sink syslog tcp://127.0.0.1:${c.port}:`)), 'the failure is logged with the sink name');
    } finally {
      await sink.close();
      await c.stop();
    }
  });

  test('a head written just before the collector went away is sent again on reconnect', async () => {
    const c = new Collector();
    await c.start();
    const sink = tcpSink(c.port);
    try {
      await sink.publish(head(9));
      await c.waitFrames(1);
      await c.stop();
      c.bytes = Buffer.alloc(0);
      await c.start();
      // Nothing new was published: the sink reconnects by itself and repeats the newest head.
      assert.deepEqual(await c.waitFrames(1), [message(head(9))]);
    } finally {
      await sink.close();
      await c.stop();
    }
  });

  test('publish never waits for an unreachable collector, and the queue stays bounded', async () => {
    const c = new Collector();
    await c.start();
    const port = c.port;
    await c.stop(); // nothing listens there now
    const sink = tcpSink(port, { queueMax: 10 });
    try {
      const t0 = Date.now();
      for (let n = 1; n <= 1000; n++) await sink.publish(head(n));
      assert.ok(Date.now() - t0 < 2_000);
      const s = sink.stats();
      assert.equal(s.queued, 10);
      assert.equal(s.dropped, 990);
    } finally {
      await sink.close();
    }
  });
});

describe('syslog over TLS', () => {
  let dir = '';
  const pem = (f: string) => readFileSync(join(dir, f));
  const ossl = (...args: string[]) => execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-tls-'));
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    ossl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=airlock test CA');
    const issue = (name: string, san: string) => {
      writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\n`);
      ossl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
      ossl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
    };
    issue('good', 'DNS:syslog.test,IP:127.0.0.1');
    issue('othername', 'DNS:other.test');
    // Same names, not from the CA: what someone in the path would present.
    ossl('req', '-x509', ...ec, '-keyout', 'rogue.key', '-out', 'rogue.pem', '-days', '2', '-subj', '/CN=syslog.test', '-addext', 'subjectAltName=DNS:syslog.test,IP:127.0.0.1');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const tlsSink = (port: number, extra: Partial<ConstructorParameters<typeof SyslogSink>[0]> = {}) => tcpSink(port, { target: { protocol: 'tls', host: '127.0.0.1', port }, caFile: join(dir, 'ca.pem'), ...extra });

  test('a collector with a certificate from the CA receives the framed messages byte for byte (by IP, and by name)', async () => {
    const c = new Collector({ key: pem('good.key'), cert: pem('good.pem') });
    await c.start();
    const byIp = tlsSink(c.port);
    const byName = tlsSink(c.port, { servername: 'syslog.test' });
    try {
      await byIp.publish(head(1));
      await c.waitFrames(1);
      await byName.publish(head(2));
      await c.waitFrames(2);
      assert.deepEqual(c.bytes, Buffer.concat([octetCounted(message(head(1))), octetCounted(message(head(2)))]));
    } finally {
      await byIp.close();
      await byName.close();
      await c.stop();
    }
  });

  for (const [what, key, cert, extra] of [
    ['a self-signed certificate with the right names', 'rogue.key', 'rogue.pem', {}],
    ["the CA's certificate for another name", 'othername.key', 'othername.pem', {}],
    ['a good certificate when another name is required', 'good.key', 'good.pem', { servername: 'elsewhere.test' }],
  ] as const) {
    test(`refused: ${what}; nothing is sent, the heads stay queued, the reason is logged`, async () => {
      const c = new Collector({ key: pem(key), cert: pem(cert) });
      await c.start();
      const sink = tlsSink(c.port, extra);
      const before = logs.length;
      try {
        await sink.publish(head(1));
        await until('a logged refusal', () => logs.slice(before).some((l) => l.includes(sink.name)));
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(c.bytes.length, 0, 'not one byte of the head reached an unverified server');
        assert.equal(sink.stats().queued, 1);
        assert.match(logs.slice(before).join('\n'), /certificate|self.signed|altnames|Hostname/i);
      } finally {
        await sink.close();
        await c.stop();
      }
    });
  }

  test('a CA file goes with tls:// only, and must exist', () => {
    assert.throws(() => tcpSink(1, { caFile: join(dir, 'ca.pem') }), /tls/);
    assert.throws(() => tlsSink(1, { caFile: join(dir, 'missing.pem') }), /ENOENT/);
  });
});

describe('the append-only file', () => {
  test('one line per head (the legacy checkpoint line first), 0644, a symbolic link in its place refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-file-'));
    try {
      const path = join(dir, 'checkpoints.log');
      const sink = new FileSink(path);
      if (await sink.appendOnly) {
        // Where the filesystem keeps the attribute, even root cannot truncate or rewrite the file.
        assert.throws(() => writeFileSync(path, 'rewritten'), /EPERM/);
        execFileSync('/usr/bin/chattr', ['-a', '--', path]); // so the test can put a link in its place
      }
      await sink.publish(head(1));
      await sink.publish({ ...head(2), legacy: 'airlock-checkpoint x 2 y z sig' });
      assert.equal(readFileSync(path, 'utf8'), `${head(1).line}\n` + `airlock-checkpoint x 2 y z sig\n${head(2).line}\n`);
      assert.equal(statSync(path).mode & 0o777, 0o644);
      unlinkSync(path);
      writeFileSync(join(dir, 'elsewhere'), '');
      symlinkSync(join(dir, 'elsewhere'), path);
      await assert.rejects(sink.publish(head(3)), /ELOOP/);
      assert.equal(readFileSync(join(dir, 'elsewhere'), 'utf8'), '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the append-only file, trimmed after an archival', () => {
  test('it keeps the new base head first, then every line of a later size or none it can read; the rest is gone; appends go on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-file-'));
    try {
      const path = join(dir, 'checkpoints.log');
      const sink = new FileSink(path);
      const key = signingKeyFromSeed(Buffer.alloc(32, 9));
      const origin = checkpointOrigin('web1.example', key.keyId);
      const real = (size: number) => treeHeadLine(signTreeHead(key, origin, size, createHash('sha256').update(String(size)).digest(), AT));
      const legacy = (size: number) => formatCheckpointLine(signCheckpoint(key, origin, size, 'ab'.repeat(32), AT));
      await sink.append([legacy(5), real(5), 'a line of no size', real(9), legacy(12), real(12)]);
      // Appends asked for while the trim runs wait their turn: none is lost.
      const [trim] = await Promise.all([sink.trimThrough(9, [real(9)]), sink.append([real(13)])]);
      assert.deepEqual(trim, { kept: 4, dropped: 3 }); // the append asked for after it runs after it
      assert.equal(readFileSync(path, 'utf8'), [real(9), 'a line of no size', legacy(12), real(12), real(13)].map((l) => `${l}\n`).join(''));
      assert.equal(statSync(path).mode & 0o777, 0o644);
      assert.deepEqual(readFileSync(path, 'utf8').trim().split('\n').map(checkpointLineSize), [9, null, 12, 12, 13]);
      if (await sink.appendOnly) assert.throws(() => writeFileSync(path, 'rewritten'), /EPERM/, 'append-only again after the trim');
    } finally {
      try {
        execFileSync('/usr/bin/chattr', ['-a', '--', join(dir, 'checkpoints.log')], { stdio: 'ignore' });
      } catch {
        // not append-only, or already gone
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('PostgreSQL on another server', () => {
  const URL = 'postgres://root@127.0.0.1:5432/test';
  const schema = `airlock_sinks_${process.pid}_${Date.now()}`;
  const role = `airlock_sink_${process.pid}`;
  let admin: pg.Client;
  before(async () => {
    admin = new pg.Client({ connectionString: URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  after(async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  test('creates the table when absent, writes one row per head, and a head sent twice is one row', async () => {
    const sink = new PostgresSink({ url: URL, origin: ORIGIN, schema });
    try {
      for (const n of [1, 2, 2, 3]) await sink.publish(head(n));
      const r = await admin.query(`SELECT origin, size::int AS size, root, note FROM ${schema}.airlock_tree_heads ORDER BY size`);
      assert.deepEqual(r.rows, [1, 2, 3].map((n) => ({ origin: ORIGIN, size: n, root: head(n).root, note: head(n).note })));
      // A fork (same size, another root) is a second row, there for anyone to see.
      await sink.publish({ ...head(3), root: 'f'.repeat(64) });
      assert.equal((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.airlock_tree_heads WHERE size = 3`)).rows[0].n, 2);
    } finally {
      await sink.close();
    }
  });

  test('a role with INSERT and SELECT only (the documented grant) is enough, and cannot rewrite a row', async () => {
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin.query(`GRANT INSERT, SELECT ON ${schema}.airlock_tree_heads TO ${role}`);
    const url = `postgres://${role}@127.0.0.1:5432/test`;
    const sink = new PostgresSink({ url, origin: 'db2/airlock/00000000000000aa', schema });
    try {
      await sink.publish(head(7));
      await sink.publish(head(7));
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await assert.rejects(c.query(`DELETE FROM ${schema}.airlock_tree_heads`), /permission denied/);
        await assert.rejects(c.query(`UPDATE ${schema}.airlock_tree_heads SET root = 'x'`), /permission denied/);
      } finally {
        await c.end();
      }
    } finally {
      await sink.close();
    }
    assert.equal((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.airlock_tree_heads WHERE origin = 'db2/airlock/00000000000000aa'`)).rows[0].n, 1);
  });

  test('a lost connection fails one publish at most, and the next one reconnects by itself', async () => {
    const sink = new PostgresSink({ url: URL, origin: 'lost/airlock/00000000000000bb', schema });
    try {
      await sink.publish(head(1));
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'airlock-tree-heads' AND pid <> pg_backend_pid()`);
      await sink.publish(head(2)).catch(() => {}); // the pool may find its connection dead now
      await sink.publish(head(3));
      const r = await admin.query(`SELECT size::int AS size FROM ${schema}.airlock_tree_heads WHERE origin = 'lost/airlock/00000000000000bb' ORDER BY size`);
      assert.ok(r.rows.map((x) => x.size).includes(3));
    } finally {
      await sink.close();
    }
  });

  test('an unreachable server fails the publish with a reason, within the connect timeout', async () => {
    const sink = new PostgresSink({ url: 'postgres://root@127.0.0.1:1/test', origin: ORIGIN, schema, connectTimeoutMs: 1_000 });
    try {
      await assert.rejects(sink.publish(head(1)), /ECONNREFUSED|connect/);
    } finally {
      await sink.close();
    }
  });
});

describe('the publisher', () => {
  /** A sink that keeps what it is given, optionally failing or hanging. */
  class Recorder implements Sink {
    got: number[] = [];
    constructor(
      readonly name: string,
      private readonly mode: 'ok' | 'fail' | 'hang' = 'ok',
    ) {}
    async publish(h: TreeHead): Promise<void> {
      if (this.mode === 'fail') throw new Error('collector on fire\u0007\nsecond line');
      if (this.mode === 'hang') return new Promise(() => {});
      this.got.push(h.size);
    }
    async close(): Promise<void> {}
  }
  const sign = (h: { size: number }) => head(h.size);

  test('a failing sink and a hanging one never keep heads from the others; failures are logged by name, rate-limited, on one line', async () => {
    const good = new Recorder('good');
    const bad = new Recorder('bad', 'fail');
    const stuck = new Recorder('stuck', 'hang');
    const lines: string[] = [];
    const p = new TreeHeadPublisher({ sign, sinks: [bad, stuck, good], coalesceMs: 0, scheduleMs: 0, log: (m) => lines.push(m), laneQueueMax: 5, backoffMinMs: 5, backoffMaxMs: 10 });
    for (let n = 1; n <= 50; n++) {
      p.note({ size: n });
      await new Promise((r) => setImmediate(r));
    }
    await until('the good sink to have the newest head', () => good.got.at(-1) === 50);
    assert.deepEqual(good.got, Array.from({ length: 50 }, (_, i) => i + 1));
    const bads = lines.filter((l) => l.startsWith('checkpoint sink bad: '));
    assert.equal(bads.length, 1, 'one line per minute, not one per failure');
    assert.doesNotMatch(bads[0]!, /[\n\u0007]/);
    const stats = Object.fromEntries(p.stats().map((s) => [s.name, s]));
    assert.ok(stats.stuck!.queued <= 5 && stats.stuck!.dropped >= 44, JSON.stringify(stats.stuck));
    assert.ok(stats.bad!.queued <= 5);
    await p.stop(200);
  });

  test('coalesced: a burst of urgent entries is one head; other entries wait for the schedule; flush signs the last', async () => {
    const r = new Recorder('r');
    let signed = 0;
    const p = new TreeHeadPublisher({ sign: (h: { size: number }) => (signed++, head(h.size)), sinks: [r], coalesceMs: 50, scheduleMs: 300, log });
    for (let n = 1; n <= 20; n++) p.note({ size: n }, ['approval_granted']);
    await until('one head', () => r.got.length === 1);
    assert.deepEqual(r.got, [20]);
    p.note({ size: 21 }, ['preview']);
    await new Promise((res) => setTimeout(res, 100));
    assert.deepEqual(r.got, [20], 'a preview alone waits for the schedule');
    await until('the scheduled head', () => r.got.length === 2, 2_000);
    assert.deepEqual(r.got, [20, 21]);
    p.note({ size: 22 }, ['preview']);
    await p.stop();
    assert.deepEqual(r.got, [20, 21, 22]);
    assert.equal(signed, 3);
  });

  test('a signing failure is logged and never thrown into the store', () => {
    const lines: string[] = [];
    const p = new TreeHeadPublisher({ sign: () => { throw new Error('no key'); }, sinks: [], coalesceMs: 0, scheduleMs: 0, log: (m) => lines.push(m) });
    p.note({ size: 1 }, ['outcome']);
    assert.match(lines[0]!, /cannot sign a tree head of size 1: no key/);
  });

  test('two sinks with one name are a configuration error', () => {
    assert.throws(() => new TreeHeadPublisher({ sign, sinks: [new Recorder('x'), new Recorder('x')], coalesceMs: 0, scheduleMs: 0, log }), /two checkpoint sinks/);
  });
});
