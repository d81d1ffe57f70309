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
import { addCounts, maskAfter, secretSpans, type MaskCounts, type MaskOptions } from './mask.js';

/** The most text the stream holds back waiting for a line's end or a key's END. */
export const HOLD_LIMIT = 256 * 1024;
/** How much of an overlong line stays held after a cut, so a secret at its end is seen whole. */
const CUT_MARGIN = 16 * 1024;
/** Longer than any END line (`-----END ` + a label + `-----`): what is kept of earlier pieces to find one split over pieces. */
const TAIL = 128;
/**
 * How much released text is read again before the next: the lines that name what follows
 * them (a command and its output, a heading and its codes, `Using certificate key:` and
 * the key). Bounded: each release reads at most this much more.
 */
export const CONTEXT = 2048;

/** At most this many times what is released is read again as context. */
const REREAD = 4;
/**
 * What in released lines may name the lines after them (transcripts.ts, service-keys.ts,
 * assignments.ts' name alone on its line and name/value pairs): a prompt, a heading's
 * `codes`, a redis-cli reply, a google-authenticator option, a line that ends in `:`, a
 * Consul `tokens {` block, a `name:`/`key:`/`keyName:` field.
 */
const CONTEXT_TRIGGER = /[$#][ \t]|[Cc](?:odes?|ODES?)\b|\) "|^" |:[ \t]*\r?$|tokens"?[ \t]*[:=]?[ \t]*\{|\b(?:[Nn]ame|[Kk]ey|[Kk]eyName)["']?[ \t]*[:=]/m;

/** The last whole lines of `text`, at most CONTEXT characters ('' when its last line alone is longer). */
function lastLines(text: string): string {
  if (text.length <= CONTEXT && (text === '' || text.endsWith('\n'))) return text;
  const end = text.lastIndexOf('\n') + 1; // what follows the last newline is a line cut short: not context
  if (end <= CONTEXT) return text.slice(0, end);
  const from = text.indexOf('\n', end - CONTEXT - 1) + 1; // the first whole line within the bound
  return from > 0 && from < end ? text.slice(from, end) : '';
}

/** Where an overlong line may be cut: a character no credential contains. */
const SEPARATOR = /[\s,;"'<>{}()[\]]/;

export class MaskStream {
  private held = '';
  /** The END line of a key that outgrew HOLD_LIMIT: until it comes, input is dropped. */
  private dropUntil: string | null = null;
  /**
   * What is known of `held` so far, kept as pieces come so that each push reads only what
   * it added (a long line in small pieces, or a key a line at a time, would otherwise be
   * read again whole on every push): where its complete lines end, how far its complete
   * lines were read for key armour, and the key still open there (its BEGIN's line start).
   */
  private complete = 0;
  private keysReadTo = 0;
  private open: { at: number; lineStart: number; label: string } | null = null;
  /** The last TAIL characters pushed before this piece, and those with this piece: an END split over two pieces is still seen. */
  private tail = '';
  private recent = '';
  /** The last lines released (at most CONTEXT characters, whole lines), read again before what follows them. */
  private context = '';
  /** How much was released, how much of it was read again as context, and where the last trigger was released. */
  private released = 0;
  private reread = 0;
  private triggerAt = -Infinity;
  readonly counts: MaskCounts = {};
  constructor(private readonly opts: MaskOptions = {}) {}

  /** Adds a piece; returns the masked text that is now safe to release (possibly ''). */
  push(piece: string): string {
    this.held += piece;
    this.recent = this.tail + piece;
    this.tail = (this.tail + piece.slice(-TAIL)).slice(-TAIL);
    if (this.dropUntil !== null) {
      if (!this.skipKey()) return '';
      this.forgetReading(); // skipKey replaced what is held
      this.complete = this.held.lastIndexOf('\n') + 1;
    } else {
      const nl = piece.lastIndexOf('\n');
      if (nl >= 0) this.complete = this.held.length - piece.length + nl + 1;
    }
    this.readKeys();
    const cut = this.open ? this.open.lineStart : this.complete;
    if (this.held.length <= HOLD_LIMIT) return this.release(cut);
    const key = lastUnclosedKey(this.held);
    if (key) {
      // A key longer than the bound: mask it from its BEGIN, drop the rest of it as it comes.
      const before = this.release(key.at);
      this.held = `-----BEGIN ${key.label}-----`; // masked (to its end, as a key without END) and counted once
      this.forgetReading();
      const masked = this.release(this.held.length);
      this.dropUntil = keyEnd(key.label);
      return before + masked + (this.skipKey() ? (this.forgetReading(), this.push('')) : '');
    }
    if (cut > 0) return this.release(cut);
    return this.release(this.safeCut());
  }

  /** Reads the complete lines not read yet for key armour: an open key's END, then any BEGIN after it. */
  private readKeys(): void {
    let from = this.keysReadTo;
    const upTo = this.complete;
    while (from < upTo) {
      if (this.open) {
        const end = keyEnd(this.open.label);
        // Its END is looked for in what this push added (and the few characters before it) first:
        // reading the held key itself on every push would read a key sent a line at a time once per line.
        if (!this.recent.includes(end)) break;
        const at = this.held.slice(from, upTo).indexOf(end);
        if (at < 0) break;
        from += at + end.length;
        this.open = null;
        continue;
      }
      const lines = this.held.slice(from, upTo);
      if (!lines.includes('-----BEGIN ')) break;
      KEY_BEGIN.lastIndex = 0;
      const m = KEY_BEGIN.exec(lines);
      if (!m) break;
      const at = from + m.index;
      this.open = { at, lineStart: this.held.lastIndexOf('\n', at) + 1, label: m[1]! };
      from = at + m[0].length;
    }
    this.keysReadTo = upTo;
  }

  private forgetReading(): void {
    this.complete = 0;
    this.keysReadTo = 0;
    this.open = null;
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
    // What was known of the held text moves with it.
    this.complete = Math.max(0, this.complete - cut);
    this.keysReadTo = Math.max(0, this.keysReadTo - cut);
    if (this.open && this.open.lineStart >= cut) this.open = { ...this.open, at: this.open.at - cut, lineStart: this.open.lineStart - cut };
    else if (this.open) this.open = null; // released with what it was in (a key masked to its end)
    if (ready === '') return '';
    // The lines before are read again only when they may name what follows (a trigger in them),
    // and never more than REREAD times what is released: a stream of tiny pieces costs a bounded factor.
    const useContext = this.triggerAt > this.released - CONTEXT && this.reread + this.context.length <= REREAD * (this.released + ready.length) + CONTEXT;
    const m = maskAfter(useContext ? this.context : '', ready, this.opts);
    if (useContext) this.reread += this.context.length;
    addCounts(this.counts, m.counts);
    this.released += ready.length;
    if (CONTEXT_TRIGGER.test(ready)) this.triggerAt = this.released;
    this.context = lastLines(this.context + ready);
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
