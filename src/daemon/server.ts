/**
 * The listeners. On the Unix socket, identity comes from the kernel at accept time;
 * a peer without an airlock role is told so and disconnected. On TCP and on the token
 * socket (where a vsock bridge forwards), identity comes from the token in the hello,
 * looked up in the root-owned token file; a missing or unknown token is refused. Each connection must say
 * hello within FIRST_FRAME_MS in a frame of at most MAX_HELLO_FRAME bytes, is dropped after IDLE_MS of
 * silence or when a frame it began is not whole within FRAME_MS, and a uid may hold at most
 * MAX_CONN_PER_UID connections; token-listener connections that have not said hello yet are at most
 * MAX_UNAUTHENTICATED together. A bad frame length closes the connection (the stream can no longer be
 * framed); a bad body gets a typed error. Requests of one connection are taken one per turn of the
 * event loop, and only while it has room (MAX_IN_FLIGHT running, MAX_UNSENT_BYTES of replies unsent),
 * so one client cannot stall the others or grow the daemon. Besides responses, a connection gets the
 * output notices of its running executes (output-stream.ts), only while less than
 * MAX_UNSENT_NOTICE_BYTES of its frames wait unsent.
 */
import { errorForClient } from './output.js';
import { BASE_DEADLINE_MS } from '../mask/pool.js';
import net from 'node:net';
import { chmodSync, unlinkSync, existsSync, lstatSync } from 'node:fs';
import { AirlockError } from '../protocol/errors.js';
import { decodeBody, encodeFrame, FrameReader, MAX_FRAME } from '../protocol/framing.js';
import { PROTOCOL, SERVER_NAME, type OutputNotice, type ResponseMessage, type WelcomeMessage } from '../protocol/messages.js';
import { METHODS } from '../protocol/methods.js';
import { ROLE_GROUPS } from '../protocol/risk.js';
import { native } from './native.js';
import { principalName, resolveIdentity, type Identity } from './identity.js';
import type { TokenTable } from './tokens.js';
import type { AirlockService } from './service.js';
import { MAX_OUTPUT_LINES } from './output.js';
import type { NoticeSink } from './output-stream.js';

/** The hello must arrive within this: a client sends it as soon as it connects. */
export const FIRST_FRAME_MS = 5_000;
export const IDLE_MS = 120_000;
/**
 * Once a frame's first byte arrived, the rest must follow within this, or the connection is
 * dropped: a client trickling a byte a second would otherwise hold it (and a partial frame of
 * up to MAX_FRAME) forever, since every byte resets the idle deadline. A whole 1 MiB frame
 * needs 10 s only below about 1 Mbit/s.
 */
export const FRAME_MS = 10_000;
/**
 * The largest frame accepted before the hello. A hello is about a hundred bytes (a token is 47
 * characters); 4 KiB leaves room for a long client name, and an unauthenticated peer can make
 * the daemon hold no more than that.
 */
export const MAX_HELLO_FRAME = 4 * 1024;
/**
 * Connections on the token listeners (TCP, token socket) that have not said hello yet, all
 * together: nobody is known yet, so no per-principal cap applies. Past it the oldest is dropped,
 * so a flood of silent connections costs at most this many sockets (each holding at most
 * MAX_HELLO_FRAME for at most FIRST_FRAME_MS), and a client that says hello at once still gets in.
 * Unix-socket peers are named by the kernel at accept and count against their uid instead.
 */
export const MAX_UNAUTHENTICATED = 64;
export const MAX_CONN_PER_UID = 64;
/**
 * Requests one connection may have running at once; further frames wait undecoded in the frame
 * reader, and the socket is not read while one waits, so the rest stay in the kernel's buffer.
 */
export const MAX_IN_FLIGHT = 8;
/**
 * Replies buffered for a client that does not read: no request of that connection is started
 * while more than this waits unsent (checked before each one), and its socket is not read. Four
 * full-size frames; a running request may add one reply more each (MAX_IN_FLIGHT of them).
 */
export const MAX_UNSENT_BYTES = 4 * 1024 * 1024;
/**
 * Output notices (output-stream.ts) are sent only while less than this waits unsent on the
 * connection; past it a notice is dropped (and counted in the next one), so a client that does
 * not read never makes the daemon buffer output, and the executor never waits for it.
 */
