/**
 * RevertTransaction: a new transaction whose change is the inverse of a finished one, made from
 * what that change kept (src/catalogue/change-record.ts): each file it wrote put back as it was,
 * each command's declared undo run, last first. It is refused when the host has drifted from the
 * state that change left (what changed since is named), previewed and approved like any change
 * at the reverted change's risk, and signed with its parameters naming the transaction it reverts.
 * A plan is reverted as a whole, its steps in reverse order.
 */
import { params, token } from '../../params.js';
import { action, unchanged, type Host, type Unchanged } from '../../action.js';
import { revertSteps, type FinishedChange } from '../../change-record.js';
import { probeState, stateDifferences, type ProbedState } from '../../lib/state-probes.js';
import { exact, probeLabel } from '../../rollback.js';
import { AirlockError, fail } from '../../../protocol/errors.js';

interface Target {
  change: FinishedChange;
  /** The state the change touched, read now (nothing when it cannot be reverted anyway). */
  now: ProbedState;
}

/** Reads the change to revert and refuses what cannot be reverted, or no longer from here. */
async function current({ transaction_id }: { transaction_id: string }, host: Host): Promise<Target> {
  const change = (await host.finishedChange(transaction_id)) ?? fail('validation', 'no_such_transaction', `there is no transaction ${transaction_id}`, 'see `airlock history`');
  return { change, now: change.unavailable ? {} : await probeState(change.probes, host) };
}

/**
 * Refuses what cannot be reverted, and a host drifted from the state the change left: the revert
 * would undo what came after it. Here rather than in `current`, so that the daemon has enforced
 * the risk read from the change (riskFrom) before anything more of it is said.
 */
function check(_p: unknown, { change, now }: Target): Unchanged | undefined {
  const what = `${change.transactionId} (${change.actionName}: ${change.summary})`;
  if (change.unavailable) fail('validation', 'not_revertible', `${what} cannot be reverted: ${change.unavailable}`, 'undo it with the catalogue action that does the inverse, previewed as any change');
  const drifted = stateDifferences(change.after, now);
  if (drifted.length) {
    throw new AirlockError('conflict', 'drifted', `the host changed since ${what} finished, so a revert would undo more than that change: ${drifted.join(', ')} changed since`, 'look at what changed (airlock history); put it back by hand or revert the later change first, then revert again');
  }
  return change.kept.length === 0 ? unchanged(`${change.transactionId} left the state it found: there is nothing to undo`) : undefined;
}

export const revertTransaction = action({
  name: 'RevertTransaction',
  family: 'revert',
  description: 'Undo a finished change from the pre-state it kept: its files put back, its commands undone, last first. Refused when the host has drifted since.',
  // The floor; a revert is previewed at the risk of the change it reverts (riskFrom), so a High change's revert is High.
  risk: 'medium',
  readOnly: false,
  // The undos it runs are other actions' (a package put back runs its maintainer scripts).
  runsPrograms: true,
  // Its own failure rolls back like any change's; a revert of a revert redoes the change.
  rollback: exact<{ transaction_id: string }, Target>((_p, t) => t.change.probes),
  params: params({ transaction_id: token(/^tx_[0-9a-f]{24}$/, 'transaction id', 27, 'a transaction id, tx_ and 24 hex digits (airlock history lists them)') }),
  example: { transaction_id: 'tx_0123456789abcdef01234567' },
  // What it writes is what the reverted change wrote, each path as kept (checked against that action's files when it ran).
  files: [],
  filesFrom: (t) => [...new Set(t.change.kept.flatMap((k) => (k.kind === 'file' ? [k.path] : [])))],
  current,
  riskFrom: (t) => t.change.risk,
  readsTransaction: ({ transaction_id }) => transaction_id,
  // The kept bytes are the approver's to see in the mechanism's diffs, not the requester's in the state.
  shown: (t) => ({ transaction: t.change.transactionId, action: t.change.actionName, ...(t.change.stepActions.length ? { steps: t.change.stepActions } : {}), state: t.change.state, summary: t.change.summary, probes: t.change.probes.map(probeLabel) }),
  check,
  preview: (_p, t) => ({
    summary: `Revert ${t.change.transactionId} (${t.change.actionName}: ${t.change.summary})`,
    change: { reverts: t.change.transactionId, action: t.change.actionName, ...(t.change.stepActions.length ? { steps_in_reverse: [...t.change.stepActions].reverse() } : {}), restores: t.change.probes.map(probeLabel) },
    sideEffects: ['undoes what that change did, last step first; what the host did since to the same state refuses it (drift)'],
  }),
  mechanism: (_p, t) => revertSteps(t.change.kept),
  restores: (_p, t) => t.change.before,
});
