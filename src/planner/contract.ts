/**
 * The planner's contract: what every planner (an LLM through a provider, or the offline
 * one) receives and returns, and what the doors (`airlock plan`, `airlock do`, the MCP
 * tool `airlock_plan`) do with it. The planner runs in the client, unprivileged: it
 * proposes; the daemon decides. Its plan is only words until the daemon previews each
 * step, and the preview's risk, not the planner's, is what a person sees.
 */
import type { ActionDescription } from '../protocol/messages.js';

/** One proposed step: a catalogue action and its parameters, with the planner's reason. */
export interface PlanStep {
  action_name: string;
  params: Record<string, unknown>;
  /** Why this step, in a sentence (the planner's words: shown as such, never trusted). */
  reason: string;
  /** The words of the request this step carries out (what the completeness check reads). */
  part?: string;
}

/**
 * A part of the request no step carries out, and why: a plan is never silently shorter
 * than what was asked. A plan with any is INCOMPLETE: shown, never run as it stands.
 */
export interface MissingPart {
  /** The request's words, as said ("start it"). */
  part: string;
  /** Why no step carries it out ("no action matched", "the public key itself, written whole"). */
  why: string;
}

/**
 * How a planning session ended: a plan, or a refusal (impossible, unsafe, or not understood).
 * A plan's steps are in dependency order (install before start, the group before its
 * members), one list to be proposed as one plan; `missing` names every part it could not fill
 * (absent: none claimed; the door still checks every part of the request, door.ts).
 */
export type PlanVerdict = { kind: 'plan'; summary: string; steps: PlanStep[]; missing?: MissingPart[] } | { kind: 'refusal'; reason: string };

export type PlannerKind = 'offline' | 'openai' | 'anthropic';

/** A read the planner ran through the daemon to look at the host before proposing. */
export interface QueryRecord {
  action_name: string;
  params: Record<string, unknown>;
  transaction_id: string | null;
  ok: boolean;
}

export interface PlannerReport {
  verdict: PlanVerdict;
  planner: { kind: PlannerKind; model: string | null };
  /** What the planner says plainly about itself (the offline one: what it did not understand). */
  notes: string[];
  usage: { turns: number; input_tokens: number; output_tokens: number; elapsed_ms: number };
  queries: QueryRecord[];
}

/** What a planner knows of this host: typed facts, never free text from the agent. */
export interface HostContext {
  /** From /etc/os-release: `debian`, `ubuntu`, `fedora`, `rhel`...; version as it says. */
  distribution: { id: string; version_id: string; pretty_name: string };
  /** The catalogue as the daemon describes it, only actions supported here. */
  actions: ActionDescription[];
}

/**
 * Runs one Low, non-sensitive read through the daemon's one door (preview, the default
 * policy's auto-approval, execute: recorded like any other), and returns its masked
 * output. Anything else is refused before the daemon is asked.
 */
export type QueryRunner = (action_name: string, params: Record<string, unknown>) => Promise<{ ok: true; output: string[]; transaction_id: string } | { ok: false; error: string; transaction_id: string | null }>;

export interface PlannerLimits {
  maxTurns: number;
  maxOutputTokens: number;
  maxTotalTokens: number;
  maxIntentChars: number;
  wallClockMs: number;
  /** Retries of one provider call on rate limits and 5xx (never on auth errors). */
  maxRetries: number;
  /** Characters of one tool result sent back to the model. */
  maxToolOutputChars: number;
}

export const DEFAULT_LIMITS: PlannerLimits = {
  maxTurns: 8,
  maxOutputTokens: 2048,
  // Each request carries the tool schemas of this host's actions (about 22k tokens for
  // Debian's catalogue), so a few turns need this much.
  maxTotalTokens: 200_000,
  maxIntentChars: 2000,
  wallClockMs: 120_000,
  maxRetries: 3,
  maxToolOutputChars: 8000,
};

export interface Planner {
  readonly kind: PlannerKind;
  plan(intent: string, host: HostContext, query: QueryRunner, limits: PlannerLimits): Promise<PlannerReport>;
}
