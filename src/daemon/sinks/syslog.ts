/**
 * Tree heads to a remote syslog collector: RFC 5424 messages over TCP (RFC 6587 octet
 * counting) or TLS (RFC 5425; the server's certificate is always verified, against the
 * given CA file or the system's, for the host name in the URL). Another machine's log is
 * out of reach of someone who takes this host: a head it holds pins the log's size.
 *
 * publish() only queues: the collector may be down, and the daemon never waits for it.
 * The queue is bounded (1000 heads by default); while the collector is unreachable the
 * oldest heads are dropped and counted, which loses no evidence since the newest head
 * covers them all. The sink reconnects with exponential backoff, and after a reconnect it
 * sends the last head it wrote before, since TCP syslog has no acknowledgement (RFC 6587
 * section 4) and the bytes written just as the old connection died may never have
 * arrived: so the collector always ends up holding the newest head. That copy may
 * arrive twice; a duplicate head is harmless. (Only when the connection died within
 * RESEND_WINDOW_MS of that write: a collector that closes idle connections had the time
 * to read it, and gets no copy per reconnect.)
 */
import { drained } from './drained.js';
import { Socket, connect as tcpConnect, isIP } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { readFileSync } from 'node:fs';
import { BoundedQueue } from './bounded-queue.js';
import { FailureLog } from './rate-limit.js';
import { printable, type Sink, type TreeHead } from './sink.js';
import { octetCounted, syslogMessage } from './syslog-message.js';

export interface SyslogTarget {
  protocol: 'tcp' | 'tls';
  host: string;
  port: number;
}

export interface SyslogSinkOptions {
  target: SyslogTarget;
  /** PEM file of the CA(s) that sign the collector's certificate (TLS; default: the system's CAs). */
  caFile?: string;
  /** The name the certificate must carry (default: the URL's host). */
  servername?: string;
  /** This host's name in the messages (RFC 5424 HOSTNAME). */
  hostname: string;
  procId?: number;
  /** Heads kept while the collector is unreachable (default 1000). */
  queueMax?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  connectTimeoutMs?: number;
  now?: () => Date;
  log: (msg: string) => void;
}

/** Bytes handed to the socket and not yet flushed, past which the sink stops writing until 'drain'. */
const SOCKET_HIGH_WATER = 256 * 1024;
/** A connection that dies this soon after a write may have lost it: the last head is sent again. */
const RESEND_WINDOW_MS = 10_000;

export class SyslogSink implements Sink {
  readonly name: string;
  private readonly queue: BoundedQueue<Buffer>;
  private readonly failures: FailureLog;
  private readonly ca: Buffer | undefined;
  private socket: Socket | null = null;
  private state: 'idle' | 'connecting' | 'connected' | 'waiting' = 'idle';
  private inflight: Buffer[] = [];
  private lastWritten: Buffer | null = null;
  private lastWriteAt = -Infinity;
  private resend = false;
  private backoff: number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private waiters: Array<() => void> = [];

  constructor(private readonly o: SyslogSinkOptions) {
    this.name = `syslog ${o.target.protocol}://${o.target.host}:${o.target.port}`;
    this.queue = new BoundedQueue(o.queueMax ?? 1000);
    this.failures = new FailureLog(this.name, o.log);
    this.backoff = o.backoffMinMs ?? 500;
    if (o.caFile && o.target.protocol !== 'tls') throw new RangeError('a syslog CA file goes with a tls:// collector');
    // Read at start: a CA file that is missing is a configuration error the operator sees now.
    this.ca = o.caFile ? readFileSync(o.caFile) : undefined;
  }

  /** For tests and status: heads waiting, heads dropped since start, whether a connection is up. */
  stats(): { queued: number; dropped: number; connected: boolean } {
    return { queued: this.queue.length + this.inflight.length, dropped: this.queue.dropped, connected: this.state === 'connected' };
  }

  async publish(head: TreeHead): Promise<void> {
    if (this.closed) throw new Error('the syslog sink is closed');
    const msg = syslogMessage({ time: (this.o.now ?? (() => new Date()))(), hostname: this.o.hostname, procId: this.o.procId ?? process.pid, msg: head.line });
    this.queue.push(octetCounted(msg));
    this.pump();
  }

