/**
 * One client connection, from its first byte to its close, as three phases:
 *
 *   hello    nothing is known but who the kernel named (or nobody, on a token listener): the
 *            first frame must be the hello, within FIRST_FRAME_MS and MAX_HELLO_FRAME bytes;
 *   serving  the hello was accepted and the peer has a name: frames are requests, handed to
 *            the door one per turn of the event loop while the connection has room;
 *   closing  refused, dropped or closed: nothing more is read or started, the last answer
 *            (if any) is flushed and the socket destroyed.
 *
 * Every limit of a connection is here: the hello's deadline and size, the idle deadline, the
 * time to complete a frame, the requests it may have running, and the replies and output
 * notices it may leave unsent. The listeners (server.ts) decide who the peer is at accept and
 * how many connections a principal holds (admission.ts); the door (dispatch) decides what a
 * request may do. Everything a connection holds is let go in one close handler.
 */
import type net from 'node:net';
import { errorForClient, MAX_OUTPUT_LINES } from './output.js';
import { BASE_DEADLINE_MS } from '../mask/pool.js';
import { AirlockError } from '../protocol/errors.js';
import { decodeBody, encodeFrame, FrameReader, MAX_FRAME } from '../protocol/framing.js';
import { PROTOCOL, SERVER_NAME, type OutputNotice, type ResponseMessage, type WelcomeMessage } from '../protocol/messages.js';
import { METHODS } from '../protocol/methods.js';
import { ROLE_GROUPS } from '../protocol/risk.js';
import { principalName, type Identity } from './identity.js';
import type { NoticeSink } from './output-stream.js';
import type { Dispatch } from './dispatch.js';

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

/** What a connection needs from the daemon around it. */
export interface ConnectionContext {
  dispatch: Dispatch;
  /** Names a token listener's peer from the hello's token (null: unknown, and the refusal is recorded). */
  identifyToken(token: unknown): Identity | null;
  /** Counts the connection against its principal until it closes (admission.ts); an error when it holds too many. */
  admit(who: Identity, sock: net.Socket): AirlockError | null;
  idleMs: number;
}

/** Who is at the other end before the hello: named by the kernel, in no airlock group, or to be named by a token. */
export type Peer = Identity | 'no_role' | 'token';

type Phase = { name: 'hello'; deadline: NodeJS.Timeout } | { name: 'serving'; who: Identity } | { name: 'closing' };

export class Connection {
  private phase: Phase;
  private readonly reader = new FrameReader(MAX_HELLO_FRAME);
  private inFlight = 0;
  private turnScheduled = false;
  private frameTimer: NodeJS.Timeout | null = null;
  /** Aborted when the connection closes, so what a request holds for it (a wait's slot) is let go. */
  private readonly gone = new AbortController();

  constructor(
    private readonly sock: net.Socket,
    private readonly peer: Peer,
    private readonly ctx: ConnectionContext,
  ) {
    this.phase = { name: 'hello', deadline: setTimeout(() => this.drop(new AirlockError('transient', 'hello_timeout', `no hello within ${FIRST_FRAME_MS} ms`)), FIRST_FRAME_MS) };
    sock.once('close', () => this.closed());
    sock.on('error', () => sock.destroy());
    if (peer === 'no_role') {
      this.refuse(new AirlockError('authorization', 'no_role', 'you are in no airlock group, so the daemon will not talk to you', `an administrator adds you to ${ROLE_GROUPS.observer}, ${ROLE_GROUPS.dev} or ${ROLE_GROUPS.admin} (then log in again)`));
      return;
    }
    if (peer !== 'token') {
      const tooMany = ctx.admit(peer, sock);
      if (tooMany) {
        this.refuse(tooMany);
        return;
      }
    }
    // Idle means no request and none running: a long execute, or a wait for a person, keeps its connection.
    sock.setTimeout(ctx.idleMs, () => this.inFlight === 0 && this.drop(new AirlockError('transient', 'idle_timeout', `no request for ${ctx.idleMs / 1000} s`)));
    sock.on('drain', () => this.pump());
    sock.on('data', (chunk: Buffer) => {
      this.reader.append(chunk);
      this.pump();
    });
  }

