/**
 * Masking of text that arrives in pieces (a program's output, a file read 64 KiB at a
 * time): a secret split over two pieces is still masked. The unit every detector needs is
 * the line, except private keys, whose armour spans lines; so the stream releases text up
 * to the last complete line, and holds back from an unclosed `-----BEGIN ... PRIVATE KEY`
 * until its END arrives. What it holds is bounded by HOLD_LIMIT: past it, a long line is
 * masked as it stands, and a key still open is masked and everything after it dropped
 * until its END line (fail closed: no line of a key comes out, however long it is).
 */
import { addCounts, maskText, type MaskCounts, type MaskOptions } from './mask.js';

/** The most text the stream holds back waiting for a line's end or a key's END. */
export const HOLD_LIMIT = 256 * 1024;
const OPEN_KEY = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----/g;

export class MaskStream {
  private held = '';
  /** The END line of a key that outgrew HOLD_LIMIT: until it comes, input is dropped. */
  private dropUntil: string | null = null;
  readonly counts: MaskCounts = {};
  constructor(private readonly opts: MaskOptions = {}) {}

  /** Adds a piece; returns the masked text that is now safe to release (possibly ''). */
  push(piece: string): string {
    this.held += piece;
    if (this.dropUntil !== null && !this.skipKey()) return '';
    let cut = this.held.lastIndexOf('\n') + 1;
    const open = lastUnclosedKey(this.held.slice(0, cut));
    if (open) cut = this.held.lastIndexOf('\n', open.at) + 1;
    if (this.held.length <= HOLD_LIMIT) return this.release(cut);
    if (open) {
      // A key longer than the bound: mask it from its BEGIN, drop the rest of it as it comes.
      const before = this.release(open.at);
      this.held = `-----BEGIN ${open.label}-----`; // masked (to its end, as a key without END) and counted once
      const key = this.release(this.held.length);
      this.dropUntil = `-----END ${open.label}-----`;
      return before + key + (this.skipKey() ? this.push('') : '');
    }
    return this.release(cut === 0 ? this.held.length : cut);
  }

  /** The rest, masked. */
  end(): string {
    if (this.dropUntil !== null) {
      this.held = '';
      return '';
    }
    return this.release(this.held.length);
  }

  /** Drops held text up to the awaited END line; false while it has not come (keeping a tail that may start it). */
  private skipKey(): boolean {
    const at = this.held.indexOf(this.dropUntil!);
    if (at < 0) {
      this.held = this.held.slice(-this.dropUntil!.length);
      return false;
    }
    this.held = this.held.slice(at + this.dropUntil!.length);
    this.dropUntil = null;
    return true;
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

/** The last private-key BEGIN in `text` without its END: where it starts and its label. */
function lastUnclosedKey(text: string): { at: number; label: string } | null {
  if (!text.includes('PRIVATE KEY')) return null;
  OPEN_KEY.lastIndex = 0;
  for (let m; (m = OPEN_KEY.exec(text)); ) {
    const label = `${m[1]}PRIVATE KEY${m[2] ?? ''}`;
    const end = text.indexOf(`-----END ${label}-----`, m.index + m[0].length);
    if (end < 0) return { at: m.index, label };
    OPEN_KEY.lastIndex = end;
  }
  return null;
}
