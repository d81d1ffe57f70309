/**
 * `store.check`: the store's own consistency check, for `airlock doctor` (approvers and
 * admins: the door's `reviewer` access; it says nothing of any transaction).
 */
import { STORE_CHECK_MAX_LINES, type StoreCheck } from '../../protocol/messages.js';
import type { VerbContext } from './context.js';

/** How long one store check's answer is reused (doctor runs it; a loop of calls costs one pass a minute). */
export const STORE_CHECK_REUSE_MS = 60_000;

/** The last answer and the pass under way, per daemon. */
const checks = new WeakMap<VerbContext, { last: { at: number; check: StoreCheck } | null; running: Promise<StoreCheck> | null }>();

/**
 * The store's own consistency check, for `airlock doctor` (approvers and admins). It blocks the daemon for a pass over the database, so one runs at a
 * time and its answer is kept for STORE_CHECK_REUSE_MS: a loop of calls costs one pass a minute.
 */
export async function storeCheck(ctx: VerbContext): Promise<StoreCheck> {
  const now = ctx.now();
  const space = ctx.space ? { space: ctx.space.sample(true) } : {}; // measured now: it is cheap, and it changes
  const kept = checks.get(ctx) ?? { last: null, running: null };
  checks.set(ctx, kept);
  if (kept.last && now - kept.last.at < STORE_CHECK_REUSE_MS) return { ...kept.last.check, ...space };
  kept.running ??= (async () => {
    const result = (await ctx.store.integrityCheck(STORE_CHECK_MAX_LINES)).slice(0, STORE_CHECK_MAX_LINES);
    const check = { ok: result.length === 1 && result[0] === 'ok', result };
    kept.last = { at: ctx.now(), check };
    return check;
  })().finally(() => (kept.running = null));
  return { ...(await kept.running), ...space };
}
