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
import type { TreeHeads } from './tree-heads.js';
import { errorForClient } from './output.js';
import net from 'node:net';
import { chmodSync, unlinkSync, existsSync, lstatSync } from 'node:fs';
import { AirlockError, textOfWireValue } from '../protocol/errors.js';
import type { AuditPublicKey, ResponseMessage } from '../protocol/messages.js';
import { METHODS, type Method, type ResultOf } from '../protocol/methods.js';
import { native } from './native.js';
import { resolveIdentity, type Identity } from './identity.js';
import type { TokenTable } from './tokens.js';
import { entryPrincipal, type AirlockService } from './service.js';
import { onBehalfOf } from './run-context.js';
import { checkpointPage } from './checkpoint-page.js';
import type { NoticeSink } from './output-stream.js';
import { Admission } from './admission.js';
import { Connection, IDLE_MS, type ConnectionContext, type Peer } from './connection.js';

/**
 * One handler per method of the table (src/protocol/methods.ts), answering with the type it
 * declares: a method served and not in the table, or one in the table and not served, does not
 * compile. Parameters arrive as sent; each handler checks them. `signal` aborts when the
 * connection that asked closes (a wait lets go of what it holds then).
 */
type Handlers = { [M in Method]: (who: Identity, params: Record<string, unknown>, signal: AbortSignal, notice: NoticeSink) => Promise<ResultOf<M>> };

export interface ServerOptions {
  socketPath: string;
  service: AirlockService;
  /** Signs tree heads and builds proofs for `audit.tree_head`, `audit.prove`, `audit.consistency`. */
  treeHeads: TreeHeads;
  /** The current audit public key, the key history and the log id (they change when the key rotates). */
  publicKey: () => AuditPublicKey;
  /** The checkpoint file that `audit.checkpoints` serves. */
  checkpointPath: string;
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

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const handlers: Handlers = {
    'actions.list': async (who) => o.service.listActions(who),
    'actions.describe': async (who, p) => o.service.describe(who, p.action_name),
    preview: (who, p) => o.service.preview(who, p),
    'transaction.get': (who, p) => o.service.transaction(who, p),
    approve: (who, p) => o.service.approve(who, p),
    'totp.enroll': (who, p) => o.service.totpEnroll(who, p),
    'totp.confirm': (who, p) => o.service.totpConfirm(who, p),
    'totp.reset': (who, p) => o.service.totpReset(who, p),
    'totp.approve': (who, p) => o.service.totpApprove(who, p),
    'policy.show': async () => o.service.showPolicy(),
    'policy.reload': (who, p) => o.service.reloadPolicy(who, p),
    inbox: (who) => o.service.inbox(who),
    execute: (who, p, _signal, notice) => o.service.execute(who, p, notice),
    cancel: (who, p) => o.service.cancel(who, p),
    history: (who, p) => o.service.history(who, p),
    'audit.pubkey': async () => o.publicKey(),
    'transaction.wait': (who, p, signal) => o.service.wait(who, p, signal),
    deny: (who, p) => o.service.deny(who, p),
    'audit.entries': (who, p) => o.service.auditEntries(who, p),
    'audit.checkpoints': async (_who, p) => checkpointPage(o.checkpointPath, p),
    'store.check': () => o.service.storeCheck(),
    'audit.tree_head': (_who, p) => o.treeHeads.head(p),
    'audit.prove': (_who, p) => o.treeHeads.prove(p),
    'audit.consistency': (_who, p) => o.treeHeads.consistency(p),
    'keys.rotate': (who, p) => o.service.rotateKey(who, p),
  };
  const open = new Set<net.Socket>();
  const admission = new Admission();
  const context: ConnectionContext = {
    dispatch,
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

  async function dispatch(who: Identity, msg: unknown, signal: AbortSignal, notices: (id: string) => NoticeSink): Promise<ResponseMessage> {
    const m = msg as { type?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = typeof m?.id === 'string' && m.id.length <= 64 ? m.id : null;
    try {
      if (m === null || typeof m !== 'object' || Array.isArray(m) || m.type !== 'request') {
        throw new AirlockError('validation', 'unknown_type', 'expected a message of type "request"');
      }
      if (id === null) throw new AirlockError('validation', 'bad_id', 'request id must be a string of at most 64 characters');
      if (typeof m.method !== 'string' || !(METHODS as readonly string[]).includes(m.method)) {
        throw new AirlockError('validation', 'unknown_method', `unknown method ${JSON.stringify(textOfWireValue(m.method, 40))}; known: ${METHODS.join(', ')}`);
      }
      const params = m.params ?? {};
      if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new AirlockError('validation', 'bad_params', 'params must be an object');
      o.service.authorize(who, m.method as Method);
      // Programs this request runs count against its principal's share of the process slots.
      const result = await onBehalfOf(String(who.uid), () => handlers[m.method as Method](who, params as Record<string, unknown>, signal, notices(id)));
      return { type: 'response', id, ok: true, result };
    } catch (e) {
      if (e instanceof AirlockError) {
        // Refusals of who may do what, and of stale or forged approvals, go into the signed log (coalesced).
        if (e.category === 'authorization' || e.category === 'stale_approval') {
          const tx = (m.params as { transaction_id?: unknown } | undefined)?.transaction_id;
          o.service.refusals.record({ principal: entryPrincipal(who), method: textOfWireValue(m.method, 40), category: e.category, code: e.code, transactionId: typeof tx === 'string' && /^tx_[0-9a-f]{24}$/.test(tx) ? tx : null });
        }
        return { type: 'response', id, ok: false, error: await errorForClient(e, String(who.uid)) };
      }
      // A write refused for want of space: typed, and the store kept nothing of it (disk-space.ts).
      const full = o.service.writeFailed(e);
      if (full) return { type: 'response', id, ok: false, error: await errorForClient(full, String(who.uid)) };
      // Anything unexpected fails closed with no internals leaked to the client.
      o.log(`internal error on ${textOfWireValue(m?.method, 40)}: ${(e as Error).stack ?? e}`);
      return { type: 'response', id, ok: false, error: { category: 'integrity', code: 'internal', message: 'the daemon hit an internal error and changed nothing further; see its log' } };
    }
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
  const close = () =>
    Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => {
      for (const s of open) s.destroy();
    });
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
