/**
 * airlock_execute: runs approved steps in order and halts at the first that does not
 * succeed. A step without a receipt takes it from the daemon, which holds every receipt for
 * the requester: at once when the policy approved the step (or a person did already), else
 * after waiting (within the agent's wait_for_approval) for a person to approve it. The agent
 * never asks anyone for one, and this process keeps none. The daemon checks everything again at execute (requester, receipt,
 * request, state); this tool only carries what it is given and what the daemon hands back.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AirlockClient } from '../../client/client.js';
import type { ResultEnvelope, TransactionDetail } from '../../protocol/messages.js';
import { MAX_WAIT_SECONDS, waitForDecision, type Waiter } from '../approval-wait.js';
import { withDaemon } from '../daemon.js';
import { hints, type ToolDeps } from '../deps.js';
import { agentLines } from '../output-lines.js';
import { hostIn, transactionId, txState, wireError } from '../schemas.js';
import { eachHost, inWaves, stepsByHost } from '../../client/fleet.js';
import { answer, errorText, failure, wireOf } from '../tool-result.js';
import { waitOnce, type WaitOutcome } from '../wait-methods.js';
import { MAX_STEPS } from './propose.js';
import { ON_A_CHANGE } from '../workflow.js';
import { isCompactedPreview, livePreview } from '../../protocol/compacted.js';

const stepIn = z.strictObject({
  transaction_id: transactionId,
  host: hostIn,
  receipt: z.string().min(1).max(512).optional().describe('only if the daemon gave you one; never ask a person for it'),
});

/**
 * Why a step did not run (or ran and failed): the first one halts the rest. `call_canceled`:
 * the client canceled this tool call (the person stopped the agent), so nothing more runs,
 * not even a step approved in the meantime: the agent would never be told that it ran.
 */
const HALTS = ['failed', 'refused', 'denied', 'expired', 'canceled', 'not_approved_yet', 'call_canceled'] as const;

const stepOut = z.object({
  transaction_id: z.string(),
  action_name: z.string().nullable(),
  /** The job's state after this call: what execute returned, or the transaction's state when it did not run. */
  state: txState.nullable(),
  ran: z.boolean(),
  summary: z.string(),
  output: z.array(z.string()),
  output_truncated: z.boolean(),
  warnings: z.array(z.string()),
  needs_reboot: z.boolean(),
  /** Whether the host was changed: false for a read and for a step whose desired state already held (nothing ran). */
  changed: z.boolean(),
  rollback_ref: z.string().nullable(),
  approval: z.object({
    how: z.enum(['receipt_given', 'policy', 'approved', 'denied', 'expired', 'canceled', 'pending', 'finished', 'unknown']),
    approved_by: z.string().nullable(),
    denied_by: z.string().nullable(),
    reason: z.string().nullable(),
  }),
  halt: z.enum(HALTS).nullable(),
  error: wireError.nullable(),
  /** A plan's steps, each with its fate (succeeded, no_change, failed, stopped, rolled_back, not_rolled_back, not_run); null for a single action. */
  plan_steps: z.array(z.object({ step: z.number().int(), action_name: z.string(), state: z.string() })).nullable(),
  /** The host it ran on (a name the relay knows); null or absent: this MCP server's own host. */
  host: z.string().nullable().optional(),
});
type StepOut = z.infer<typeof stepOut>;

const blank = (id: string): StepOut => ({
  transaction_id: id,
  action_name: null,
  state: null,
  ran: false,
  summary: '',
  output: [],
  output_truncated: false,
  warnings: [],
  needs_reboot: false,
  changed: false,
  rollback_ref: null,
  approval: { how: 'unknown', approved_by: null, denied_by: null, reason: null },
  halt: null,
  error: null,
  plan_steps: null,
});

/** A wait that did not end in a receipt: how the step stands, and why it halts (or null: it ran already, go on). */
function undecided(s: StepOut, o: Exclude<WaitOutcome, { outcome: 'approved' }>, tx: TransactionDetail): StepOut {
  switch (o.outcome) {
    case 'denied':
      return { ...s, state: 'Canceled', approval: { ...s.approval, how: 'denied', denied_by: o.denied_by, reason: o.reason }, halt: 'denied' };
    case 'expired':
      return { ...s, state: 'Canceled', approval: { ...s.approval, how: 'expired' }, halt: 'expired' };
    case 'canceled':
      return { ...s, state: 'Canceled', approval: { ...s.approval, how: 'canceled' }, halt: 'canceled' };
    case 'pending':
      return { ...s, state: 'Previewed', approval: { ...s.approval, how: 'pending' }, halt: 'not_approved_yet' };
    case 'finished': {
      const done = o.state === 'Succeeded' || o.state === 'NeedsReboot';
      const r = (tx.result ?? null) as Pick<Partial<ResultEnvelope>, 'summary' | 'needs_reboot' | 'changed' | 'rollback_ref' | 'plan_steps'> | null;
      return {
        ...s,
        state: o.state,
        summary: r?.summary ?? s.summary,
        needs_reboot: r?.needs_reboot ?? false,
        changed: r?.changed ?? false,
        rollback_ref: r?.rollback_ref ?? null,
        plan_steps: planSteps(r?.plan_steps),
        approval: { ...s.approval, how: 'finished', approved_by: tx.approved_by },
        halt: done ? null : 'failed',
      };
    }
  }
}

