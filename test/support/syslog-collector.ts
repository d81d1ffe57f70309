/**
 * A syslog collector for tests: a real TCP or TLS server on 127.0.0.1 that keeps every
 * byte it receives, and reads them back as RFC 6587 octet-counted frames. It can stop
 * (dropping its connections) and start again on the same port, as a collector restarting.
 */
import { createServer as netServer, type Server, type Socket } from 'node:net';
import { createServer as tlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';

export class Collector {
  bytes = Buffer.alloc(0);
  port = 0;
  private server: Server | null = null;
  private sockets = new Set<Socket>();

  constructor(private readonly tls?: { key: Buffer; cert: Buffer }) {}

  async start(): Promise<void> {
    const onConn = (s: Socket) => {
      this.sockets.add(s);
      s.on('data', (d: Buffer) => (this.bytes = Buffer.concat([this.bytes, d])));
      s.on('error', () => {});
      s.on('close', () => this.sockets.delete(s));
    };
    const server = this.tls ? tlsServer({ key: this.tls.key, cert: this.tls.cert }, onConn) : netServer(onConn);
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server = null;
  }

  /** The frames received so far; throws on bytes that are not octet-counted frames. */
  frames(): string[] {
    const out: string[] = [];
    let at = 0;
    while (at < this.bytes.length) {
      const sp = this.bytes.indexOf(0x20, at);
      if (sp < 0) break;
      const len = this.bytes.subarray(at, sp).toString('ascii');
      if (!/^[1-9][0-9]{0,5}$/.test(len)) throw new Error(`not an octet count: ${JSON.stringify(len)}`);
      const end = sp + 1 + Number(len);
      if (end > this.bytes.length) break; // a frame still arriving
      out.push(this.bytes.subarray(sp + 1, end).toString('utf8'));
      at = end;
    }
    return out;
  }

  async waitFrames(n: number, timeoutMs = 10_000): Promise<string[]> {
    const until = Date.now() + timeoutMs;
    while (this.frames().length < n) {
      if (Date.now() > until) throw new Error(`collector got ${this.frames().length} frame(s), not ${n}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.frames();
  }
}
