/**
 * How many connections the daemon holds, per principal and before anyone is known. A uid may
 * hold at most MAX_CONN_PER_UID connections; token-listener connections that have not said
 * hello yet (nobody is known, so no per-principal cap applies) are at most MAX_UNAUTHENTICATED
 * together, and past it the oldest is dropped: a flood of silent connections costs at most this
 * many sockets (each holding at most MAX_HELLO_FRAME for at most FIRST_FRAME_MS), and a client
 * that says hello at once still gets in. Unix-socket peers are named by the kernel at accept
 * and count against their uid from the start.
 */
import type net from 'node:net';
import { AirlockError } from '../protocol/errors.js';
import type { Identity } from './identity.js';

export const MAX_UNAUTHENTICATED = 64;
export const MAX_CONN_PER_UID = 64;

export class Admission {
  private readonly perUid = new Map<number, number>();
  /** Token-listener connections not yet greeted, oldest first (a Map keeps insertion order), with how to drop each. */
  private readonly unauthenticated = new Map<net.Socket, (err: AirlockError) => void>();

  /** A token-listener connection waiting for its hello; the oldest waiting is dropped when too many wait. */
  awaitHello(sock: net.Socket, drop: (err: AirlockError) => void): void {
    if (this.unauthenticated.size >= MAX_UNAUTHENTICATED) {
      const [oldest, dropOldest] = this.unauthenticated.entries().next().value!;
      this.unauthenticated.delete(oldest);
      dropOldest(new AirlockError('transient', 'too_many_unauthenticated', `more than ${MAX_UNAUTHENTICATED} connections are waiting to say hello; this one waited longest`, 'say hello as soon as you connect'));
    }
    this.unauthenticated.set(sock, drop);
    sock.once('close', () => this.unauthenticated.delete(sock));
  }

  /** The connection now belongs to `who` until it closes; an error (to refuse it with) past the per-principal bound. */
  admit(who: Identity, sock: net.Socket): AirlockError | null {
    this.unauthenticated.delete(sock);
    const count = (this.perUid.get(who.uid) ?? 0) + 1;
    this.perUid.set(who.uid, count);
    sock.once('close', () => {
      const n = (this.perUid.get(who.uid) ?? 1) - 1;
      if (n <= 0) this.perUid.delete(who.uid);
      else this.perUid.set(who.uid, n);
    });
    if (count <= MAX_CONN_PER_UID) return null;
    return new AirlockError('transient', 'too_many_connections', `${who.user} already holds ${MAX_CONN_PER_UID} connections`, 'close some and retry');
  }
}
