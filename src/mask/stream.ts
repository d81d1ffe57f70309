/**
 * Masking of text that arrives in pieces (a program's output, a file read 64 KiB at a
 * time): a secret split over two pieces is still masked. The unit every detector needs is
 * the line, except private keys, whose armour spans lines; so the stream releases text up
 * to the last complete line, and holds back from an unclosed `-----BEGIN ... PRIVATE KEY`
 * until its END arrives. What it holds is bounded: a line or key longer than HOLD_LIMIT
 * is masked as it is once the bound is reached (a key cut there has no END, so it is
 * masked to the cut, fail closed).
 */
import { addCounts, maskText, type MaskCounts, type MaskOptions } from './mask.js';

/** The most text the stream holds back waiting for a line's end or a key's END. */
export const HOLD_LIMIT = 256 * 1024;
const OPEN_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;

export class MaskStream {
  private held = '';
  readonly counts: MaskCounts = {};
  constructor(private readonly opts: MaskOptions = {}) {}

  /** Adds a piece; returns the masked text that is now safe to release (possibly ''). */
  push(piece: string): string {
    this.held += piece;
    let cut = this.held.lastIndexOf('\n') + 1;
    const open = lastUnclosedKey(this.held.slice(0, cut));
    if (open >= 0) cut = this.held.lastIndexOf('\n', open) + 1;
    if (cut === 0 && this.held.length <= HOLD_LIMIT) return '';
    if (this.held.length > HOLD_LIMIT && cut === 0) cut = this.held.length;
    return this.release(cut);
  }

  /** The rest, masked. */
  end(): string {
    return this.release(this.held.length);
  }

  private release(cut: number): string {
    const ready = this.held.slice(0, cut);
    this.held = this.held.slice(cut);
    if (ready === '') return '';
    const m = maskText(ready, this.opts);
    addCounts(this.counts, m.counts);
    return m.text;
  }
}

/** Where the last private-key BEGIN without its END starts in `text`, or -1. */
function lastUnclosedKey(text: string): number {
  if (!text.includes('PRIVATE KEY')) return -1;
  let open = -1;
  OPEN_KEY.lastIndex = 0;
  for (let m; (m = OPEN_KEY.exec(text)); ) {
    const end = text.indexOf(m[0].replace('BEGIN', 'END'), m.index + m[0].length);
    if (end < 0) return m.index;
    OPEN_KEY.lastIndex = end;
    open = -1;
  }
  return open;
}
