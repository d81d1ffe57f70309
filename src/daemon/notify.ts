/**
 * Tells people that something waits for them: a preview pending approval, or an
 * unattended principal's proposal; and that root reset somebody's second factor; and that free space in the state directory changed state (disk-pressure.ts). Through the policy's command (an argv, run without
 * a shell, the notification as JSON on stdin), webhook (a JSON POST) and/or ntfy topic (a
 * message a phone shows, whose tap opens the console's page: ntfy.ts). Events name
 * the action, risk, summary and requester, never parameters. Fire and forget: a slow
 * or failing notifier never delays or fails the preview; failures go to the daemon's log.
 *
 * Bounded, because each preview asks for one: at most NOTIFY_CONCURRENCY deliveries run
 * at once (each one process and/or one webhook request); a requester is notified at most
 * once per NOTIFY_INTERVAL_MS, and what it asks for meanwhile is coalesced into its next
 * notification (NOTIFY_MAX_LISTED events listed, the rest counted); at most
 * NOTIFY_MAX_REQUESTERS requesters wait for a notification at once, and an event past that
 * is dropped and counted in the log.
 */
import { spawn } from 'node:child_process';
import type { Risk } from '../protocol/risk.js';
import type { Policy } from '../policy/policy.js';
import { ntfyMessage, readNtfyToken } from './ntfy.js';

export interface PendingEvent {
  event: 'pending_approval' | 'proposal';
  transaction_id: string;
  action: string;
  risk: Risk;
  summary: string;
  requested_by: string;
  expires_at: string;
  /**
   * The web console's page of the transaction ([console] url): where the person decides. It
   * holds no secret: the page asks them to sign in, and an approval needs their passkey.
   */
  link?: string;
}

/**
 * A person's second factor changed: root deleted it, a factor was confirmed for it, or a new
 * one waits for another approver (the approvers should know: one of them approves it).
 * The person (and whoever watches) should know either way: a factor nobody remembers
 * enrolling is an agent's.
 */
export interface FactorResetEvent {
  event: 'totp_reset' | 'totp_enrolled' | 'totp_awaiting_approval' | 'passkey_registered';
  approver: string;
  by: string;
  at: string;
}

/**
 * Free space in the daemon's state directory changed state (disk-pressure.ts): `low` (new
 * previews are refused), `full` (the reserve was released), `ok` (recovered). Sent once per
 * change: an agent's refused previews never send one each.
 */
export interface StoragePressureEvent {
  event: 'storage_pressure';
  state: 'ok' | 'low' | 'full';
  state_dir: string;
  free_bytes: number;
  min_free_bytes: number;
  at: string;
}

/** Sent as they come, not coalesced per requester: resets and disk pressure. */
type ImmediateEvent = FactorResetEvent | StoragePressureEvent;

export type NotifyEvent = PendingEvent | ImmediateEvent;

/** What the command reads on stdin and the webhook receives: one requester's pending events, a reset, or disk pressure. */
export type Notification = PendingNotification | ImmediateEvent;

export interface PendingNotification {
  event: 'pending';
  requested_by: string;
  /** Listed plus not listed. */
  count: number;
  pending: PendingEvent[];
  /** Events of this requester coalesced into this notification beyond the listing. */
  not_listed: number;
}

/** Deliveries running at once: a burst of previews makes this many processes (or webhook requests), not one each. */
export const NOTIFY_CONCURRENCY = 2;
/** One notification per requester per this: a person reads one, not three hundred; the rest are coalesced into the next. */
export const NOTIFY_INTERVAL_MS = 10_000;
/** Events one notification lists (a screenful); more are counted in `not_listed`. */
export const NOTIFY_MAX_LISTED = 20;
/** Requesters with a notification waiting, at most (users and tokens of one host are fewer); past it events are dropped and logged. */
export const NOTIFY_MAX_REQUESTERS = 64;
/** A notifier that takes longer is killed (command) or abandoned (webhook), freeing its slot. */
const TIMEOUT_MS = 10_000;
/** Drops are logged at most this often, with their count, so a flood cannot flood the log. */
const DROP_LOG_MS = 1_000;

export interface NotifierOptions {
  intervalMs?: number;
  now?: () => number;
}

