/**
 * Output lines as an agent receives them. The daemon caps and cleans a job's output
 * already (src/daemon/output.ts); this is the client's own bound, so an answer that
 * reaches the agent's context stays small whatever a daemon of another version sends,
 * and no control character reaches it (an escape sequence could repaint the terminal the
 * person reads the transcript in, a CR could print over a line).
 */
import { escapeText } from '../protocol/escape-text.js';

/** Lines per step: enough for a listing, a fraction of a model's context. */
export const MAX_OUTPUT_LINES = 200;
/** Characters per line, before escaping. */
export const MAX_LINE_CHARS = 2000;

export interface AgentLines {
  lines: string[];
  /** Lines or characters were left out here (or by the daemon, when it said so). */
  truncated: boolean;
}

/** Splits embedded line breaks, caps the count and each line's length, and escapes every control character. Pure. */
export function agentLines(output: readonly string[], daemonTruncated = false): AgentLines {
  let truncated = daemonTruncated;
  const lines: string[] = [];
  for (const raw of output) {
    for (const part of String(raw).split(/\r?\n/)) {
      if (lines.length >= MAX_OUTPUT_LINES) return { lines, truncated: true };
      const chars = Array.from(part); // whole code points: a cut never splits a surrogate pair
      const cut = chars.length > MAX_LINE_CHARS;
      if (cut) truncated = true;
      // 'block' keeps tabs (layout); the split above took the newlines out.
      lines.push(escapeText(cut ? chars.slice(0, MAX_LINE_CHARS).join('') + '…' : part, 'block'));
    }
  }
  return { lines, truncated };
}