  /** Whose masking queue this connection's own errors wait in (run-context.ts's key): its principal once known. */
  private get principalKey(): string {
    if (this.phase.name === 'serving') return String(this.phase.who.uid);
    return typeof this.peer === 'object' ? String(this.peer.uid) : 'unauthenticated';
  }

  /** The one close handler: whatever the connection held is let go here. */
  private closed(): void {
    if (this.phase.name === 'hello') clearTimeout(this.phase.deadline);
    this.phase = { name: 'closing' };
    this.stopFrameTimer();
    this.gone.abort();
  }

  /** Dropped to make room, or refused: the last answer (masked) is sent, then the socket is destroyed. */
  drop(err: AirlockError): void {
    if (this.phase.name === 'closing') return;
    this.refuse(err);
  }

  /**
   * Dropped to make room for a newer connection that has not said hello either (admission.ts):
   * the descriptor is freed at once, not after a masking round, so a flood of silent connections
   * never holds more than the bound. The error is the daemon's own fixed text, nothing to mask.
   */
  evict(err: AirlockError): void {
    if (this.phase.name === 'hello') clearTimeout(this.phase.deadline);
    this.phase = { name: 'closing' };
    if (this.sock.destroyed) return;
    this.sock.end(encodeFrame({ type: 'response', id: null, ok: false, error: err.toWire() } satisfies ResponseMessage), () => this.sock.destroy());
    setTimeout(() => this.sock.destroy(), 1000).unref();
  }

  private refuse(err: AirlockError): void {
    if (this.phase.name === 'hello') clearTimeout(this.phase.deadline);
    this.phase = { name: 'closing' };
    const sock = this.sock;
    sock.pause();
    // Masking the answer has a deadline; past it (and a second to flush) the socket goes regardless.
    setTimeout(() => sock.destroy(), 2 * BASE_DEADLINE_MS + 1000).unref();
    void errorForClient(err, this.principalKey).then((error) => {
      this.send({ type: 'response', id: null, ok: false, error } satisfies ResponseMessage);
      // Not destroyed on flush: unread bytes from the peer would make the kernel answer with a
      // reset, which can discard this last answer before the peer reads it.
      sock.end();
      setTimeout(() => sock.destroy(), 1000).unref();
    });
  }

  private send(m: unknown): void {
    if (this.sock.destroyed) return;
    let frame: Buffer;
    try {
      frame = encodeFrame(m);
    } catch {
      // An answer too large for one frame becomes a typed error for that request.
      const id = (m as { id?: string | null }).id ?? null;
      frame = encodeFrame({ type: 'response', id, ok: false, error: { category: 'validation', code: 'response_too_large', message: `the answer is larger than ${MAX_FRAME} bytes`, hint: 'ask for less, e.g. a smaller history limit' } });
    }
    this.sock.write(frame);
  }

  /** Notices for the request `id`: sent while the connection has room, else refused (the caller counts them). */
  private noticeSink(id: string): NoticeSink {
    return (notice, last) => {
      if (this.sock.destroyed || this.sock.writableEnded) return false;
      if (!last && this.sock.writableLength > MAX_UNSENT_NOTICE_BYTES) return false;
      this.send({ type: 'notification', event: 'output', request_id: id, ...notice } satisfies OutputNotice);
      return true;
    };
  }

  private stopFrameTimer(): void {
    if (this.frameTimer) clearTimeout(this.frameTimer);
    this.frameTimer = null;
  }