export function notifier(log: (m: string) => void, opts: NotifierOptions = {}): (policy: Policy, e: NotifyEvent) => void {
  const intervalMs = opts.intervalMs ?? NOTIFY_INTERVAL_MS;
  const now = opts.now ?? Date.now;
  /** Per requester, in arrival order: what its next notification says. */
  const waiting = new Map<string, { pending: PendingEvent[]; notListed: number }>();
  /** Resets and disk pressure, sent as they come (only root and the disk make them), within the same concurrency; at most NOTIFY_MAX_REQUESTERS wait. */
  const resets: ImmediateEvent[] = [];
  /** When each requester was last notified (entries older than the interval are forgotten). */
  const lastSent = new Map<string, number>();
  let target: Policy['notify'] = {};
  let running = 0;
  let wake: NodeJS.Timeout | null = null;
  let dropped = 0;
  let dropLog: NodeJS.Timeout | null = null;

  const drop = () => {
    dropped++;
    dropLog ??= setTimeout(() => {
      log(`notify: ${dropped} pending event(s) not notified: ${NOTIFY_MAX_REQUESTERS} requesters were already waiting for a notification`);
      dropped = 0;
      dropLog = null;
    }, DROP_LOG_MS).unref();
  };

  const drain = () => {
    if (wake) clearTimeout(wake);
    wake = null;
    const t = now();
    for (const [who, at] of lastSent) if (t - at >= intervalMs) lastSent.delete(who);
    while (resets.length > 0 && running < NOTIFY_CONCURRENCY) {
      running++;
      void deliver(resets.shift()!).finally(() => {
        running--;
        drain();
      });
    }
    let soonest = Infinity;
    for (const [who, w] of waiting) {
      if (running >= NOTIFY_CONCURRENCY) return; // a finishing delivery drains again
      const due = (lastSent.get(who) ?? -Infinity) + intervalMs;
      if (due > t) {
        soonest = Math.min(soonest, due);
        continue;
      }
      waiting.delete(who);
      lastSent.set(who, t);
      running++;
      void deliver({ event: 'pending', requested_by: who, count: w.pending.length + w.notListed, pending: w.pending, not_listed: w.notListed }).finally(() => {
        running--;
        drain();
      });
    }
    if (soonest < Infinity) wake = setTimeout(drain, soonest - t).unref();
  };

  const deliver = (n: Notification): Promise<unknown> => {
    const { command, webhook, ntfy, ntfy_token_file: tokenFile } = target;
    const body = JSON.stringify(n) + '\n';
    const runs: Promise<unknown>[] = [];
    if (command) {
      runs.push(
        new Promise<void>((resolve) => {
          const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'ignore', 'ignore'], timeout: TIMEOUT_MS, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' } });
          child.on('error', (err) => (log(`notify command ${command[0]} failed: ${err.message}`), resolve()));
          child.on('exit', (code) => (code !== 0 && code !== null && log(`notify command ${command[0]} exited with status ${code}`), resolve()));
          child.stdin!.on('error', () => {});
          child.stdin!.end(body);
        }),
      );
    }
    /** One POST, abandoned after TIMEOUT_MS; what went wrong goes to the log. */
    const post = (what: string, url: string, headers: Record<string, string>, payload: string) =>
      fetch(url, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(TIMEOUT_MS) })
        .then(async (r) => {
          if (!r.ok) log(`notify ${what} answered ${r.status}`);
          await r.body?.cancel();
        })
        .catch((err: Error) => log(`notify ${what} failed: ${err.message}`));
    if (webhook) runs.push(post('webhook', webhook, { 'content-type': 'application/json' }, body));
    if (ntfy) {
      const m = ntfyMessage(n);
      const token = tokenFile ? readNtfyToken(tokenFile) : null;
      if (token && 'problem' in token) log(`notify ntfy: the token is not used: ${token.problem}`);
      const auth: Record<string, string> = token && 'token' in token ? { Authorization: `Bearer ${token.token}` } : {};
      runs.push(post('ntfy', ntfy, { 'content-type': 'text/plain; charset=utf-8', ...m.headers, ...auth }, m.body));
    }
    return Promise.all(runs);
  };

  return (policy, e) => {
    const { command, webhook, ntfy } = policy.notify;
    if (!command && !webhook && !ntfy) return; // every preview passes here: nothing to do unless the policy names a notifier
    target = policy.notify; // deliveries go where the latest policy that names a notifier says
    if (!('transaction_id' in e)) {
      if (resets.length >= NOTIFY_MAX_REQUESTERS) return drop();
      resets.push(e);
      return drain();
    }
    let w = waiting.get(e.requested_by);
    if (!w) {
      if (waiting.size >= NOTIFY_MAX_REQUESTERS) return drop();
      waiting.set(e.requested_by, (w = { pending: [], notListed: 0 }));
    }
    if (w.pending.length < NOTIFY_MAX_LISTED) w.pending.push({ ...e, link: `${policy.console.url}/tx/${e.transaction_id}` });
    else w.notListed++;
    drain();
  };
}
