/**
 * The listeners: where a connection comes from and who is at the other end. On the Unix
 * socket, identity comes from the kernel at accept time (peer credentials, and for a root
 * peer the login uid of the process behind it); a peer without an airlock role is told so and
 * disconnected. On TCP and on the token socket (where a vsock bridge forwards), identity comes
 * from the token in the hello, looked up in the root-owned token file; a missing or unknown
 * token is refused. Admission (admission.ts) bounds connections per principal and before the
 * hello; each connection's phases and limits are connection.ts; what a request may do is the
 * door's (dispatch).
 */
import net from 'node:net';
import { chmodSync, unlinkSync, existsSync, lstatSync } from 'node:fs';
import { native } from '../native/addon.js';
import { resolveIdentity, type Identity } from './identity.js';
import type { TokenTable } from './tokens.js';
import type { AirlockService } from './service.js';
import { Admission } from './admission.js';
import { Connection, IDLE_MS, type ConnectionContext, type Peer } from './connection.js';

export interface ServerOptions {
  socketPath: string;
  /** Its `dispatch` serves every request of a greeted connection (dispatch.ts); its refusal log records a bad token. */
  service: AirlockService;
  log: (msg: string) => void;
  /** A TCP listener authenticated by token (loopback or a configured address). */
  tcp?: { host: string; port: number };
  /** A Unix socket authenticated by token, for a vsock bridge (socat, systemd-socket-proxyd) to forward to. */
  tokenSocketPath?: string;
  /** The token table in force (re-read on a policy reload). */
  tokens: () => TokenTable;
  /** The idle deadline (default IDLE_MS); a request still running, a wait included, keeps its connection past it. */
  idleMs?: number;
}

export interface RunningServer {
  server: net.Server;
  /** Stops accepting and drops open connections. */
  close(): Promise<void>;
}

/** How long a stop waits for open connections to end before it drops them. */
export const CLOSE_GRACE_MS = 3_000;

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const open = new Set<net.Socket>();
  const admission = new Admission();
  const context: ConnectionContext = {
    dispatch: o.service.dispatch,
    idleMs: o.idleMs ?? IDLE_MS,
    admit: (who, sock) => admission.admit(who, sock),
    identifyToken(token) {
      const who = o.tokens().identify(token);
      if (!who) o.service.refusals.record({ principal: null, method: 'hello', category: 'authorization', code: 'bad_token', transactionId: null });
      return who;
    },
  };

  /** The Unix socket: the kernel names the peer before it says anything. */
  const unixServer = net.createServer({ allowHalfOpen: false }, (sock) => {
    let who: Identity | null;
    try {
      const fd = (sock as unknown as { _handle: { fd: number } })._handle.fd;
      const cred = native().peerCredentials(fd);
      try {
        // Only a root peer's process is looked into: who stands behind it decides what it may approve.
        who = resolveIdentity(cred, () => {
          if (cred.pidfd < 0) return null;
          try {
            return native().peerProcess(cred.pidfd);
          } catch {
            return null; // gone already: nobody can be named, so it approves nothing
          }
        });
      } finally {
        if (cred.pidfd >= 0) native().closeFd(cred.pidfd);
      }
    } catch (e) {
      o.log(`refusing a connection: cannot read peer credentials (${(e as Error).message})`);
      sock.destroy();
      return;
    }
    serve(sock, who === null ? 'no_role' : who);
  });
  /** TCP and the token socket: the hello's token names the peer. */
  const tokenServer = () =>
    net.createServer({ allowHalfOpen: false }, (sock) => {
      const conn = serve(sock, 'token');
      admission.awaitHello(sock, (err) => conn.evict(err));
    });

  function serve(sock: net.Socket, peer: Peer): Connection {
    open.add(sock);
    sock.once('close', () => open.delete(sock));
    return new Connection(sock, peer, context);
  }

  const servers: net.Server[] = [];
  const listen = (server: net.Server, target: string | { host: string; port: number }) =>
    new Promise<void>((resolve, reject) => {
      if (typeof target === 'string' && existsSync(target)) {
        if (!lstatSync(target).isSocket()) return reject(new Error(`${target} exists and is not a socket`));
        unlinkSync(target);
      }
      server.once('error', reject);
      const done = () => {
        // Access is decided per connection (peer credentials or token), so the socket itself is open to all.
        if (typeof target === 'string') chmodSync(target, 0o666);
        servers.push(server);
        resolve();
      };
      if (typeof target === 'string') server.listen(target, done);
      else server.listen(target.port, target.host, done);
    });
  const close = () => {
    const closed = Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    // A listener closes once its last connection has: an idle client would hold a stop (systemd's,
    // at a reboot) until its idle deadline. A request still running gets a moment to answer.
    const drop = setTimeout(() => {
      for (const s of open) s.destroy();
    }, CLOSE_GRACE_MS);
    return closed.then(() => clearTimeout(drop));
  };
  try {
    await listen(unixServer, o.socketPath);
    if (o.tcp) await listen(tokenServer(), o.tcp);
    if (o.tokenSocketPath) await listen(tokenServer(), o.tokenSocketPath);
  } catch (e) {
    await close();
    throw e;
  }
  if (o.tcp) o.log(`listening on tcp ${o.tcp.host}:${(servers[1]!.address() as net.AddressInfo).port} (token authentication; ${o.tokens().size} token(s))`);
  return { server: unixServer, close };
}