/** A plan's step fates as the output schema promises them (exactly those fields). */
const planSteps = (p: ResultEnvelope['plan_steps']): StepOut['plan_steps'] => (p ? p.map(({ step, action_name, state }) => ({ step, action_name, state })) : null);

function ran(s: StepOut, r: ResultEnvelope): StepOut {
  const { lines, truncated } = agentLines(r.output, r.output_truncated);
  const ok = r.state === 'Succeeded' || r.state === 'NeedsReboot';
  return { ...s, state: r.state, ran: true, summary: r.summary, output: lines, output_truncated: truncated, needs_reboot: r.needs_reboot, changed: r.changed, rollback_ref: r.rollback_ref, halt: ok ? null : 'failed', error: r.error ?? null, plan_steps: planSteps(r.plan_steps) };
}

interface RunContext {
  cl: AirlockClient;
  deadline: number;
  waiter: Waiter;
}

async function runStep(c: RunContext, step: z.infer<typeof stepIn>): Promise<StepOut> {
  let s = blank(step.transaction_id);
  let tx: TransactionDetail;
  try {
    tx = await c.cl.transaction(step.transaction_id);
  } catch (e) {
    return { ...s, halt: 'refused', error: wireOf(e) };
  }
  s = { ...s, action_name: tx.action_name, state: tx.state, summary: tx.summary, warnings: isCompactedPreview(tx.preview) ? [] : tx.preview.warnings };
  let receipt = step.receipt;
  if (receipt !== undefined) s.approval = { ...s.approval, how: 'receipt_given', approved_by: tx.approved_by };
  else {
    // Every receipt comes from the daemon, which holds it for the requester: a person's approval's
    // and the policy's alike. Approved already, the wait answers at once.
    let o: WaitOutcome;
    try {
      o = await waitForDecision(c.waiter, step.transaction_id, c.deadline);
    } catch (e) {
      return { ...s, halt: 'refused', error: wireOf(e) };
    }
    if (o.outcome !== 'approved') return undecided(s, o, tx);
    if (c.waiter.aborted()) return { ...s, approval: { ...s.approval, how: 'approved', approved_by: o.approved_by }, halt: 'call_canceled' };
    receipt = o.receipt;
    s.approval = { ...s.approval, how: o.approved_by.startsWith('policy:') ? 'policy' : 'approved', approved_by: o.approved_by };
  }
  try {
    return ran(s, await c.cl.execute(step.transaction_id, tx.action_name, livePreview(tx).params, receipt));
  } catch (e) {
    return { ...s, halt: 'refused', error: wireOf(e) };
  }
}

function stepText(s: StepOut, i: number): string {
  const head = `Step ${i + 1}: ${s.transaction_id}${s.action_name ? ` (${s.action_name})` : ''}${s.host ? ` on ${s.host}` : ''}`;
  const lines: string[] = [];
  if (s.ran) lines.push(`${head}: ${s.state}: ${s.summary}`);
  else if (s.halt === null) lines.push(`${head}: ran before: ${s.state}: ${s.summary}`);
  else if (s.halt === 'not_approved_yet') lines.push(`${head}: NOT RUN: still waiting for a person to approve it (\`airlock approve ${s.transaction_id}\`). Tell the person; do not treat a chat message as approval. Call airlock_execute again (with wait_for_approval) when they have, or stop.`);
  else if (s.halt === 'denied') lines.push(`${head}: NOT RUN: denied by ${s.approval.denied_by}${s.approval.reason ? `: "${s.approval.reason}"` : ' (no reason given)'}. Do not propose it again unless the person asks.`);
  else if (s.halt === 'expired') lines.push(`${head}: NOT RUN: nobody approved it before it expired. Propose it again if it is still needed.`);
  else if (s.halt === 'canceled') lines.push(`${head}: NOT RUN: it was canceled.`);
  else if (s.halt === 'call_canceled') lines.push(`${head}: NOT RUN: this call was canceled.`);
  else lines.push(`${head}: ${s.ran ? s.state : 'NOT RUN'}${s.summary ? `: ${s.summary}` : ''}`);
  if (s.error) lines.push(errorText(s.error));
  if (s.approval.approved_by && s.halt === null) lines.push(`approved by ${s.approval.approved_by}`);
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  for (const p of s.plan_steps ?? []) lines.push(`  plan step ${p.step} (${p.action_name}): ${p.state}`);
  if (s.output.length) lines.push('output:', ...s.output.map((l) => `  ${l}`));
  if (s.output_truncated) lines.push('(output truncated)');
  if (s.needs_reboot) lines.push('the host needs a reboot for this to take effect');
  if (s.rollback_ref) lines.push(`changes were rolled back (${s.rollback_ref})`);
  return lines.join('\n');
}

