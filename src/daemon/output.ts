/**
 * The one path through which any byte of command or file output leaves the
 * daemon. Caps lines and line length and escapes control and bidirectional
 * characters (src/protocol/escape-text.ts) here; masking of secrets will live here too,
 * so no caller can forget it.
 */
import { escapeText } from '../protocol/escape-text.js';

export const MAX_OUTPUT_LINES = 2000;
export const MAX_LINE_LENGTH = 4096;
/** All lines together: a result must fit a frame with room to spare. */
export const MAX_OUTPUT_CHARS = 512 * 1024;

export interface CappedOutput {
  lines: string[];
  truncated: boolean;
}

export function releaseOutput(chunks: string[], maxLines = MAX_OUTPUT_LINES): CappedOutput {
  const lines: string[] = [];
  let truncated = false;
  let chars = 0;
  for (const chunk of chunks) {
    const parts = chunk.split('\n');
    if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
    for (const raw of parts) {
      if (lines.length >= maxLines || chars >= MAX_OUTPUT_CHARS) {
        truncated = true;
        break;
      }
      // Cut first (never inside a surrogate pair), then escape: control and bidirectional
      // characters would let output repaint a terminal or reorder what a person reads. Tab
      // stays (layout only, see escape-text.ts); the escapes may make a line longer.
      let cut = raw;
      if (cut.length > MAX_LINE_LENGTH) {
        const end = /[\ud800-\udbff]/.test(cut[MAX_LINE_LENGTH - 1]!) ? MAX_LINE_LENGTH - 1 : MAX_LINE_LENGTH;
        cut = cut.slice(0, end) + '…';
        truncated = true;
      }
      const line = escapeText(cut, 'block');
      lines.push(line);
      chars += line.length + 1;
    }
  }
  return { lines, truncated };
}
