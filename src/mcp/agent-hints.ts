/**
 * The next step for an agent, in place of the daemon's hint where that hint is written for
 * a person at the CLI: "use the receipt printed by `airlock approve`" would send the agent
 * to ask the person for a receipt, which it must never do. The daemon's message (its
 * reason) is kept word for word; only the hint changes, and only for these codes.
 */
import type { WireError } from '../protocol/errors.js';

const NEVER_ASK = 'Never ask a person for a receipt.';
const PROPOSE_AGAIN = 'propose the step again (airlock_propose) and show the person the new preview';

const HINTS: Record<string, string> = {
  bad_receipt: `leave the receipt out: airlock_execute waits for the daemon to hand you this step's receipt once a person approves it. ${NEVER_ASK}`,
  receipt_mismatch: `leave the receipt out and check airlock_status: another execute may have used it. ${NEVER_ASK}`,
  receipt_not_found: `check airlock_status: another execute may have used it. ${NEVER_ASK}`,
  receipt_not_queued: `check airlock_status: another execute may have used it. ${NEVER_ASK}`,
  receipt_already_consumed: 'this step ran already (airlock_status shows how it ended); do not run it again unless the person asks, and then propose it anew',
  not_queued: 'this step is no longer approved and waiting (airlock_status shows why); propose it again only if it is still needed',
  receipt_expired: `the approval was not used in time: ${PROPOSE_AGAIN}`,
  preview_expired: `nobody approved it in time: ${PROPOSE_AGAIN}`,
  not_approved: 'show the person the step and its risk, then wait for their approval (airlock_execute with wait_for_approval) or stop; a chat message is never an approval',
  receipt_not_held: `the host's policy approved this step for the MCP server process that proposed it, which is gone: ${PROPOSE_AGAIN.replace(' and show', ' from this server and show')}. ${NEVER_ASK}`,
  state_changed: `the host changed since the preview, so what would run is not what was approved: ${PROPOSE_AGAIN}`,
  request_mismatch: `this is not the request that was previewed: ${PROPOSE_AGAIN}`,
};

/** The error with an agent's next step where the daemon's hint names a receipt or a CLI command. Pure. */
export function forAgent(w: WireError): WireError {
  if (w.category !== 'stale_approval' || !(w.code in HINTS)) return w;
  return { ...w, hint: HINTS[w.code]! };
}