  /** Resolves when everything queued has been written to the socket, or after timeoutMs. */
  flush(timeoutMs: number): Promise<void> {
    if (this.queue.length === 0 && this.inflight.length === 0) return Promise.resolve();
    return drained(this.waiters, timeoutMs);
  }

  async close(): Promise<void> {
    await this.flush(2_000);
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const s = this.socket;
    if (s && !s.destroyed) await new Promise<void>((r) => { s.end(() => r()); setTimeout(r, 1_000).unref(); });
    s?.destroy();
  }

  private pump(): void {
    if (this.closed) return;
    if (this.state === 'idle') this.connect();
    else if (this.state === 'connected') this.write();
  }

  private connect(): void {
    const { protocol, host, port } = this.o.target;
    this.state = 'connecting';
    const s: Socket =
      protocol === 'tls'
        ? tlsConnect({
            host,
            port,
            ...(this.ca ? { ca: this.ca } : {}),
            // An IP address is checked against the certificate's IP entries; SNI carries names only.
            ...(isIP(this.o.servername ?? host) ? {} : { servername: this.o.servername ?? host }),
            ...(this.o.servername ? { checkServerIdentity: checkAs(this.o.servername) } : {}),
            rejectUnauthorized: true,
            minVersion: 'TLSv1.2',
          })
        : tcpConnect({ host, port });
    this.socket = s;
    const timeout = setTimeout(() => s.destroy(new Error(`no connection within ${this.o.connectTimeoutMs ?? 10_000} ms`)), this.o.connectTimeoutMs ?? 10_000);
    let lastError = '';
    s.once(protocol === 'tls' ? 'secureConnect' : 'connect', () => {
      clearTimeout(timeout);
      this.state = 'connected';
      this.backoff = this.o.backoffMinMs ?? 500;
      this.failures.ok();
      // See the header: what was written to the connection before may not have arrived.
      if (this.resend && this.lastWritten && this.queue.length === 0) this.queue.unshift(this.lastWritten);
      this.resend = false;
      this.write();
    });
    // A collector has nothing to say to us: whatever it sends is read and discarded, never buffered.
    s.on('data', () => {});
    s.on('drain', () => this.write());
    s.on('error', (e) => (lastError = printable(e.message)));
    s.once('close', () => {
      clearTimeout(timeout);
      this.down(lastError || 'the collector closed the connection');
    });
  }

  private write(): void {
    const s = this.socket;
    while (s && this.state === 'connected' && this.queue.length > 0 && s.writableLength < SOCKET_HIGH_WATER) {
      const frame = this.queue.shift()!;
      this.inflight.push(frame);
      s.write(frame, (err) => {
        if (err) return; // the 'close' handler puts it back
        const i = this.inflight.indexOf(frame);
        if (i >= 0) this.inflight.splice(i, 1);
        this.lastWritten = frame;
        this.lastWriteAt = Date.now();
        this.settle();
      });
    }
  }

  private settle(): void {
    if (this.queue.length === 0 && this.inflight.length === 0) for (const w of [...this.waiters]) w();
  }

  private down(why: string): void {
    this.socket = null;
    // Frames not yet flushed go back to the front, in order, within the bound.
    if (this.inflight.length) this.queue.unshift(...this.inflight);
    this.inflight = [];
    this.resend ||= Date.now() - this.lastWriteAt < RESEND_WINDOW_MS;
    if (this.closed) {
      this.state = 'idle';
      return;
    }
    this.state = 'waiting';
    this.failures.fail(`${why}; retrying in ${this.backoff} ms (${this.queue.length} head(s) queued, ${this.queue.dropped} dropped so far)`);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.state = 'idle';
      if (this.queue.length > 0 || this.resend) this.pump();
    }, this.backoff);
    this.backoff = Math.min(this.backoff * 2, this.o.backoffMaxMs ?? 60_000);
  }
}

/** Certificate identity checked against a configured name instead of the host connected to. */
const checkAs = (name: string) => (_host: string, cert: PeerCertificate) => checkServerIdentity(name, cert);
