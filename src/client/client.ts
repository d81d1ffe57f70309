/**
 * The unprivileged socket client used by the CLI, the demo, the tests and (later)
 * the planner and MCP server. It knows the wire protocol and nothing of the daemon.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { AirlockError, type WireError } from '../protocol/errors.js';
import { decodeBody, encodeFrame, FrameReader } from '../protocol/framing.js';
import { DEFAULT_SOCKET } from '../protocol/defaults.js';
import { checkHostName, DEFAULT_RELAY_SOCKET, type RelayedMessage } from '../protocol/relay.js';
import { isRecorded, PROTOCOL, type ApprovalGrant, type ApproveResult, type OutputNotice, type WelcomeMessage } from '../protocol/messages.js';
import type { Method, ParamsArg, ResultOf } from '../protocol/methods.js';

/** Where the daemon is: a Unix socket path, or tcp:HOST:PORT (then a token is needed). */
export function socketPath(explicit?: string): string {
  return explicit ?? process.env.AIRLOCK_SOCKET ?? DEFAULT_SOCKET;
}

/** The relay's socket, through which a host is reached by name: $AIRLOCK_RELAY, else the default. */
export function relaySocket(): string {
  return process.env.AIRLOCK_RELAY ?? DEFAULT_RELAY_SOCKET;
}

/** tcp:127.0.0.1:7070 or tcp:[::1]:7070 -> host and port; anything else is a socket path. */
function tcpTarget(target: string): { host: string; port: number } | null {
  const m = /^tcp:(\[[0-9a-fA-F:]+\]|[^:]+):([0-9]{1,5})$/.exec(target);
  return m ? { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) } : null;
}

