/**
 * Output streamed to the requester while its `execute` runs (docs/protocol.md, "Output
 * notifications"): a long apt install shows its progress as it comes instead of after a
 * minute of silence. It is the final output's twin: the same mask (one MaskStream across
 * the pieces, as releaseOutput masks them), the same line cut and escape (releaseLine),
 * and the final result still carries the output whatever was streamed.
 *
 * Masking runs in the mask pool (output.ts): chunks wait in `inbox` while the stream's
 * worker masks the previous ones, and go to it together, in order; at most
 * STREAM_WAITING_CHARS wait. `finish` waits for the last of them. The first chunks wait
 * up to STREAM_FLUSH_MS (lines are batched that long anyway) while they are at most
 * INLINE_CHARS: an output that ends by then (a file read, a short program) is not streamed at
 * all, since the result that follows at once carries it (the protocol lets a client ignore
 * notices altogether).
 *
 * Everything here is bounded and nothing waits for the client: lines are batched (at most
 * STREAM_LINES_PER_NOTE lines and about STREAM_NOTE_CHARS characters per notification, sent
 * at least every STREAM_FLUSH_MS), at most
 * STREAM_MAX_CHARS are streamed per transaction, and a batch the connection has no room for
 * (the client does not read) is dropped and counted; the next notification that goes out
 * says how many lines were not streamed. The executor only hands chunks over.
 */
import { INLINE_CHARS, MAX_LINE_LENGTH, MAX_OUTPUT_CHARS, outputMaskStream, releaseLine } from './output.js';
import type { OutputNotice } from '../protocol/messages.js';

export const STREAM_LINES_PER_NOTE = 100;
/** Characters per notification, at most (plus one line): a notice stays far below a frame (MAX_FRAME) whatever its lines hold. */
export const STREAM_NOTE_CHARS = 64 * 1024;
export const STREAM_FLUSH_MS = 100;
/** Characters streamed per transaction, at most: what a final result keeps too. */
export const STREAM_MAX_CHARS = MAX_OUTPUT_CHARS;
/**
 * Output waiting for the mask, at most (two programs' byte caps, executor.ts's MAX_STREAM_BYTES): past it, nothing more is
 * streamed and the rest is counted as not streamed. It is never skipped over to go on: text
 * after a gap could hold the unrecognisable tail of a secret whose start went before it.
 */
export const STREAM_WAITING_CHARS = 2 * 1024 * 1024;

/**
 * Sends one notice to the requesting connection, or returns false when the connection has no
 * room (its client is behind) or is gone; `last`: the one that ends the stream, always sent
 * while the connection is open (one small frame per execute).
 */
export type NoticeSink = (notice: Omit<OutputNotice, 'type' | 'request_id' | 'event'>, last: boolean) => boolean;

/** What the executor feeds: each command's standard output (or file read) in chunks, then the end of that piece. */
export interface OutputFeed {
  chunk(text: string): void;
  endPiece(): void;
}

export class OutputStream implements OutputFeed {
  /** The worker's stream, from the first hand-over on (never, for an output masked whole at `finish`). */
  private mask: ReturnType<typeof outputMaskStream> | null = null;
  /** While nothing went to the mask yet: the timer that hands the first chunks over after STREAM_FLUSH_MS. */
  private holding: NodeJS.Timeout | null = null;
  /** Masked text after the last complete line. */
  private partial = '';
  /** The current line grew past MAX_LINE_LENGTH and was sent cut: the rest of it is skipped. */
  private skipping = false;
  /** Whether the piece being fed so far ends with a newline (a piece ends its own last line, as in releaseOutput). */
  private pieceOpen = false;
  private batch: string[] = [];
  private batchChars = 0;
  private chars = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | null = null;
  private ended = false;
  /** Output not yet handed to the mask, and the run that hands it over while there is some. */
  private inbox = '';
  private masking: Promise<void> | null = null;
  /** More output came than may wait (STREAM_WAITING_CHARS): the rest is counted, not streamed. */
  private overflow = false;
  get overflowed(): boolean {
    return this.overflow;
  }

  constructor(
    private readonly transactionId: string,
    private readonly send: NoticeSink,
  ) {}

  chunk(text: string): void {
    if (this.ended || text === '') return;
    this.pieceOpen = !text.endsWith('\n');
    if (this.overflow || this.inbox.length + text.length > STREAM_WAITING_CHARS) {
      this.overflow = true;
      this.dropped += newlines(text);
      return;
    }
    this.inbox += text;
    if (this.mask === null && this.inbox.length <= INLINE_CHARS) {
      this.holding ??= setTimeout(() => this.handOver(), STREAM_FLUSH_MS);
      return;
    }
    this.handOver();
  }

  /** Starts (or goes on) handing what waits to the worker's stream. */
  private handOver(): void {
    if (this.holding) clearTimeout(this.holding);
    this.holding = null;
    this.mask ??= outputMaskStream();
    this.masking ??= this.drain().finally(() => (this.masking = null));
  }

  /** Hands what waits to the mask, in order, until nothing waits. */
  private async drain(): Promise<void> {
    while (this.inbox !== '') {
      const piece = this.inbox;
      this.inbox = '';
      this.take(await this.mask!.push(piece));
    }
  }

  endPiece(): void {
    if (this.pieceOpen) this.chunk('\n');
    this.pieceOpen = false;
  }

  /** The end of the execution: what the mask still holds, the last batch, and the count of lines not streamed. */
  async finish(): Promise<void> {
    if (this.ended) return;
    this.ended = true; // chunks after this are not streamed
    if (this.mask === null) {
      // Nothing went out yet: the execution ended within STREAM_FLUSH_MS with at most
      // INLINE_CHARS of output (a file read, a short program). The result, right behind,
      // carries all of it: streaming it too would mask it twice and send it twice.
      if (this.holding) clearTimeout(this.holding);
      this.holding = null;
      this.inbox = '';
      return;
    } else {
      while (this.masking) await this.masking;
      this.take(await this.mask.end());
    }
    // After an overflow the open line's end was counted with what was not streamed.
    if (this.partial !== '' && !this.overflow) this.line(this.partial);
    this.partial = '';
    this.flush(true);
  }

  private take(masked: string): void {
    let text = masked;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
      const rest = text.slice(0, nl);
      if (this.skipping) this.skipping = false;
      else this.line(this.partial + rest);
      this.partial = '';
      text = text.slice(nl + 1);
    }
    if (this.skipping) return;
    this.partial += text;
    // A line longer than a result keeps is sent cut now, not held: the stream holds at most one line.
    if (this.partial.length > MAX_LINE_LENGTH) {
      this.line(this.partial);
      this.partial = '';
      this.skipping = true;
    }
  }

  private line(raw: string): void {
    if (this.chars >= STREAM_MAX_CHARS) {
      this.dropped++;
      return;
    }
    const { line } = releaseLine(raw);
    this.batch.push(line);
    this.chars += line.length + 1;
    this.batchChars += line.length + 1;
    if (this.batch.length >= STREAM_LINES_PER_NOTE || this.batchChars >= STREAM_NOTE_CHARS) this.flush(false);
    else this.timer ??= setTimeout(() => this.flush(false), STREAM_FLUSH_MS);
  }

  private flush(last: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.batch.length === 0 && this.dropped === 0 && !last) return;
    const lines = this.batch;
    this.batch = [];
    this.batchChars = 0;
    if (this.send({ transaction_id: this.transactionId, lines, not_streamed: this.dropped, ...(last ? { last: true as const } : {}) }, last)) this.dropped = 0;
    else this.dropped += lines.length;
  }
}

function newlines(text: string): number {
  let n = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  return n;
}
