/**
 * Signs tree heads of the log and fans them out to every sink. When a head is signed:
 *
 * - soon after an authorization or outcome entry (an approval granted or used, an
 *   outcome, a denial, a cancel, an expiry, a reconciliation, a policy reload, a start),
 *   coalesced: at most one head per `coalesceMs`, like the checkpoints of old; so the
 *   facts an auditor cares most about leave the host within a fraction of a second;
 * - on a schedule, every `scheduleMs`, when the log grew (previews and the rest);
 * - at flush(), when the daemon stops.
 *
 * A head is signed once and the same bytes go to every sink. Each sink has its own lane
 * (a bounded queue and a worker, see lane.ts), so one slow or failing sink never blocks
 * another, nor the daemon: note() returns at once and never throws.
 */
import type { EntryKind } from '../../audit/entry.js';
import { Lane } from './lane.js';
import { printable, type Sink, type TreeHead } from './sink.js';

/** Entries after which a head is signed soon rather than at the next scheduled time. */
export const URGENT_KINDS: ReadonlySet<EntryKind> = new Set<EntryKind>(['daemon_started', 'approval_granted', 'approval_consumed', 'outcome', 'denied', 'canceled', 'expired', 'reconciled', 'reboot_reconciled', 'policy_reloaded', 'key_rotated']);

export interface PublisherOptions<H extends { size: number }> {
  /** Signs the head of the log (the note and its one-line form). */
  sign: (head: H, now: Date) => TreeHead;
  sinks: readonly Sink[];
  /** Window that coalesces the heads after urgent entries; 0 signs one after every append. */
  coalesceMs: number;
  /** The schedule: a head this often when the log grew (0: none besides the urgent ones). */
  scheduleMs: number;
  log: (msg: string) => void;
  /** Bound of each sink's lane (default 1000 heads). */
  laneQueueMax?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  now?: () => Date;
}

export interface SinkStats {
  name: string;
  queued: number;
  dropped: number;
  published: number;
  failed: number;
}

export class TreeHeadPublisher<H extends { size: number }> {
  private readonly lanes: Lane[];
  private latest: H | null = null;
  private signedSize = -1;
  private soon: NodeJS.Timeout | null = null;
  private readonly schedule: NodeJS.Timeout | null;
  private stopped = false;

  constructor(private readonly o: PublisherOptions<H>) {
    const names = new Set<string>();
    for (const s of o.sinks) {
      if (names.has(s.name)) throw new RangeError(`two checkpoint sinks are named ${s.name}`);
      names.add(s.name);
    }
    this.lanes = o.sinks.map((s) => new Lane(s, { log: o.log, ...(o.laneQueueMax ? { queueMax: o.laneQueueMax } : {}), ...(o.backoffMinMs ? { backoffMinMs: o.backoffMinMs } : {}), ...(o.backoffMaxMs ? { backoffMaxMs: o.backoffMaxMs } : {}) }));
    this.schedule = o.scheduleMs > 0 ? setInterval(() => this.publishNow(), o.scheduleMs) : null;
    this.schedule?.unref();
  }

  /** Called after every append with the new head and the kinds of the entries appended. */
  note(head: H, kinds: readonly EntryKind[] = []): void {
    if (this.stopped) return;
    this.latest = head;
    if (this.o.coalesceMs <= 0) return this.publishNow();
    if (!kinds.some((k) => URGENT_KINDS.has(k))) return;
    this.soon ??= setTimeout(() => this.publishNow(), this.o.coalesceMs);
  }

  /** Signs the latest head, if the log grew since the last one, and offers it to every sink. */
  publishNow(): void {
    if (this.soon) clearTimeout(this.soon);
    this.soon = null;
    const head = this.latest;
    if (!head || head.size === this.signedSize) return;
    let signed: TreeHead;
    try {
      signed = this.o.sign(head, (this.o.now ?? (() => new Date()))());
    } catch (e) {
      // The log itself is intact; a missed head only widens the window in which a cut tail goes unseen.
      this.o.log(`cannot sign a tree head of size ${head.size}: ${printable((e as Error).message)}`);
      return;
    }
    this.signedSize = head.size;
    for (const lane of this.lanes) lane.offer(signed);
  }

  stats(): SinkStats[] {
    return this.lanes.map((l) => ({ name: l.sink.name, queued: l.queued, dropped: l.dropped, published: l.published, failed: l.failed }));
  }

  /** Signs the last head and waits (at most timeoutMs) until every sink has it or has failed. */
  async flush(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.publishNow();
    await Promise.all(this.lanes.map((l) => l.idle(timeoutMs)));
    const left = Math.max(0, deadline - Date.now());
    await Promise.all(this.lanes.map((l) => l.sink.flush?.(left)));
  }

  /** flush(), then no more heads: the lanes stop and the sinks close. */
  async stop(timeoutMs = 5_000): Promise<void> {
    if (this.stopped) return;
    await this.flush(timeoutMs);
    this.stopped = true;
    if (this.schedule) clearInterval(this.schedule);
    if (this.soon) clearTimeout(this.soon);
    for (const l of this.lanes) l.stop();
    // A sink that hangs in close() (a server that never answers) does not keep the daemon from stopping.
    const closeOne = (l: Lane) =>
      Promise.race([
        l.sink.close().catch((e) => this.o.log(`checkpoint sink ${l.sink.name}: close failed: ${printable((e as Error).message)}`)),
        new Promise<void>((r) => setTimeout(r, timeoutMs).unref()),
      ]);
    await Promise.all(this.lanes.map(closeOne));
  }
}
