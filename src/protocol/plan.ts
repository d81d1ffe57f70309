/**
 * Plans (docs/protocol.md section 6.21): an ordered list of dependent steps previewed in
 * sequence, approved once and executed as one. A plan is a transaction of its own whose
 * action name is PLAN_ACTION (no catalogue action has that name: test/unit/plans.test.ts), so
 * approve, deny, cancel, wait and execute serve it through the same door as any transaction.
 * Its digests are domain separated: a step's digest can never be taken for a plan's, nor
 * either for a preview digest of a single action.
 */
import { canonicalize } from './canonical.js';
import { sha256Hex } from './hash.js';

/** The action name of a plan's transaction. */
export const PLAN_ACTION = 'Plan';
/** Steps a plan may hold (the MCP tools' MAX_STEPS is the same number). */
export const MAX_PLAN_STEPS = 20;
/** The JCS text of a plan's whole envelope: under a frame (1 MiB) with room for the response around it. */
export const MAX_PLAN_PREVIEW_BYTES = 768 * 1024;

const STEP_DOMAIN = 'airlock-plan-step-v1\0';
const PLAN_DOMAIN = 'airlock-plan-v1\0';

/** A step preview's digest: SHA-256 of the step domain and JCS of the step without its `preview_digest`. */
export function planStepDigest(step: object): string {
  const { preview_digest: _d, ...body } = step as Record<string, unknown>;
  return sha256Hex(STEP_DOMAIN + canonicalize(body));
}

/** The plan digest: SHA-256 of the plan domain and JCS of every step's request hash and preview digest, in order. */
export function planDigest(steps: ReadonlyArray<{ request_hash: string; preview_digest: string }>): string {
  return sha256Hex(PLAN_DOMAIN + canonicalize(steps.map((s) => [s.request_hash, s.preview_digest])));
}

/** What a plan is called in its summaries: "Plan of 3 steps". */
export const planTitle = (steps: number): string => `Plan of ${steps} steps`;
