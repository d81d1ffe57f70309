/**
 * `plan.preview` (docs/protocol.md section 6.21): a plan of dependent steps becomes one
 * transaction. Each step is previewed against the host as the steps before it leave it
 * (plan-steps.ts); the plan's risk is its highest step's, its digest binds every step's request
 * hash and preview digest in order, and the envelope (action `Plan`, the steps in `plan`) is
 * stored with its signed `preview` entry in one store operation. From there approve, deny,
 * cancel, wait and execute serve it as any transaction, through the same door. A person
 * approves every plan: the policy's lanes approve single actions only.
 */
import { randomBytes } from 'node:crypto';
import { fail } from '../../protocol/errors.js';
import { escapeText } from '../../protocol/escape-text.js';
import { previewDigestInput, requestHash, sha256Hex } from '../../protocol/hash.js';
import type { PreviewEnvelope, PreviewResult } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { MAX_PLAN_PREVIEW_BYTES, PLAN_ACTION, planDigest, planTitle } from '../../protocol/plan.js';
import { minRoleForRisk, riskRank, type Risk } from '../../protocol/risk.js';
import type { Plan } from '../../protocol/wire/preview.js';
import { countsForLog, type MaskCounts } from '../../mask/mask.js';
import { principalName } from '../identity.js';
import { cutAt } from '../output.js';
import { previewSteps, type BuiltStep } from '../plan-steps.js';
import { previewedTransaction } from '../stored-preview.js';
import { iso, type Request, type VerbContext } from './context.js';

/** A plan's summary names its steps, cut to what a list line shows. */
const MAX_PLAN_SUMMARY = 400;

export async function planPreview(ctx: VerbContext, r: Request<ParsedParams<'plan.preview'>>): Promise<PreviewResult> {
  const who = r.caller;
  // An unattended principal's requests are proposals a person re-previews one action at a time
  // (`airlock inbox run`): a plan could wait there but never run, so it is refused at once.
  if (who.unattended) fail('authorization', 'unattended_plan', 'an unattended principal proposes single actions: a plan waits for a person at the inbox, which re-previews one action at a time', 'propose each step with preview');
  ctx.space?.refuseNewWork();
  const masked: MaskCounts = {};
  const built = await previewSteps(ctx, who, r.params.steps, masked);
  const risk = built.map((b) => b.risk).reduce((m, k) => (riskRank(k) > riskRank(m) ? k : m), 'low' as Risk);
  const params = planParams(built);
  const hash = requestHash(PLAN_ACTION, params);
  const plan = approvedPlan(built);
  const summary = cutAt(`${planTitle(built.length)}: ${built.map((b) => b.shown.summary).join('; ')}`, MAX_PLAN_SUMMARY);
  const warnings = built.flatMap((b) => b.shown.warnings.map((w) => `step ${b.shown.step}: ${w}`));
  const created = ctx.now();
  const id = 'tx_' + randomBytes(12).toString('hex');
  const body: Omit<PreviewEnvelope, 'preview_digest'> = {
    transaction_id: id,
    action_name: PLAN_ACTION,
    params: { steps: built.map((b) => ({ action_name: b.a.name, params: b.shown.params })) },
    request_hash: hash,
    summary,
    risk,
    min_role: minRoleForRisk(risk),
    current_state: null,
    // The plan's mechanism is its steps'; its digest is the plan digest, which the preview digest covers with the rest.
    proposed_change: { change: null, mechanism: [], digest: plan.digest },
    side_effects: [...new Set(built.flatMap((b) => b.shown.side_effects))],
    reboot_required: plan.reboot_required,
    rollback_available: built.every((b) => b.shown.rollback_available || b.a.readOnly),
    warnings,
    requested_by: escapeText(principalName(who)),
    plan,
    created_at: iso(created),
    expires_at: iso(created + ctx.approvalTtlMs),
  };
  const canonical = previewDigestInput(body);
  const size = Buffer.byteLength(canonical, 'utf8');
  if (size > MAX_PLAN_PREVIEW_BYTES) {
    fail('validation', 'preview_too_large', `the plan's preview would be ${size} bytes, over the ${MAX_PLAN_PREVIEW_BYTES}-byte limit`, 'split it into smaller plans');
  }
  const digest = sha256Hex(canonical);
  const envelope: PreviewEnvelope = { ...body, preview_digest: digest };
  await ctx.store.createTransaction(
    previewedTransaction(envelope, params, who, created, created + ctx.approvalTtlMs),
    ctx.entry('preview', who, PLAN_ACTION, risk, hash, id, { preview_digest: digest, summary, warnings, masked: countsForLog(masked) }),
  );
  ctx.notify({ event: 'pending_approval', transaction_id: id, action: PLAN_ACTION, risk, summary, requested_by: envelope.requested_by, expires_at: envelope.expires_at });
  return envelope;
}

/** What the plan's request hash covers: each step's action and validated parameters, in order. */
function planParams(built: readonly BuiltStep[]): { steps: Array<{ action_name: string; params: Record<string, unknown> }> } {
  return { steps: built.map((b) => ({ action_name: b.a.name, params: b.params })) };
}

/** The plan as the approver sees it: the steps, the aggregated effects, the plan digest. */
function approvedPlan(built: readonly BuiltStep[]): Plan {
  const steps = built.map((b) => b.shown);
  const interrupted = built.flatMap((b) => (b.effects ?? []).flatMap((e) => (e.kind === 'unit' && e.interrupts ? [e.unit] : [])));
  return {
    steps,
    reboot_required: steps.some((s) => s.reboot_required),
    services_interrupted: [...new Set(interrupted)],
    computed_at_execution: steps.flatMap((s) => (s.computed_after === undefined ? [] : [s.step])),
    digest: planDigest(steps),
  };
}
