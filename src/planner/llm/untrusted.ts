/**
 * What the host says goes back to the model as data, never as instructions: a query's
 * output (or its error) is masked (the daemon masked it; this is the client's second
 * look), its control, bidirectional and invisible characters escaped, cut to
 * maxToolOutputChars, and wrapped in one <untrusted-output> element the system prompt
 * tells the model never to obey. Text that tries to close or open the element itself is
 * defused, so the host cannot end the wrapping early.
 */
import { maskText } from '../../mask/mask.js';
import { escapeText } from '../../protocol/escape-text.js';

export const UNTRUSTED_TAG = 'untrusted-output';
const TAG_LIKE = /<\s*(\/?)\s*untrusted-output/gi;

export function wrapUntrusted(tool: string, lines: string[], maxChars: number): string {
  let body = escapeText(maskText(lines.join('\n')).text, 'block').replace(TAG_LIKE, (_m, slash: string) => `<${slash}untrusted-output-text`);
  let cut = '';
  if (body.length > maxChars) {
    const keep = body.slice(0, maxChars).replace(/[\ud800-\udbff]$/, ''); // never half a surrogate pair
    cut = `\n[cut: ${body.length - keep.length} more characters not shown]`;
    body = keep;
  }
  return `<${UNTRUSTED_TAG} tool=${JSON.stringify(tool)}>\n${body}${cut}\n</${UNTRUSTED_TAG}>`;
}
