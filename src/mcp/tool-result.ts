/**
 * How every tool answers: the structured result its output schema describes, and the same
 * facts as text for the model (and for a client that shows only text). Everything passes
 * through escapeDeep/escapeText first. The daemon has escaped every host and agent text
 * already; a second pass changes nothing then (escaping is idempotent), and keeps a
 * control character from a daemon of another version, or from this process, out of the
 * agent's context and the person's transcript. Secrets are masked the same way (src/mask):
 * the daemon masked everything it sent, and this pass covers what this process adds (its
 * own error messages, the doctor's findings) and a daemon of an older version.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { maskDeep } from '../mask/deep.js';
import { maskText } from '../mask/mask.js';
import { AirlockError, type WireError, type WrongType } from '../protocol/errors.js';
import { escapeDeep, escapeText } from '../protocol/escape-text.js';
import { forAgent } from './agent-hints.js';

/** A tool's answer: `isError` when what was asked did not happen (a refusal, a failed or denied step). */
export function answer<T extends object>(structured: T, text: string, isError = false): CallToolResult & { structuredContent: T } {
  return {
    content: [{ type: 'text', text: escapeText(maskText(text).text, 'block') }],
    structuredContent: escapeDeep(maskDeep(structured).value, 'block'),
    ...(isError ? { isError: true } : {}),
  };
}

/** Any thrown value as the typed error an agent can act on, its next step worded for the agent (agent-hints.ts). */
export function wireOf(e: unknown): WireError {
  return forAgent(AirlockError.of(e).toWire());
}

/** A parameter refused for its type, as an agent sends it right: in the step's `params` object, the JSON value itself. */
const jsonFix = (w: WrongType) => (w.as_json !== undefined ? `in params: ${JSON.stringify(w.param)}: ${w.as_json} (a JSON ${w.expected.join(' or ')}, not a ${w.got})` : `in params: ${JSON.stringify(w.param)} as a JSON ${w.expected.join(' or ')}, not a ${w.got}`);

/** One line a person reads: `error [category/code] message` and, when there is one, `next: hint` (and how to send a wrong-typed parameter). */
export function errorText(w: WireError): string {
  return `error [${w.category}/${w.code}] ${w.message}${w.hint ? `\nnext: ${w.hint}` : ''}${(w.wrong_types ?? []).map((t) => `\nnext: ${jsonFix(t)}`).join('')}`;
}

/** The whole call failed (the daemon unreachable, a refusal before anything was done). */
export function failure(e: unknown): CallToolResult {
  const error = wireOf(e);
  return answer({ error }, errorText(error), true);
}
