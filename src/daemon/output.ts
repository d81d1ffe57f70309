/**
 * The one path through which any byte of command or file output leaves the daemon.
 * Masks secrets (src/mask: each becomes `⟦secret:KIND⟧`, and with the policy's
 * `[masking] pseudonyms` e-mail and IP addresses and host names become keyed pseudonyms),
 * then caps lines and line length and escapes control and bidirectional characters
 * (src/protocol/escape-text.ts). Masking comes first, on the whole output as a stream
 * across its pieces: a cap or a piece boundary that cut a secret in two would leave each
 * half unrecognisable. Previews, summaries and error messages go through `maskForClient`
 * and `maskValueForClient` here too, so no caller can forget it.
 */
import { maskDeep } from '../mask/deep.js';
import { addCounts, maskText, type MaskCounts, type MaskOptions } from '../mask/mask.js';
import type { Pseudonyms } from '../mask/pseudonyms.js';
import { MaskStream } from '../mask/stream.js';
import type { AirlockError, WireError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';

export const MAX_OUTPUT_LINES = 2000;
export const MAX_LINE_LENGTH = 4096;
/** All lines together: a result must fit a frame with room to spare. */
export const MAX_OUTPUT_CHARS = 512 * 1024;

/** The policy's pseudonyms (none by default); the service sets them when it loads a policy. */
let options: MaskOptions = {};
export function usePseudonyms(p: Pseudonyms | null): void {
  options = p && p.active ? { pseudonyms: p } : {};
}

export interface CappedOutput {
  lines: string[];
  truncated: boolean;
  /** What masking replaced, per kind (the signed log records these counts). */
  masked: MaskCounts;
}

/** One line of host or agent text for a client: masked, then escaped. */
export function maskForClient(text: string, counts?: MaskCounts): string {
  const m = maskText(text, options);
  if (counts) addCounts(counts, m.counts);
  return escapeText(m.text);
}

/** An error as it leaves the daemon: its message and hint masked like any host text, then escaped. */
export function errorForClient(err: AirlockError): WireError {
  return err.toWire((t) => maskText(t, options).text);
}

/** A JSON value for a client (preview state and change): every string masked, then escaped by the caller. */
export function maskValueForClient<T>(value: T, counts: MaskCounts = {}): T {
  return maskDeep(value, options, counts).value;
}

/** A mask stream with the policy's options: what streamed output (output-stream.ts) is masked with, as releaseOutput masks. */
export function outputMaskStream(): MaskStream {
  return new MaskStream(options);
}

/**
 * One masked line as it leaves the daemon: cut at MAX_LINE_LENGTH (never inside a surrogate
 * pair, ending with `…`), then escaped: control and bidirectional characters would let output
 * repaint a terminal or reorder what a person reads. Tab stays (layout only, see
 * escape-text.ts); the escapes may make a line longer.
 */
export function releaseLine(raw: string): { line: string; cut: boolean } {
  if (raw.length <= MAX_LINE_LENGTH) return { line: escapeText(raw, 'block'), cut: false };
  const end = /[\ud800-\udbff]/.test(raw[MAX_LINE_LENGTH - 1]!) ? MAX_LINE_LENGTH - 1 : MAX_LINE_LENGTH;
  return { line: escapeText(raw.slice(0, end) + '…', 'block'), cut: true };
}

/**
 * `unmasked`: the clear output an approver asked for with an unmasking approval
 * (docs/security.md); it is still capped and escaped, and still counted.
 */
export function releaseOutput(chunks: string[], maxLines = MAX_OUTPUT_LINES, unmasked = false): CappedOutput {
  // Each piece is one program's output or one file: it ends its own last line.
  const pieces = chunks.map((c) => (c.endsWith('\n') || c === '' ? c : c + '\n'));
  const stream = new MaskStream(options);
  const masked = pieces.map((p) => stream.push(p)).join('') + stream.end(); // counted even when unmasked
  const lines: string[] = [];
  let truncated = false;
  let chars = 0;
  const parts = (unmasked ? pieces.join('') : masked).split('\n');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  for (const raw of parts) {
    if (lines.length >= maxLines || chars >= MAX_OUTPUT_CHARS) {
      truncated = true;
      break;
    }
    const { line, cut } = releaseLine(raw);
    truncated ||= cut;
    lines.push(line);
    chars += line.length + 1;
  }
  return { lines, truncated, masked: stream.counts };
}
