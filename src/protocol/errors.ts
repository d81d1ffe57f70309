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

/** A JSON value's type, as JSON names it. */
export const JSON_TYPES = ['string', 'number', 'boolean', 'array', 'object', 'null'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/**
 * A parameter that came as a value of the wrong JSON type (`port` got the string "443"): the
 * types it takes, the one it got, and, when the value read as JSON is one the parameter takes
 * (and nothing in it was masked), that JSON (`443`). The message says it in a sentence; this is
 * for each client to say how to send it right in its own terms (the CLI `--param port:=443`,
 * the MCP server a JSON number).
 */
export interface WrongType {
  param: string;
  expected: JsonType[];
  got: JsonType;
  as_json?: string;
}

/**
 * An error as it crosses the socket (its schema: src/protocol/wire/error.ts). Plain types here,
 * no zod: every command of the CLI loads this file at start-up.
 */
export interface WireError {
  category: ErrorCategory;
  code: string;
  message: string;
  hint?: string;
  /** On a `validation/bad_params` refusal: the parameters whose value had the wrong type. */
  wrong_types?: WrongType[];
  /** The daemon method the hint sends its reader to (NextStep). */
  next?: NextStep;
}

export class AirlockError extends Error {
  constructor(
    readonly category: ErrorCategory,
    readonly code: string,
    message: string,
    readonly hint?: string,
    /**
     * What a client may say besides the hint: wrong-typed parameters, the method the hint names.
     * `transactionId`: the transaction a refusal concerns when the request named it only inside a
     * list (approve.fleet), for the daemon's record of refusals; it never crosses the socket.
     */
    readonly more: { wrongTypes?: WrongType[]; next?: NextStep; transactionId?: string } = {},
  ) {
    super(message);
  }
  get wrongTypes(): WrongType[] | undefined {
    return this.more.wrongTypes;
  }
  get next(): NextStep | undefined {
    return this.more.next;
  }
  /** The same error, said to concern transaction `id` (more.transactionId). */
  concerning(id: string): AirlockError {
    return new AirlockError(this.category, this.code, this.message, this.hint, { ...this.more, transactionId: id });
  }
  /**
   * The error as it crosses the socket: message and hint may quote host or agent text, so
   * they are escaped here. `mask` (the daemon's, src/daemon/output.ts) masks secrets first.
   */
  toWire(mask: (text: string) => string = (t) => t): WireError {
    const said = (t: string) => escapeText(mask(t));
    return {
      category: this.category,
      code: this.code,
      message: said(this.message),
      ...(this.hint ? { hint: said(this.hint) } : {}),
      // A parameter's name can be a key the client sent (inside a record): masked and escaped like the message.
      ...(this.wrongTypes?.length ? { wrong_types: this.wrongTypes.map((w) => ({ ...w, param: said(w.param), ...(w.as_json !== undefined ? { as_json: said(w.as_json) } : {}) })) } : {}),
      ...(this.next ? { next: { method: this.next.method, params: Object.fromEntries(Object.entries(this.next.params).map(([k, v]) => [k, escapeText(v)])) } } : {}),
    };
  }
  static fromWire(e: WireError): AirlockError {
    return new AirlockError(e.category, e.code, e.message, e.hint, { ...(e.wrong_types ? { wrongTypes: e.wrong_types } : {}), ...(e.next ? { next: e.next } : {}) });
  }
  /** Any thrown value as a typed error: an AirlockError as it is, anything else an execution error of this client. */
  static of(e: unknown): AirlockError {
    return e instanceof AirlockError ? e : new AirlockError('execution', 'client_error', (e as Error)?.message ?? String(e));
  }
}

export const fail = (category: ErrorCategory, code: string, message: string, hint?: string, next?: NextStep): never => {
  throw new AirlockError(category, code, message, hint, next ? { next } : {});
};

/**
 * A value a client sent, as an error names it: a string as it is, anything else as its JSON,
 * cut to `max` characters. Never String(): on an object from the wire such as
 * {"toString": ""} it throws, and the refusal would become an internal error.
 */
export const textOfWireValue = (v: unknown, max: number): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? typeof v)).slice(0, max);