  /**
   * Flow control. One frame per turn of the event loop, so other connections are served between
   * a pipelining client's requests, and only while this connection has room: fewer than
   * MAX_IN_FLIGHT running and at most MAX_UNSENT_BYTES of replies it has not taken. The socket
   * is read only while nothing waits on the daemon's side.
   */
  private pump(): void {
    if (this.phase.name === 'closing') return;
    let state: 'empty' | 'partial' | 'ready';
    try {
      state = this.reader.state();
    } catch (e) {
      return this.drop(e as AirlockError); // a bad header: the stream cannot be framed any more
    }
    const sock = this.sock;
    const room = this.inFlight < MAX_IN_FLIGHT && sock.writableLength <= MAX_UNSENT_BYTES;
    if (state === 'ready' && room && !this.turnScheduled) {
      this.turnScheduled = true;
      setImmediate(() => this.turn());
    }
    if (state === 'ready' || sock.writableLength > MAX_UNSENT_BYTES) sock.pause();
    else sock.resume();
    // A frame that has begun, while the daemon waits for its bytes, must be whole within FRAME_MS.
    if (state === 'partial' && !sock.isPaused()) {
      this.frameTimer ??= setTimeout(() => this.drop(new AirlockError('transient', 'frame_timeout', `a frame was begun and not completed within ${FRAME_MS} ms`, 'send each frame whole')), FRAME_MS);
    } else this.stopFrameTimer();
  }

  private turn(): void {
    this.turnScheduled = false;
    if (this.phase.name === 'closing') return;
    let body: Buffer | null;
    try {
      body = this.reader.next();
    } catch (e) {
      return this.drop(e as AirlockError);
    }
    if (body) this.take(body);
    this.pump();
  }

  /** One whole frame: the hello first, then requests. */
  private take(body: Buffer): void {
    let msg: unknown;
    try {
      msg = decodeBody(body);
    } catch (e) {
      void errorForClient(e as AirlockError, this.principalKey).then((error) => this.send({ type: 'response', id: null, ok: false, error }));
      return;
    }
    if (this.phase.name === 'serving') return this.request(this.phase.who, msg);
    if (this.phase.name === 'hello') this.hello(this.phase.deadline, msg);
  }

  private request(who: Identity, msg: unknown): void {
    this.inFlight++;
    void this.ctx.dispatch(who, msg, this.gone.signal, (id) => this.noticeSink(id)).then((r) => {
      this.inFlight--;
      this.send(r);
      this.pump();
    });
  }

  private hello(deadline: NodeJS.Timeout, msg: unknown): void {
    const m = msg as { type?: unknown; protocol?: unknown; token?: unknown };
    if (m?.type !== 'hello' || m.protocol !== PROTOCOL) {
      return this.drop(new AirlockError('validation', 'hello_required', `the first message must be {"type":"hello","protocol":"${PROTOCOL}"}`));
    }
    let who: Identity;
    if (this.peer === 'token') {
      // The token is looked up and dropped: never logged, never echoed.
      const named = this.ctx.identifyToken(m.token);
      if (!named) return this.drop(new AirlockError('authorization', 'bad_token', 'this listener needs a valid token in the hello, and none was given or it is not in the token file', 'set AIRLOCK_TOKEN to the token root gave you'));
      const tooMany = this.ctx.admit(named, this.sock);
      if (tooMany) return this.drop(tooMany);
      who = named;
    } else who = this.peer as Identity;
    clearTimeout(deadline);
    this.phase = { name: 'serving', who };
    this.reader.maxFrame = MAX_FRAME;
    this.send({
      type: 'welcome',
      protocol: PROTOCOL,
      server: SERVER_NAME,
      version: VERSION,
      capabilities: [...METHODS],
      principal: { uid: who.uid, user: who.user, via: who.via === 'token' ? 'token' : 'unix', role: who.role, approver: who.approver, ...(who.uid === 0 && who.via !== 'token' ? { person: who.person ? principalName(who) : null } : {}) },
      limits: { max_frame: MAX_FRAME, idle_timeout_ms: this.ctx.idleMs, max_output_lines: MAX_OUTPUT_LINES },
    } satisfies WelcomeMessage);
  }
}
