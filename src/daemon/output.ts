/**
 * The one path through which any byte of command or file output leaves the daemon.
 * Masks secrets (src/mask: each becomes `⟦secret:KIND⟧`, and with the policy's
 * `[masking] pseudonyms` e-mail and IP addresses and host names become keyed pseudonyms),
 * then caps lines and line length and escapes control and bidirectional characters
 * (src/protocol/escape-text.ts). Masking comes first, on the whole output as a stream
 * across its pieces: a cap or a piece boundary that cut a secret in two would leave each
 * half unrecognisable. Previews, summaries and error messages go through `maskForClient`
 * and `maskValueForClient` here too, so no caller can forget it.
 *
 * Masking runs in the mask pool's worker threads (src/mask/pool.ts), on behalf of the
 * principal the request runs for (run-context.ts), each task with a deadline: text whose
 * masking misses it is shown as WITHHELD, never unmasked, and the event loop never waits
 * for the masker on more than a few kilobytes. The masking done here, on the loop, is
 * bounded work whatever the text: a quoted value already cut to QUOTE_WINDOW characters
 * (`quoteForClient`), and a task of at most INLINE_CHARS characters (`run`; INLINE_TURN_CHARS in all per turn of the loop), which costs
 * less here than a worker's round trip.
 */
import { addCounts, maskText, type MaskCounts, type MaskOptions } from '../mask/mask.js';
import { MaskPool, PoolBusy, TIMED_OUT, WITHHELD, WITHHELD_KIND, WITHHELD_REST, type MaskReply, type PooledStream, type PseudonymSpec, type WholeMaskOp } from '../mask/pool.js';
import { Pseudonyms, type PseudonymClass } from '../mask/pseudonyms.js';
import { maskTask } from '../mask/task.js';
import { AirlockError, type WireError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { runContext } from './run-context.js';

export const MAX_OUTPUT_LINES = 2000;
export const MAX_LINE_LENGTH = 4096;
/** All lines together: a result must fit a frame with room to spare. */
export const MAX_OUTPUT_CHARS = 512 * 1024;
/** A piece of output goes to a worker in parts of at most this many characters, each with its own deadline. */
const PUSH_CHARS = 256 * 1024;
/**
 * How much of a quoted value is masked before it is cut to what is shown: the shown part
 * and a margin, so a secret that starts in the shown part and is not longer than the
 * margin is seen whole, and masking a quote costs the same for 100 characters or 1 MiB.
 */
export const QUOTE_WINDOW = 512;
/**
 * A task of at most this many characters is masked here, on the event loop, not in a worker.
 * The masker is linear (mask-linear.test.ts: 64 KB of every adversarial pattern within 8x of
 * ordinary text), so this holds the loop at most about 0.2 ms (the bench's floor for the worst
 * input is 20 MB/s): less than a worker's round trip, two messages and the wake-up of a thread
 * that runs at a lower priority (pool.ts, WORKER_NICE), which `npm run bench`'s profile showed
 * costing a read's lifecycle more than the masking itself. A request's parameters, a preview's
 * state and a read's output are mostly far smaller.
 */
export const INLINE_CHARS = 4096;

/** The policy's pseudonyms (none by default); the service sets them when it loads a policy. */
let pseudonyms: PseudonymSpec | null = null;
let options: MaskOptions = {};
export function usePseudonyms(key: Buffer, classes: readonly PseudonymClass[]): void {
  const p = new Pseudonyms(key, classes);
  pseudonyms = p.active ? { keyHex: key.toString('hex'), classes: [...classes] } : null;
  options = p.active ? { pseudonyms: p } : {};
}

/** The daemon's mask pool, started on first use; `onOverrun` (the daemon's log) hears of each task that missed its deadline. */
let pool: MaskPool | null = null;
let overrunLog: (line: string) => void = () => {};
export function maskPool(): MaskPool {
  return (pool ??= new MaskPool(undefined, (principal, chars) => overrunLog(`masking ${chars} characters for ${principal} missed its deadline: withheld, and the worker was replaced`)));
}
export function logMaskOverruns(log: (line: string) => void): void {
  overrunLog = log;
}

const principal = () => runContext().principal;

/**
 * Characters masked on the loop in this turn of it, all tasks together: past INLINE_TURN_CHARS
 * the rest go to the workers, so many small tasks (a preview's fields, many connections' errors)
 * never add up to a stall: the loop masks at most this much between two of its turns.
 */
export const INLINE_TURN_CHARS = 2 * INLINE_CHARS;
let inlineThisTurn = 0;
function inlineRoom(chars: number): boolean {
  if (chars > INLINE_CHARS || inlineThisTurn + chars > INLINE_TURN_CHARS) return false;
  if (inlineThisTurn === 0) setImmediate(() => (inlineThisTurn = 0));
  inlineThisTurn += chars;
  return true;
}

async function run(msg: WholeMaskOp, chars: number, who = principal()): Promise<MaskReply | typeof TIMED_OUT> {
  if (inlineRoom(chars)) {
    try {
      return maskTask(msg);
    } catch {
      return TIMED_OUT; // as a worker's failure: the text is withheld (fail closed)
    }
  }
  try {
    return await maskPool().run(who, msg, chars);
  } catch (e) {
    if (e instanceof PoolBusy) throw new AirlockError('transient', 'masking_busy', 'too much of your text is waiting to be masked', 'wait for your other requests to finish, then retry');
    throw e;
  }
}

export interface CappedOutput {
  lines: string[];
  truncated: boolean;
  /** What masking replaced, per kind (the signed log records these counts). */
  masked: MaskCounts;
}

/** Texts for a client, each masked (WITHHELD when masking missed its deadline), not yet escaped; counts are added to `counts`. */
export async function maskTexts(texts: string[], counts?: MaskCounts, who?: string): Promise<string[]> {
  if (texts.length === 0) return [];
  const chars = texts.reduce((n, t) => n + t.length, 0);
  const r = await run({ op: 'texts', texts, pseudonyms }, chars, who);
  if (r === TIMED_OUT || !r.texts || r.texts.length !== texts.length) {
    if (counts) addCounts(counts, { [WITHHELD_KIND]: texts.length });
    return texts.map(() => WITHHELD);
  }
  if (counts) addCounts(counts, r.counts);
  return r.texts;
}

/** One line of host or agent text for a client: masked, then escaped. */
export async function maskForClient(text: string, counts?: MaskCounts): Promise<string> {
  return escapeText((await maskTexts([text], counts))[0]!);
}

/** Several, as maskForClient masks one. */
export async function masksForClient(texts: string[], counts?: MaskCounts): Promise<string[]> {
  return (await maskTexts(texts, counts)).map((t) => escapeText(t));
}

/**
 * An error as it leaves the daemon: its message and hint masked like any host text, then
 * escaped. `who`: the principal it is for, where the caller knows it better than the run
 * context (a connection's frame errors). Never throws: a message that cannot be masked is withheld.
 */
export async function errorForClient(err: AirlockError, who?: string): Promise<WireError> {
  // A wrong-typed parameter's name (it can be a key the client sent) and its JSON are masked with the message.
  const wrong = err.wrongTypes ?? [];
  const texts = [err.message, ...(err.hint ? [err.hint] : []), ...wrong.flatMap((w) => [w.param, w.as_json ?? ''])];
  let shown: string[];
  try {
    shown = await maskTexts(texts, undefined, who);
  } catch {
    shown = texts.map(() => WITHHELD);
  }
  const at = err.hint ? 2 : 1;
  // A JSON value the masker changed is no value to send: it is left out, the type alone is said.
  const wrongTypes = wrong.map(({ as_json, ...w }, i) => ({ ...w, param: shown[at + 2 * i]!, ...(as_json !== undefined && shown[at + 2 * i + 1] === as_json ? { as_json } : {}) }));
  return new AirlockError(err.category, err.code, shown[0]!, err.hint ? shown[1] : undefined, { wrongTypes, ...(err.next ? { next: err.next } : {}) }).toWire();
}

/**
 * A JSON value for a client (preview state and change): every string masked, then escaped
 * by the caller. A value whose masking misses its deadline is refused: an approver is never
 * shown a change with parts missing.
 */
export async function maskValueForClient<T>(value: T, counts: MaskCounts = {}): Promise<T> {
  const r = await run({ op: 'deep', value, pseudonyms }, jsonChars(value));
  if (r === TIMED_OUT || !('value' in r)) {
    throw new AirlockError('transient', 'not_masked_in_time', 'what the preview would show could not be masked within its deadline, so it is not shown', 'the host state it reads holds text the masker takes too long on; inspect it by hand');
  }
  addCounts(counts, r.counts);
  return r.value as T;
}

/** Characters a JSON value carries (what its masking deadline is measured by). */
function jsonChars(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

/**
 * A value quoted in an error or a note (a refused parameter): cut to QUOTE_WINDOW first,
 * then masked here, then cut to `max` (with …) and escaped. Masking on the event loop is
 * bounded by the window, whatever the value's size.
 */
export function quoteForClient(text: string, max: number): string {
  const window = cutAt(text, QUOTE_WINDOW);
  const masked = maskText(window, options).text;
  const cut = masked.length > max || window.length < text.length;
  return escapeText(cut ? `${cutAt(masked, max - 1)}…` : masked);
}

/** The first `n` UTF-16 units of `s`, never ending inside a surrogate pair. */
export function cutAt(s: string, n: number): string {
  if (s.length <= n) return s;
  return /[\ud800-\udbff]/.test(s[n - 1]!) ? s.slice(0, n - 1) : s.slice(0, n);
}

/** A mask stream with the policy's options, for this request's principal: what streamed output (output-stream.ts) is masked with, as releaseOutput masks. */
export function outputMaskStream(): PooledStream {
  return maskPool().stream(principal(), pseudonyms);
}

/**
 * One masked line as it leaves the daemon: cut at MAX_LINE_LENGTH (never inside a surrogate
 * pair, ending with `…`), then escaped: control and bidirectional characters would let output
 * repaint a terminal or reorder what a person reads. Tab stays (layout only, see
 * escape-text.ts); the escapes may make a line longer.
 */
export function releaseLine(raw: string): { line: string; cut: boolean } {
  if (raw.length <= MAX_LINE_LENGTH) return { line: escapeText(raw, 'block'), cut: false };
  return { line: escapeText(cutAt(raw, MAX_LINE_LENGTH) + '…', 'block'), cut: true };
}

/**
 * `unmasked`: the clear output an approver asked for with an unmasking approval
 * (docs/security.md); it is still capped and escaped, and still counted.
 */
export async function releaseOutput(chunks: string[], maxLines = MAX_OUTPUT_LINES, unmasked = false): Promise<CappedOutput> {
  // Each piece is one program's output or one file: it ends its own last line.
  const pieces = chunks.map((c) => (c.endsWith('\n') || c === '' ? c : c + '\n'));
  const { masked, counts } = await maskPieces(pieces); // counted even when unmasked
  const lines: string[] = [];
  let truncated = false;
  let chars = 0;
  const all = (unmasked ? pieces.join('') : masked).split('\n');
  if (all.length > 0 && all[all.length - 1] === '') all.pop();
  for (const raw of all) {
    if (lines.length >= maxLines || chars >= MAX_OUTPUT_CHARS) {
      truncated = true;
      break;
    }
    const { line, cut } = releaseLine(raw);
    truncated ||= cut;
    lines.push(line);
    chars += line.length + 1;
  }
  return { lines, truncated, masked: counts };
}

/** Pieces masked as one stream: here when they are small (INLINE_CHARS), else in a worker, part by part. */
export async function maskPieces(pieces: string[]): Promise<{ masked: string; counts: MaskCounts }> {
  const chars = pieces.reduce((n, p) => n + p.length, 0);
  if (chars <= INLINE_CHARS) {
    const r = await run({ op: 'pieces', pieces, pseudonyms }, chars);
    if (r === TIMED_OUT || typeof r.text !== 'string') return { masked: `${WITHHELD_REST}\n`, counts: { [WITHHELD_KIND]: 1 } };
    return { masked: r.text, counts: r.counts };
  }
  const stream = outputMaskStream();
  let masked = '';
  for (const p of pieces) for (const part of parts(p, PUSH_CHARS)) masked += await stream.push(part);
  masked += await stream.end();
  return { masked, counts: stream.counts };
}

/** `s` in parts of at most `n` UTF-16 units, no part ending inside a surrogate pair. */
function parts(s: string, n: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < s.length; ) {
    const part = cutAt(s.slice(at, at + n), n);
    out.push(part);
    at += part.length;
  }
  return out;
}
