/**
 * A client process running as a given Unix user (setpriv), so every role decision
 * the daemon makes rests on real kernel peer credentials. Used by `airlock demo`
 * and the test suite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from './node-command.js';
import { AirlockError, type WireError } from '../protocol/errors.js';
import type { Method, ParamsOf, ResultOf } from '../protocol/methods.js';

export interface UnixIdentity {
  uid: number;
  gid: number;
  groups: number[];
}

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'principal-worker.js');

/** The params argument of `call`, optional where the method has no required parameter (then an options object may follow). */
type CallParams<M extends Method> = {} extends ParamsOf<M> ? [params?: ParamsOf<M>] : [params: ParamsOf<M>];

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WireError };

export class Principal {
  private next = 1;
  private readonly waiting = new Map<number, (r: Reply) => void>();
  private constructor(
    readonly identity: UnixIdentity,
    private readonly child: ChildProcess,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const r = JSON.parse(line) as Reply;
      this.waiting.get(r.id)?.(r);
      this.waiting.delete(r.id);
    });
  }

  /** Pid of the worker process (setpriv execs node, so it is node's pid). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  static spawn(identity: UnixIdentity, socket: string): Principal {
    const node = nodeCommand(WORKER);
    const groups = identity.groups.length ? identity.groups.join(',') : String(identity.gid);
    const child = spawn('/usr/bin/setpriv', [`--reuid=${identity.uid}`, `--regid=${identity.gid}`, `--groups=${groups}`, '--inh-caps=-all', '--', ...node, socket], {
      stdio: ['pipe', 'pipe', 'inherit'],
      cwd: '/',
      env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' },
    });
    return new Principal(identity, child);
  }

  /**
   * A client started through `launcher` (argv of a program that runs what follows it:
   * nsenter into the test bed, systemd-run with a PAM session, sudo), for tests of how
   * the daemon attributes a root peer to the person behind it.
   */
  static spawnVia(launcher: string[], socket: string, identity: UnixIdentity = { uid: 0, gid: 0, groups: [0] }): Principal {
    const [program, ...args] = launcher;
    const child = spawn(program!, [...args, ...nodeCommand(WORKER), socket], {
      stdio: ['pipe', 'pipe', 'inherit'],
      cwd: '/',
      env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' },
    });
    return new Principal(identity, child);
  }

  /**
   * A root client in the login session of `uid`, as after `sudo` from that person's login:
   * root (CAP_AUDIT_CONTROL) sets its own audit login uid, as pam_loginuid does, and the
   * client inherits it; the daemon names that person behind the root peer.
   */
  static spawnRootInSessionOf(uid: number, socket: string, into: string[] = []): Principal {
    // `into`: a launcher into the daemon's namespaces (nsenter into the booted test bed), where the daemon can read this peer's pidfd.
    return Principal.spawnVia([...into, '/bin/sh', '-c', 'printf %s "$0" > /proc/self/loginuid && exec "$@"', String(uid)], socket);
  }

  private send(cmd: Record<string, unknown>): Promise<Reply> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin!.write(JSON.stringify({ id, ...cmd }) + '\n');
    });
  }

  /** One call, typed by the method table (src/protocol/methods.ts); resolves to the result or rejects with the daemon's typed error. */
  call<M extends Method>(method: M, ...args: [...CallParams<M>, opts?: { fresh?: boolean }]): Promise<ResultOf<M>> {
    const [params, opts] = args as unknown as [ParamsOf<M> | undefined, { fresh?: boolean } | undefined];
    return this.callUnchecked(method, params ?? {}, opts) as Promise<ResultOf<M>>;
  }

  /** A call the type system does not check (a wrong method name, wrong or missing parameters): for tests of what the daemon refuses. */
  async callUnchecked(method: string, params: unknown, opts: { fresh?: boolean } = {}): Promise<unknown> {
    const r = await this.send({ op: 'call', method, params, fresh: opts.fresh ?? false });
    if (!r.ok) throw AirlockError.fromWire(r.error);
    return r.result;
  }

  /** The same call on `count` connections at once; each settles on its own. */
  async parallel<M extends Method>(method: M, params: ParamsOf<M>, count: number): Promise<Array<{ ok: boolean; result?: ResultOf<M>; error?: WireError }>> {
    const r = await this.send({ op: 'parallel', method, params, count });
    if (!r.ok) throw AirlockError.fromWire(r.error);
    return r.result as Array<{ ok: boolean; result?: ResultOf<M>; error?: WireError }>;
  }

  /** A benchmark op of principal-worker.ts ('serveApprovals', 'lifecycles', 'agentLoop'); rejects with the worker's typed error. */
  async op<T = any>(op: 'serveApprovals' | 'lifecycles' | 'agentLoop', args: Record<string, unknown>): Promise<T> {
    const r = await this.send({ ...args, op });
    if (!r.ok) throw AirlockError.fromWire(r.error);
    return r.result as T;
  }

  close(): void {
    this.child.stdin!.end();
  }

  /** Closes it and waits until its process (and a launcher such as nsenter) has exited. */
  async end(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.close();
    await exited;
  }
}