export class AirlockClient {
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void; notice?: (n: OutputNotice) => void }>();
  private closedError: AirlockError | null = null;
  private constructor(
    private readonly sock: net.Socket,
    readonly welcome: WelcomeMessage,
    private readonly timeoutMs: number,
    /** The host this client speaks to through the relay (its name in the relay's list), or null for this host's daemon. */
    readonly host: string | null = null,
    /** Through the relay: the host's own name for itself, escaped (the relay's `remote`). */
    readonly remote: string | null = null,
  ) {}

  /**
   * `token` (default $AIRLOCK_TOKEN) is sent in the hello: TCP and token-socket listeners
   * need it; the Unix socket ignores it, since the kernel says who is asking there.
   * `host` reaches that host's daemon through the relay (`path` is then the relay's socket,
   * default relaySocket()): the relay's greeting first, then the same hello.
   */
  static async connect(path?: string, opts: { timeoutMs?: number; client?: string; token?: string; host?: string } = {}): Promise<AirlockClient> {
    const timeoutMs = opts.timeoutMs ?? 15 * 60_000;
    const host = opts.host === undefined ? null : checkHostName(opts.host);
    path ??= host === null ? socketPath() : relaySocket();
    const tcp = tcpTarget(path);
    const sock = tcp ? net.createConnection(tcp.port, tcp.host) : net.createConnection(path);
    const token = opts.token ?? process.env.AIRLOCK_TOKEN;
    await new Promise<void>((resolve, reject) => {
      sock.once('connect', resolve);
      sock.once('error', (e: NodeJS.ErrnoException) =>
        reject(
          new AirlockError(
            'transient',
            'daemon_unreachable',
            host === null ? `cannot reach the Airlock daemon at ${path} (${e.code ?? e.message})` : `cannot reach the Airlock relay at ${path} to reach ${host} (${e.code ?? e.message})`,
            host === null
              ? e.code === 'EACCES' ? 'you lack permission on the socket directory' : 'start it with `sudo airlock daemon` or `sudo systemctl start airlock`, or set AIRLOCK_SOCKET'
              : e.code === 'EACCES' ? 'this account is not in the airlock-fleet group: a person adds it (`sudo usermod -aG airlock-fleet ACCOUNT`), then log in again' : 'start it with `sudo systemctl start airlock-relay`, or set AIRLOCK_RELAY',
          ),
        ),
      );
    });
    const reader = new FrameReader();
    let client: AirlockClient | null = null;
    const hello = () => sock.write(encodeFrame({ type: 'hello', protocol: PROTOCOL, client: opts.client ?? 'airlock-client/0.1', ...(token ? { token } : {}) }));
    // Through the relay, its answer comes first; the hello goes once the remote daemon is reached.
    let relayed = host === null;
    let remote: string | null = null;
    const welcome = await new Promise<WelcomeMessage>((resolve, reject) => {
      const onFrame = (msg: any) => {
        if (client) return client.onMessage(msg);
        if (!relayed) {
          if (msg?.ok === false) return reject(AirlockError.fromWire(msg.error as WireError));
          if ((msg as RelayedMessage)?.type !== 'relayed' || msg.host !== host) return reject(new AirlockError('validation', 'bad_handshake', 'the relay answered with something unexpected'));
          relayed = true;
          remote = typeof msg.remote === 'string' ? msg.remote : null;
          return hello();
        }
        if (msg?.type === 'welcome') return resolve(msg as WelcomeMessage);
        if (msg?.ok === false) return reject(AirlockError.fromWire(msg.error as WireError));
        reject(new AirlockError('validation', 'bad_handshake', 'the daemon answered hello with something unexpected'));
      };
      sock.on('data', (chunk: Buffer) => {
        try {
          for (const body of reader.push(chunk)) onFrame(decodeBody(body));
        } catch (e) {
          sock.destroy(e as Error);
        }
      });
      sock.on('close', () => {
        const err = new AirlockError('transient', 'connection_closed', host === null ? 'the daemon closed the connection' : `the connection to ${host} through the relay closed`);
        if (!client) reject(err);
        else client.failAll(err);
      });
      sock.on('error', () => {});
      if (host === null) hello();
      else sock.write(encodeFrame({ type: 'relay', host }));
    });
    client = new AirlockClient(sock, welcome, timeoutMs, host, remote);
    return client;
  }

  private onMessage(msg: any): void {
    // A notice belongs to a request still running (docs/protocol.md, "Output notifications"); one for no such request is dropped.
    if (msg?.type === 'notification') {
      if (typeof msg.request_id === 'string' && msg.event === 'output' && Array.isArray(msg.lines)) this.pending.get(msg.request_id)?.notice?.(msg as OutputNotice);
      return;
    }
    const waiter = typeof msg?.id === 'string' ? this.pending.get(msg.id) : undefined;
    if (!waiter) {
      // An unsolicited error (id null) means the daemon is about to drop us.
      if (msg?.ok === false) this.failAll(AirlockError.fromWire(msg.error));
      return;
    }
    this.pending.delete(msg.id);
    if (msg.ok) waiter.resolve(msg.result);
    else waiter.reject(AirlockError.fromWire(msg.error));
  }

  private failAll(err: AirlockError): void {
    this.closedError = err;
    for (const w of this.pending.values()) w.reject(err);
    this.pending.clear();
  }

  /** One request, typed by the method table (src/protocol/methods.ts): `call('actions.list')` is an ActionDescription[]. */
  call<M extends Method>(method: M, ...params: ParamsArg<M>): Promise<ResultOf<M>> {
    return this.callUnchecked(method, params[0] ?? {}) as Promise<ResultOf<M>>;
  }

  /**
   * A request the type system does not check: for a relay that forwards what it was given
   * (src/sandbox/principal-worker.ts) and for tests of what the daemon refuses. The result
   * is whatever the daemon answered.
   */
  callUnchecked(method: string, params: unknown, notice?: (n: OutputNotice) => void): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = randomBytes(8).toString('hex');
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AirlockError('transient', 'timeout', `no answer to ${method} within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
        ...(notice ? { notice } : {}),
      });
      this.sock.write(encodeFrame({ type: 'request', id, method, params }));
    });
  }

  /** The preview; `auto_approval` is set when the policy approved it (a receipt minted by the daemon). */
  /** `proposal_id`: the unattended proposal this re-previews (`airlock inbox run`); the log links the two. */
  /** `unmask`: the read's output in clear, for its requester alone once they approve it with their factor (`airlock unmask`). */
  preview(action_name: string, params: Record<string, unknown>, proposal_id?: string, unmask?: boolean) {
    return this.call('preview', { action_name, params, ...(proposal_id ? { proposal_id } : {}), ...(unmask ? { unmask: true } : {}) });
  }
  /** `totp_code`: the approver's authenticator code, needed for High risk (and Medium where configured). */
  approve(transaction_id: string, preview_digest: string, totp_code?: string) {
    return this.call('approve', { transaction_id, preview_digest, ...(totp_code ? { totp_code } : {}) });
  }

  /**
   * Enrols the caller's own second factor: a pending secret, returned to this connection once,
   * for the caller's terminal only. Replacing a confirmed factor needs `current_code` from it.
   */
  totpEnroll(current_code?: string) {
    return this.call('totp.enroll', current_code ? { current_code } : {});
  }
  /** Confirms the caller's pending secret with the first code the app shows: from then on it counts. */
  totpConfirm(code: string) {
    return this.call('totp.confirm', { code });
  }
  /** An admin approver through sudo, with their own code: deletes another person's factor (logged and notified). */
  totpReset(user: string, totp_code?: string, passkeys = false) {
    return this.call('totp.reset', { user, ...(totp_code ? { totp_code } : {}), ...(passkeys ? { passkeys: true } : {}) });
  }
  /** An approver, with their own code: other people's proven first enrolments count from now on (logged and notified). */
  totpApprove(enrolments: { user: string; check: string }[], totp_code?: string) {
    return this.call('totp.approve', { enrolments, ...(totp_code ? { totp_code } : {}) });
  }
  /** `onOutput`: called with each output notice while it runs (lines as they come); the result carries the output anyway. */
  execute(transaction_id: string, action_name: string, params: Record<string, unknown>, receipt: string, onOutput?: (n: OutputNotice) => void): Promise<ResultOf<'execute'>> {
    return this.callUnchecked('execute', { transaction_id, action_name, params, receipt } satisfies ParamsArg<'execute'>[0], onOutput) as Promise<ResultOf<'execute'>>;
  }
  transaction(transaction_id: string) {
    return this.call('transaction.get', { transaction_id });
  }

  /** True once the connection is gone (the daemon closed it, e.g. after its idle deadline). */
  get closed(): boolean {
    return this.closedError !== null || this.sock.destroyed;
  }

  close(): void {
    this.sock.end();
    this.sock.destroy();
  }
}

/**
 * The receipt an approval granted, where the caller needs one now (a one-approver flow): an
 * approval only recorded, waiting for another person ([approval] high = 2), is a typed error
 * here rather than a grant without a receipt.
 */
export function grantOf(r: ApproveResult): ApprovalGrant {
  if (isRecorded(r)) {
    throw new AirlockError('authorization', 'approval_recorded', `your approval of ${r.transaction_id} is recorded (${r.approvals.have} of ${r.approvals.needed}): another approver must approve it`, `another approver runs \`airlock approve ${r.transaction_id}\`; the requester's wait gets the receipt then`);
  }
  return r;
}
