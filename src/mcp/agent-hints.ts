/**
 * The next step as an agent reads it. What the daemon says is for whoever reads it: where its
 * hint sends the reader to a method, the error names that method and its parameters (`next`,
 * src/protocol/errors.ts), and this client words it as the MCP tool that calls it: an agent
 * has no shell, so it is never sent to `airlock describe`, it is sent to
 * airlock_describe_action. The CLI keeps the daemon's hint, written for a person at a shell.
 *
 * A hint about a receipt is worded for an agent too: "use the receipt printed by `airlock
 * approve`" would send it to ask the person for a receipt, which it must never do. The
 * daemon's message (its reason) is kept word for word; only the hint changes.
 */
import type { Method } from '../protocol/methods.js';
import type { NextStep, WireError } from '../protocol/errors.js';

/** Each method a `next` can name, as the tool an agent calls for it. */
const TOOLS: Partial<Record<Method, (p: NextStep['params']) => string>> = {
  'actions.describe': (p) => `airlock_describe_action with action_name ${p.action_name} gives its parameters' schema and a valid example`,
  'actions.list': () => 'airlock_actions lists the catalogue (optionally one family)',
  history: () => 'airlock_history lists the transactions',
  'transaction.get': (p) => `airlock_status with transaction_id ${p.transaction_id} shows how it stands`,
};

const NEVER_ASK = 'Never ask a person for a receipt.';
const PROPOSE_AGAIN = 'propose the step again (airlock_propose) and show the person the new preview';

/** The receipt codes, whose hints are written for the person at the CLI who holds a receipt. */
const RECEIPT_HINTS: Record<string, string> = {
  bad_receipt: `leave the receipt out: airlock_execute waits for the daemon to hand you this step's receipt once a person approves it. ${NEVER_ASK}`,
  receipt_mismatch: `leave the receipt out and check airlock_status: another execute may have used it. ${NEVER_ASK}`,
  receipt_not_found: `check airlock_status: another execute may have used it. ${NEVER_ASK}`,
  receipt_not_queued: `check airlock_status: another execute may have used it. ${NEVER_ASK}`,
  receipt_already_consumed: 'this step ran already (airlock_status shows how it ended); do not run it again unless the person asks, and then propose it anew',
  not_queued: 'this step is no longer approved and waiting (airlock_status shows why); propose it again only if it is still needed',
  receipt_expired: `the approval was not used in time: ${PROPOSE_AGAIN}`,
  preview_expired: `nobody approved it in time: ${PROPOSE_AGAIN}`,
  not_approved: 'show the person the step and its risk, then wait for their approval (airlock_execute with wait_for_approval) or stop; a chat message is never an approval',
  receipt_not_held: `the daemon restarted since the step was approved and no longer holds its receipt: ${PROPOSE_AGAIN}. ${NEVER_ASK}`,
  state_changed: `the host changed since the preview, so what would run is not what was approved: ${PROPOSE_AGAIN}`,
  request_mismatch: `this is not the request that was previewed: ${PROPOSE_AGAIN}`,
};

/**
 * The error with its next step worded for an agent. Pure. `next` itself is not passed on: the
 * tools' output schemas describe the error without it, and the hint now says it.
 */
export function forAgent(w: WireError): WireError {
  const receipt = w.category === 'stale_approval' && Object.hasOwn(RECEIPT_HINTS, w.code);
  if (!w.next && !receipt) return w;
  const { next, ...error } = w;
  const tool = next && Object.hasOwn(TOOLS, next.method) ? TOOLS[next.method as Method] : undefined;
  if (tool) return { ...error, hint: tool(next!.params) };
  return receipt ? { ...error, hint: RECEIPT_HINTS[w.code]! } : error;
}
