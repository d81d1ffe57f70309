/**
 * Typed error categories. Every failure that crosses the socket is one of these,
 * with a message a person can act on and, where there is one, the next step.
 */
import { escapeText } from './escape-text.js';

export const ERROR_CATEGORIES = [
  'validation', // the request is malformed or a parameter is out of range
  'authorization', // the caller's role or approver capability does not allow this
  'stale_approval', // receipt missing, consumed, expired, forged or for another request
  'unsupported_platform', // the action does not run on this distro
  'conflict', // an exclusive resource (dpkg lock, ...) is busy; retry later
  'integrity', // the store, keys or log failed a consistency check
  'execution', // the mechanism ran and failed
  'transient', // a limit or a deadline; retrying may succeed
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/**
 * The daemon method a hint sends its reader to, with the parameters to call it with: what the
 * daemon says is for whoever reads it, so each client words this step its own way (the CLI
 * keeps the daemon's `hint`, a sentence for a person at a shell; the MCP server names its
 * tool, src/mcp/agent-hints.ts). Set only where the hint names a method.
 */
export interface NextStep {
  method: string;
  params: Record<string, string>;
}

export interface WireError {
  category: ErrorCategory;
  code: string;
  message: string;
  hint?: string;
  next?: NextStep;
}

export class AirlockError extends Error {
  constructor(
    readonly category: ErrorCategory,
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly next?: NextStep,
  ) {
    super(message);
  }
  /**
   * The error as it crosses the socket: message and hint may quote host or agent text, so
   * they are escaped here. `mask` (the daemon's, src/daemon/output.ts) masks secrets first.
   */
  toWire(mask: (text: string) => string = (t) => t): WireError {
    const message = escapeText(mask(this.message));
    return {
      category: this.category,
      code: this.code,
      message,
      ...(this.hint ? { hint: escapeText(mask(this.hint)) } : {}),
      ...(this.next ? { next: { method: this.next.method, params: Object.fromEntries(Object.entries(this.next.params).map(([k, v]) => [k, escapeText(v)])) } } : {}),
    };
  }
  static fromWire(e: WireError): AirlockError {
    return new AirlockError(e.category, e.code, e.message, e.hint, e.next);
  }
  /** Any thrown value as a typed error: an AirlockError as it is, anything else an execution error of this client. */
  static of(e: unknown): AirlockError {
    return e instanceof AirlockError ? e : new AirlockError('execution', 'client_error', (e as Error)?.message ?? String(e));
  }
}

export const fail = (category: ErrorCategory, code: string, message: string, hint?: string, next?: NextStep): never => {
  throw new AirlockError(category, code, message, hint, next);
};

/**
 * A value a client sent, as an error names it: a string as it is, anything else as its JSON,
 * cut to `max` characters. Never String(): on an object from the wire such as
 * {"toString": ""} it throws, and the refusal would become an internal error.
 */
export const textOfWireValue = (v: unknown, max: number): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? typeof v)).slice(0, max);