export function registerExecute(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_execute',
    {
      title: 'Execute approved Airlock steps',
      description:
        'Run approved steps (transaction ids from airlock_propose), in order; it halts at the first step that fails, is refused, denied, expired, or not approved yet. ' +
        'A plan (one transaction id for several dependent steps) runs as one: its steps in order, the ones done rolled back at a failure; plan_steps gives each step\'s fate. ' +
        'Without a receipt (the normal case) a step waits, up to wait_for_approval seconds in all, for a person to approve it with `airlock approve`: the daemon then hands you the receipt, bound to you and to that step. Progress is reported while it waits. ' +
        'Per step: state, summary, output lines, warnings, needs_reboot, rollback_ref, who approved or denied (with their reason). ' +
        'Call it only after you have shown the person each step and its risk. ' +
        ON_A_CHANGE,
      inputSchema: z.strictObject({
        steps: z.array(stepIn).min(1).max(MAX_STEPS).describe('the steps, in the order to run them'),
        wait_for_approval: z.number().int().min(0).max(MAX_WAIT_SECONDS).optional().describe('seconds to wait, in all, for a person to approve steps that are not approved yet (default 0: do not wait)'),
        waves: z.boolean().optional().describe('with steps on several hosts: run the first host alone, and the others only when all its steps succeeded (default: all hosts at once, each halting at its own first failure)'),
      }),
      outputSchema: z.object({
        ok: z.boolean(),
        needs_reboot: z.boolean(),
        halted_at: z.string().nullable(),
        steps: z.array(stepOut),
        not_run: z.array(z.string()),
      }),
      annotations: hints({ readOnly: false, destructive: true, idempotent: false }),
    },
    async ({ steps, wait_for_approval, waves }, ctx: ServerContext) => {
      try {
        const started = Date.now();
        const budgetMs = (wait_for_approval ?? 0) * 1000;
        const token = ctx.mcpReq._meta?.progressToken;
        /** One host's steps in order on one connection, halting at the first that does not run to its end. */
        const runOn = (host: string | null, mine: Array<z.infer<typeof stepIn>>) =>
          withDaemon(
            deps.target,
            async (cl) => {
              const waiter: Waiter = {
                round: (id, ms) => waitOnce(cl, id, ms),
                progress: async (id) => {
                  if (token === undefined) return;
                  const waited = Math.round((Date.now() - started) / 1000);
                  await ctx.mcpReq
                    .notify({ method: 'notifications/progress', params: { progressToken: token, progress: waited, total: budgetMs / 1000, message: `waiting for a person to approve ${id}${host ? ` on ${host}` : ''} (\`airlock approve ${id}\`): ${waited} of ${budgetMs / 1000} s` } })
                    .catch(() => {});
                },
                now: Date.now,
                sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
                aborted: () => ctx.mcpReq.signal.aborted,
              };
              const c: RunContext = { cl, deadline: started + budgetMs, waiter };
              const done: StepOut[] = [];
              for (const step of mine) {
                // A canceled call starts no further step (one already running in the daemon finishes there).
                if (waiter.aborted()) {
                  done.push({ ...blank(step.transaction_id), halt: 'call_canceled' });
                  break;
                }
                const s = await runStep(c, step);
                done.push(host === null ? s : { ...s, host });
                if (s.halt !== null) break;
              }
              return done;
            },
            host,
          );
        const groups = stepsByHost(steps);
        let out: StepOut[];
        let notRun: string[];
        if (groups.size === 1 && groups.has(null)) {
          out = await runOn(null, steps);
          notRun = steps.slice(out.length).map((s) => s.transaction_id);
        } else {
          // Several hosts: each runs its own steps at once with the others (or the first alone, then the rest, in waves);
          // a host halts at its own first failure, and that is its answer alone.
          const names = [...groups.keys()].map((h) => h ?? '');
          const work = (h: string) => runOn(h || null, groups.get(h || null)!);
          const answers = waves ? await inWaves(names, work, (a) => a.ok && a.value.every((s) => s.halt === null)) : await eachHost(names, work);
          out = [];
          notRun = [];
          for (const a of answers) {
            const mine = groups.get(a.host || null)!;
            if (a.ok) {
              out.push(...a.value);
              notRun.push(...mine.slice(a.value.length).map((s) => s.transaction_id));
            } else {
              out.push({ ...blank(mine[0]!.transaction_id), halt: 'refused', error: a.error, host: a.host || null });
              notRun.push(...mine.slice(1).map((s) => s.transaction_id));
            }
          }
        }
        const halted = out.find((s) => s.halt !== null) ?? null;
        const structured = { ok: halted === null, needs_reboot: out.some((s) => s.needs_reboot), halted_at: halted?.transaction_id ?? null, steps: out, not_run: notRun };
        const text = [...out.map(stepText), ...(notRun.length ? [`Not run (after the halt): ${notRun.join(', ')}`] : []), ...(structured.needs_reboot ? ['Overall: the host needs a reboot.'] : [])].join('\n\n');
        // Waiting for a person is not an error: the agent tells them and stops.
        return answer(structured, text, halted !== null && halted.halt !== 'not_approved_yet');
      } catch (e) {
        return failure(e);
      }
    },
  );
}
