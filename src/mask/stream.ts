/**
 * Masking of text that arrives in pieces (a program's output, a file read 64 KiB at a
 * time): a secret split over two pieces is still masked. The unit every detector needs is
 * the line, except key armour, which spans lines; so the stream releases text up to the
 * last complete line, and holds back from an unclosed BEGIN (private-keys.ts) until its
 * END arrives. What it holds is bounded by HOLD_LIMIT:
 * - a key still open past the bound is masked, and everything after it is dropped until
 *   its END line (fail closed: no line of a key comes out, however long it is);
 * - a line longer than the bound (a minified JSON document) is cut at a separator, and
 *   never inside a secret the detectors see in what is held.
 */
import { KEY_BEGIN, keyEnd } from './detectors/private-keys.js';
import { addCounts, maskText, secretSpans, type MaskCounts, type MaskOptions } from './mask.js';

/** The most text the stream holds back waiting for a line's end or a key's END. */
export const HOLD_LIMIT = 256 * 1024;
/** How much of an overlong line stays held after a cut, so a secret at its end is seen whole. */
const CUT_MARGIN = 16 * 1024;
/** Where an overlong line may be cut: a character no credential contains. */
const SEPARATOR = /[\s,;"'<>{}()[\]]/;

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
    const key = lastUnclosedKey(this.held);
    if (key) {
      // A key longer than the bound: mask it from its BEGIN, drop the rest of it as it comes.
      const before = this.release(key.at);
      this.held = `-----BEGIN ${key.label}-----`; // masked (to its end, as a key without END) and counted once
      const masked = this.release(this.held.length);
      this.dropUntil = keyEnd(key.label);
      return before + masked + (this.skipKey() ? this.push('') : '');
    }
    if (cut > 0) return this.release(cut);
    return this.release(this.safeCut());
  }

  /** The rest, masked. */
  end(): string {
    if (this.dropUntil !== null) {
      this.held = '';
      return '';
    }
    return this.release(this.held.length);
  }

  /** Where to cut one overlong line: after the last separator before the margin, moved back before any secret that spans it. */
  private safeCut(): number {
    let cut = this.held.length - CUT_MARGIN;
    while (cut > 0 && !SEPARATOR.test(this.held[cut - 1]!)) cut--;
    if (cut === 0) cut = this.held.length - CUT_MARGIN; // no separator at all: one word, cut where the bound says
    for (const s of secretSpans(this.held)) if (s.start < cut && s.end > cut) cut = s.start;
    return cut;
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

/** The last key BEGIN in `text` without its END: where it starts and its label. */
function lastUnclosedKey(text: string): { at: number; label: string } | null {
  if (!text.includes('-----BEGIN ')) return null;
  KEY_BEGIN.lastIndex = 0;
  for (let m; (m = KEY_BEGIN.exec(text)); ) {
    const end = text.indexOf(keyEnd(m[1]!), m.index + m[0].length);
    if (end < 0) return { at: m.index, label: m[1]! };
    KEY_BEGIN.lastIndex = end;
  }
  return null;
}
