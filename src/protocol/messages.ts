/**
 * Every message on the socket. Field names are snake_case as in LACS; see
 * docs/protocol.md for the normative description an independent client follows.
 * The methods' results are zod schemas, one file per concept in src/protocol/wire/, with
 * their types inferred from them; they are exported here too, so a client, the MCP
 * server's output schemas and the stored-preview check all take them from one place.
 */
import type { Role } from './risk.js';
import type { WireError } from './errors.js';
import type { Method } from './methods.js';

export * from './wire/action.js';
export * from './wire/approval.js';
export * from './wire/audit.js';
export * from './wire/policy.js';
export * from './wire/preview.js';
export * from './wire/session.js';
export * from './wire/store.js';
export * from './wire/totp.js';
export * from './wire/transaction.js';

export const PROTOCOL = 'lacs/0.1';
export const SERVER_NAME = 'airlock';

export interface HelloMessage {
  type: 'hello';
  protocol: string;
  client?: string;
  /** On TCP and the token socket only: the client's token (ignored on the Unix socket, where the kernel says who is asking). */
  token?: string;
}

export interface Principal {
  uid: number;
  user: string;
  /** How the peer was identified: "unix" (kernel peer credentials). */
  via: 'unix' | 'token';
  role: Role;
  approver: boolean;
  /** For a root peer: the person the daemon sees behind it ("alice(uid 1001) via sudo"), or null for nobody. */
  person?: string | null;
}

export interface WelcomeMessage {
  type: 'welcome';
  protocol: string;
  server: string;
  version: string;
  /** The methods this daemon serves: METHODS (src/protocol/methods.ts), in its order. */
  capabilities: Method[];
  principal: Principal;
  limits: { max_frame: number; idle_timeout_ms: number; max_output_lines: number };
}

export interface RequestMessage {
  type: 'request';
  id: string;
  method: Method;
  params?: Record<string, unknown>;
}

export type ResponseMessage =
  | { type: 'response'; id: string; ok: true; result: unknown }
  | { type: 'response'; id: string | null; ok: false; error: WireError };

/**
 * Sent on the requesting connection while its `execute` runs: output lines as they come,
 * masked and escaped like the result's (docs/protocol.md, "Output notifications"). It has no
 * `id`, so a client that does not know it ignores it; the result still carries the output.
 */
export interface OutputNotice {
  type: 'notification';
  event: 'output';
  /** The `id` of the execute request this output belongs to. */
  request_id: string;
  transaction_id: string;
  lines: string[];
  /** Lines left out just before these (the client was behind, or the stream's cap was reached). */
  not_streamed: number;
  /** Present (true) on the last notice of the execution. */
  last?: true;
}

