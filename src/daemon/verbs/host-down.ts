/**
 * An approved change whose one step takes the host down (RebootHost, `takesHostDown`): the
 * daemon cannot write an outcome after the step, since the reboot it starts stops the daemon
 * too, possibly before the program has even returned. So the order is:
 *
 *   1. (execute.ts) the receipt consumed with execution_started, which names this boot's id;
 *   2. the transaction finished NeedsReboot with its outcome entry and `boot_id_before`, durably;
 *   3. the program started. Exited with a status of its own (the reboot refused, the host stays
 *      up): the transaction is Failed at once by a reboot_reconciled entry. Killed or out of time
 *      (the stop of everything reached it first): the reboot may be under way, so it stays
 *      NeedsReboot and the boot id decides at the daemon's next start (src/daemon/reboots.ts).
 */
import type { AnyAction } from '../../catalogue/action.js';
import type { Step } from '../../catalogue/mechanism.js';
import { firstLine } from '../../catalogue/lib/text.js';
import { AirlockError } from '../../protocol/errors.js';
import type { ResultEnvelope } from '../../protocol/messages.js';
import type { Risk } from '../../protocol/risk.js';
import type { TxRecord } from '../../store/store.js';
import type { Caller } from '../authz.js';
import { errorForClient, maskForClient } from '../output.js';
import { currentBootId } from '../reboots.js';
import type { VerbContext } from './context.js';

/** The status the executor reports for a program a signal ended. */
const KILLED = 128;

export async function executeHostDown(ctx: VerbContext, who: Caller, tx: TxRecord, a: AnyAction, risk: Risk, steps: Step[], bootBefore: string | undefined): Promise<ResultEnvelope> {
  const step = steps[0];
  if (steps.length !== 1 || step?.kind !== 'command') throw new AirlockError('integrity', 'bad_mechanism', `${a.name} takes the host down with exactly one command`);
  const base = { transaction_id: tx.id, action_name: a.name, request_hash: tx.requestHash, changed: true, rollback_ref: null, output: [] as string[], output_truncated: false };
  const summary = `${tx.summary}: started; the daemon records it Succeeded when it starts in the next boot`;
  const waiting = { state: 'NeedsReboot', summary, needs_reboot: true, changed: true, rollback_ref: null, error: null, boot_id_before: bootBefore ?? null };
  await ctx.durably(() =>
    ctx.store.finish(tx.id, 'NeedsReboot', waiting, ctx.now(), ctx.entry('outcome', who, a.name, risk, tx.requestHash, tx.id, { state: 'NeedsReboot', changed: true, error_category: null, error_code: null, rolled_back: false, output_lines: 0, masked: [] })),
  );
  ctx.changed(tx.id);
  let failure: AirlockError | null = null;
  try {
    const r = await ctx.executor.run(step);
    if (!r.timedOut && r.code !== KILLED && !(step.okCodes ?? [0]).includes(r.code)) {
      failure = new AirlockError('execution', 'command_failed', `${step.program} exited with status ${r.code}: ${firstLine(r.stderr) || 'no error text'}`);
    }
  } catch (e) {
    failure = e instanceof AirlockError ? e : new AirlockError('execution', 'spawn_failed', (e as Error).message);
  }
  if (!failure) return { ...base, state: 'NeedsReboot', summary, needs_reboot: true };
  const error = await errorForClient(failure);
  const failed = `${tx.summary}: failed: ${await maskForClient(failure.message)}; the host was not rebooted`;
  const bootNow = currentBootId() ?? bootBefore ?? 'unknown';
  const entry = ctx.entry('reboot_reconciled', who, a.name, risk, tx.requestHash, tx.id, {
    previous_state: 'NeedsReboot',
    new_state: 'Failed',
    boot_id_before: bootBefore ?? 'unknown',
    boot_id_after: bootNow,
    // Never the program's output in the log: its status only.
    reason: `the reboot command failed (${failure.code})`,
  });
  await ctx.durably(() => ctx.store.reconcileReboot(tx.id, 'Failed', { ...waiting, state: 'Failed', summary: failed, needs_reboot: false, changed: false, error, boot_id_after: bootNow }, ctx.now(), entry));
  ctx.changed(tx.id);
  return { ...base, state: 'Failed', summary: failed, needs_reboot: false, changed: false, error };
}
