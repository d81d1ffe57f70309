/**
 * Reboots finish transactions instead of ending them. A change whose action needs a reboot
 * (`reboot: true`) records the boot it runs in (execution_started `boot_id`, and the result's
 * `boot_id_before` when it ends NeedsReboot). RebootHost, whose step takes the daemon down with
 * the host (`takesHostDown`), is written NeedsReboot before that step starts (executeHostDown).
 *
 * At start, before it listens, the daemon reads this boot's id and looks at the oldest
 * transactions left NeedsReboot (at most MAX_RECONCILED_PER_START): one recorded in another boot
 * is Succeeded (the host rebooted and the daemon came back), with a signed reboot_reconciled
 * entry naming both boots; one of this boot stays NeedsReboot (a scheduled reboot still ahead,
 * or one not done yet). Transactions are made in boot order, so once one of this boot is met
 * every later one is of this boot too; more than the bound wait for the next start.
 */
import { readFileSync } from 'node:fs';
import { BOOT_ID, BOOT_ID_FILE } from '../catalogue/families/system/boot-state.js';
import type { TxRecord } from '../store/store.js';
import type { VerbContext } from './verbs/context.js';

/** Reconciled at one start, oldest first; the rest at the next. */
export const MAX_RECONCILED_PER_START = 100;

/** This boot's id (a UUID), or null when the host does not show one. */
export function currentBootId(): string | null {
  try {
    const id = readFileSync(BOOT_ID_FILE, 'utf8').trim();
    return BOOT_ID.test(id) ? id : null;
  } catch {
    return null;
  }
}

/** What a reconciliation decides for one transaction left NeedsReboot: finish it (Succeeded), or leave it. */
export function rebootVerdict(tx: Pick<TxRecord, 'result'>, bootNow: string): { bootBefore: string } | null {
  const before = tx.result?.boot_id_before;
  // One that recorded no boot (made before Airlock recorded them) cannot be told apart: it stays.
  if (typeof before !== 'string' || !BOOT_ID.test(before)) return null;
  return before === bootNow ? null : { bootBefore: before };
}

/** At start: finishes what the host's reboot finished; returns their ids. */
export async function reconcileReboots(ctx: VerbContext, bootNow: string | null, limit = MAX_RECONCILED_PER_START): Promise<string[]> {
  if (bootNow === null) return [];
  const done: string[] = [];
  for (const tx of await ctx.store.awaitingReboot(limit)) {
    const v = rebootVerdict(tx, bootNow);
    if (!v) continue;
    const summary = `${tx.summary}: done, the host rebooted and came back (boot ${bootNow})`;
    const result = { ...tx.result, state: 'Succeeded', summary, needs_reboot: false, boot_id_after: bootNow };
    const entry = ctx.systemEntry('reboot_reconciled', tx, { previous_state: 'NeedsReboot', new_state: 'Succeeded', boot_id_before: v.bootBefore, boot_id_after: bootNow, reason: 'the daemon started in another boot than the one the change ran in' });
    if (await ctx.store.reconcileReboot(tx.id, 'Succeeded', result, ctx.now(), entry)) done.push(tx.id);
  }
  return done;
}

/** The boot a change runs in, when its action needs a reboot (undefined otherwise, or when the host shows none: its action's check refused that already). */
export function bootForChange(needsReboot: boolean): string | undefined {
  return needsReboot ? (currentBootId() ?? undefined) : undefined;
}