export const MAX_UNSENT_NOTICE_BYTES = 64 * 1024;
export const VERSION = '0.1.0';

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

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const idleMs = o.idleMs ?? IDLE_MS;
  const perUid = new Map<number, number>();
  const open = new Set<net.Socket>();

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
  /** Token-listener connections not yet greeted, oldest first (a Map keeps insertion order), with how to drop each. */
  const unauthenticated = new Map<net.Socket, () => void>();
  /** TCP and the token socket: the hello's token names the peer. */
  const tokenServer = () =>
    net.createServer({ allowHalfOpen: false }, (sock) => {
      if (unauthenticated.size >= MAX_UNAUTHENTICATED) {
        const [oldest, drop] = unauthenticated.entries().next().value!;
        unauthenticated.delete(oldest);
        drop();
      }
      serve(sock, 'token');
    });

  function serve(sock: net.Socket, peer: Identity | 'no_role' | 'token'): void {
    open.add(sock);
    sock.once('close', () => open.delete(sock));
    const send = (m: unknown) => {
      if (sock.destroyed) return;
      let frame: Buffer;
      try {
        frame = encodeFrame(m);
      } catch (e) {
        // An answer too large for one frame becomes a typed error for that request.
        const id = (m as { id?: string | null }).id ?? null;
        frame = encodeFrame({ type: 'response', id, ok: false, error: { category: 'validation', code: 'response_too_large', message: `the answer is larger than ${MAX_FRAME} bytes`, hint: 'ask for less, e.g. a smaller history limit' } });
        void e;
      }
      sock.write(frame);
    };
    /** Notices for the request `id` of this connection: sent while it has room, else refused (the caller counts them). */
    const noticeSink = (id: string): NoticeSink => (notice, last) => {
      if (sock.destroyed || sock.writableEnded) return false;
      if (!last && sock.writableLength > MAX_UNSENT_NOTICE_BYTES) return false;
      send({ type: 'notification', event: 'output', request_id: id, ...notice } satisfies OutputNotice);
      return true;
    };
    /** Whose masking queue this connection's own errors wait in (run-context.ts's key): its principal once known. */
    let principalKey = typeof peer === 'object' ? String(peer.uid) : 'unauthenticated';
    const whose = () => principalKey;
    const refuse = (err: AirlockError) => {
      // The connection is done with now; its last answer follows once masked.
      sock.pause();
      setTimeout(() => sock.destroy(), 2 * BASE_DEADLINE_MS + 1000).unref();
      void errorForClient(err, whose()).then((error) => {
        send({ type: 'response', id: null, ok: false, error } satisfies ResponseMessage);
        sock.end();
        setTimeout(() => sock.destroy(), 1000).unref();
      });
    };
    if (peer === 'no_role') {
      return refuse(new AirlockError('authorization', 'no_role', 'you are in no airlock group, so the daemon will not talk to you', `an administrator adds you to ${ROLE_GROUPS.observer}, ${ROLE_GROUPS.dev} or ${ROLE_GROUPS.admin} (then log in again)`));
    }
    let identity: Identity = peer === 'token' ? (undefined as unknown as Identity) : peer;
    /** Counts the connection against its principal; false (and refused) past the limit. */
    const admit = (who: Identity): boolean => {
      const count = (perUid.get(who.uid) ?? 0) + 1;
      perUid.set(who.uid, count);
      sock.once('close', () => {
        const n = (perUid.get(who.uid) ?? 1) - 1;
        if (n <= 0) perUid.delete(who.uid);
        else perUid.set(who.uid, n);
      });
      if (count <= MAX_CONN_PER_UID) return true;
      refuse(new AirlockError('transient', 'too_many_connections', `${who.user} already holds ${MAX_CONN_PER_UID} connections`, 'close some and retry'));
      return false;
    };
    if (peer !== 'token' && !admit(peer)) return;

    const reader = new FrameReader(MAX_HELLO_FRAME);
    let greeted = false;
    let closing = false;
    sock.once('close', () => (closing = true));
    const drop = (err: AirlockError) => {
      if (closing) return;
      closing = true;
      refuse(err);
    };
    const firstFrame = setTimeout(() => drop(new AirlockError('transient', 'hello_timeout', `no hello within ${FIRST_FRAME_MS} ms`)), FIRST_FRAME_MS);
    let frameTimer: NodeJS.Timeout | null = null;
    const stopFrameTimer = () => {
      if (frameTimer) clearTimeout(frameTimer);
      frameTimer = null;
    };
    if (peer === 'token') {
      unauthenticated.set(sock, () => {
        // Dropped to make room for a newer one: the fd is freed at once, not after refuse's grace.
        closing = true;
        if (sock.destroyed) return;
        const err = new AirlockError('transient', 'too_many_unauthenticated', `more than ${MAX_UNAUTHENTICATED} connections are waiting to say hello; this one waited longest`, 'say hello as soon as you connect');
        setTimeout(() => sock.destroy(), 2 * BASE_DEADLINE_MS + 1000).unref();
        void errorForClient(err, whose()).then((error) => {
          sock.end(encodeFrame({ type: 'response', id: null, ok: false, error }), () => sock.destroy());
          setTimeout(() => sock.destroy(), 1000).unref();
        });
      });
      sock.once('close', () => unauthenticated.delete(sock));
    }
    let inFlight = 0;
    // Aborted when the connection closes, so what a request holds for it (a wait's slot) is let go.
    const gone = new AbortController();
    sock.once('close', () => gone.abort());
    // Idle means no request and none running: a long execute, or a wait for a person, keeps its connection.
    sock.setTimeout(idleMs, () => inFlight === 0 && drop(new AirlockError('transient', 'idle_timeout', `no request for ${idleMs / 1000} s`)));
    sock.once('close', () => (clearTimeout(firstFrame), stopFrameTimer()));
    sock.on('error', () => sock.destroy());

    /** Where the next frame stands, or null once its header was refused (the stream cannot be framed any more). */
    const input = (): 'empty' | 'partial' | 'ready' | null => {
      try {
        return reader.state();
      } catch (e) {
        drop(e as AirlockError);
        return null;
      }
    };
    // One frame per turn of the event loop, so other connections are served between a
    // pipelining client's requests, and only while this connection has room: fewer than
    // MAX_IN_FLIGHT running and at most MAX_UNSENT_BYTES of replies it has not taken.
    let turnScheduled = false;
    const pump = () => {
      if (closing) return;
      const state = input();
      if (state === null) return;
      const room = inFlight < MAX_IN_FLIGHT && sock.writableLength <= MAX_UNSENT_BYTES;
      if (state === 'ready' && room && !turnScheduled) {
        turnScheduled = true;
        setImmediate(turn);
      }
      // Read on only while nothing waits on the daemon's side: a whole frame not yet taken, or unsent replies.
      if (state === 'ready' || sock.writableLength > MAX_UNSENT_BYTES) sock.pause();
      else sock.resume();
      // A frame that has begun, while the daemon waits for its bytes, must be whole within FRAME_MS.
      if (state === 'partial' && !sock.isPaused()) {
        frameTimer ??= setTimeout(() => drop(new AirlockError('transient', 'frame_timeout', `a frame was begun and not completed within ${FRAME_MS} ms`, 'send each frame whole')), FRAME_MS);
      } else stopFrameTimer();
    };
    const turn = () => {
      turnScheduled = false;
      if (closing) return;
      let body: Buffer | null = null;
      try {
        body = reader.next();
      } catch (e) {
        return drop(e as AirlockError);
      }
      if (body) take(body);
      pump();
    };
    sock.on('drain', pump);
    sock.on('data', (chunk: Buffer) => {
      reader.append(chunk);
      pump();
    });

    /** One whole frame: the hello first, then requests. */
    const take = (body: Buffer) => {
      let msg: unknown;
      try {
        msg = decodeBody(body);
      } catch (e) {
        void errorForClient(e as AirlockError, whose()).then((error) => send({ type: 'response', id: null, ok: false, error }));
        return;
      }
      if (greeted) {
        inFlight++;
        void o.service.dispatch(identity, msg, gone.signal, noticeSink).then((r) => {
          inFlight--;
          send(r);
          pump();
        });
        return;
      }
      const m = msg as { type?: unknown; protocol?: unknown; token?: unknown };
      if (m?.type !== 'hello' || m.protocol !== PROTOCOL) {
        return drop(new AirlockError('validation', 'hello_required', `the first message must be {"type":"hello","protocol":"${PROTOCOL}"}`));
      }
      if (peer === 'token') {
        // The token is looked up and dropped: never logged, never echoed.
        const who = o.tokens().identify(m.token);
        if (!who) o.service.refusals.record({ principal: null, method: 'hello', category: 'authorization', code: 'bad_token', transactionId: null });
        if (!who) return drop(new AirlockError('authorization', 'bad_token', 'this listener needs a valid token in the hello, and none was given or it is not in the token file', 'set AIRLOCK_TOKEN to the token root gave you'));
        unauthenticated.delete(sock);
        identity = who;
        principalKey = String(who.uid);
        if (!admit(who)) return void (closing = true);
      }
      greeted = true;
      reader.maxFrame = MAX_FRAME;
      clearTimeout(firstFrame);
      send({
        type: 'welcome',
        protocol: PROTOCOL,
        server: SERVER_NAME,
        version: VERSION,
        capabilities: [...METHODS],
        principal: { uid: identity.uid, user: identity.user, via: identity.via ?? 'unix', role: identity.role, approver: identity.approver, ...(identity.uid === 0 && identity.via !== 'token' ? { person: identity.person ? principalName(identity) : null } : {}) },
        limits: { max_frame: MAX_FRAME, idle_timeout_ms: idleMs, max_output_lines: MAX_OUTPUT_LINES },
      } satisfies WelcomeMessage);
    };
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
