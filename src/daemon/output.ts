/**
 * The one path through which any byte of command or file output leaves the
 * daemon. Caps lines and line length here; masking of secrets will live here too,
 * so no caller can forget it.
 */
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
      // Control characters other than tab would let output repaint a terminal.
      let line = raw.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '\ufffd');
      if (line.length > MAX_LINE_LENGTH) {
        line = line.slice(0, MAX_LINE_LENGTH) + '…';
        truncated = true;
      }
      lines.push(line);
      chars += line.length + 1;
    }
  }
  return { lines, truncated };
}
