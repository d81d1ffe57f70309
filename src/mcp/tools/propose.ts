/**
 * airlock_propose: the calling agent proposes typed steps itself (no second model, no
 * second key). By the rule every client follows (src/client/proposal.ts), steps holding two
 * or more changes go as ONE plan: the daemon previews each against the host the steps before
 * it leave, and the plan waits for one approval; otherwise the daemon previews each step
 * alone, and either approves it under the host's policy or leaves it waiting for a person. A
 * step it refuses comes back with its typed error; the other steps still preview.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AirlockClient } from '../../client/client.js';
import { PreviewEnvelopeSchema, type PolicyView, type PreviewResult, type Principal } from '../../protocol/messages.js';
import { APPROVER_GROUP, riskRank, type Risk } from '../../protocol/risk.js';
import { renderPreview } from '../../client/render-preview.js';
import { withDaemon } from '../daemon.js';
import { hints, type ToolDeps } from '../deps.js';
import { hostIn, wireError } from '../schemas.js';
import { eachHost, stepsByHost } from '../../client/fleet.js';
import { answer, errorText, failure } from '../tool-result.js';
import { forAgent } from '../agent-hints.js';
import { propose } from '../../client/proposal.js';
import type { Plan, ProposedChange } from '../../protocol/wire/preview.js';
import { ON_A_CHANGE } from '../workflow.js';
import { MAX_PLAN_STEPS, PLAN_ACTION } from '../../protocol/plan.js';
import { matchCode } from '../../protocol/match-code.js';

/** A proposal a person can still read through step by step: as many steps as a plan may hold. */
export const MAX_STEPS = MAX_PLAN_STEPS;

/**
 * One step. Its `params` are not given each action's schema here: a union discriminated by
 * action_name over the catalogue's 210 actions is 73 KB of JSON Schema without their
 * descriptions (89 KB with them), which would make tools/list four times its 29 KB and be
 * read by the model on every turn. Each action's schema is one airlock_describe_action call
 * away, and the daemon checks the parameters against it and says what a value accepts.
 */
const stepIn = z.strictObject({
  action_name: z.string().regex(/^[A-Z][A-Za-z0-9]{0,63}$/, 'an action name such as CreateUser').describe('the action (see airlock_actions)'),
  params: z.record(z.string(), z.unknown()).default({}).describe("the action's parameters, exactly as the params_schema airlock_describe_action gives for this action_name says"),
  host: hostIn,
});

const approval = z.discriminatedUnion('state', [
  z.object({ state: z.literal('approved_by_policy'), rule: z.string(), approved_by: z.string(), expires_at: z.string() }),
  // A person approved an identical request of yours earlier and let its repeats through for a while (the console's session lane).
  z.object({ state: z.literal('approved_by_session'), approved_by: z.string(), session_grant: z.string(), session_until: z.string(), expires_at: z.string() }),
  z.object({
    state: z.literal('waiting_for_person'),
    who: z.string(),
    command: z.string(),
    second_factor: z.boolean(),
  }),
  z.object({ state: z.literal('inbox'), command: z.string() }),
]);

/** A plan's steps as the approver sees them (src/protocol/wire/preview.ts PlanSchema), fields promised loosely as for a step. */
const planOut = z.object({
  steps: z.array(
    z.object({
      step: z.number().int(),
      action_name: z.string(),
      params: z.record(z.string(), z.unknown()),
      summary: z.string(),
      risk: z.string(),
      /** Its change is built when step N has run (it cannot be projected before); null: previewed now. */
      computed_after: z.number().int().nullable(),
      proposed_change: z.object({ change: z.unknown(), mechanism: z.array(z.record(z.string(), z.unknown())), digest: z.string() }).nullable(),
      side_effects: z.array(z.string()),
      warnings: z.array(z.string()),
      reboot_required: z.boolean(),
      rollback_available: z.boolean(),
    }),
  ),
  reboot_required: z.boolean(),
  services_interrupted: z.array(z.string()),
  computed_at_execution: z.array(z.number().int()),
  digest: z.string(),
});

/**
 * A previewed step: the preview envelope's fields an agent needs, with its approval state. The
 * mechanism is promised only as a list of objects, and ids, digests and times only as text
 * (the JSON Schema clients were given); the envelope's own schema states their forms.
 */
const previewed = PreviewEnvelopeSchema.pick({
  transaction_id: true,
  action_name: true,
  params: true,
  summary: true,
  risk: true,
  min_role: true,
  current_state: true,
  side_effects: true,
  warnings: true,
  reboot_required: true,
  rollback_available: true,
  rollback: true,
  requested_by: true,
  expires_at: true,
  preview_digest: true,
}).extend({
  ok: z.literal(true),
  transaction_id: z.string(),
  expires_at: z.string(),
  preview_digest: z.string(),
  /** The preview's match code (src/protocol/match-code.ts), computed here from preview_digest: the approver's prompt shows the same. */
  match_code: z.string().describe('a short code from preview_digest, such as K7Q-2MX: tell the person; their approval prompt shows the same code for this request'),
  proposed_change: z.object({ change: z.unknown(), mechanism: z.array(z.record(z.string(), z.unknown())), digest: z.string() }),
  approval,
  /** Present for a plan (action_name Plan): its steps, previewed in sequence, approved once with this transaction id. */
  plan: planOut.optional(),
  /** The host that previewed it (a name the relay knows); null or absent: this MCP server's own host. */
  host: z.string().nullable().optional(),
});
const refused = z.object({ ok: z.literal(false), action_name: z.string(), params: z.record(z.string(), z.unknown()), error: wireError, host: z.string().nullable().optional() });
export const stepOut = z.discriminatedUnion('ok', [previewed, refused]);
export type ProposedStep = z.infer<typeof stepOut>;

/** Whether approving this risk takes the approver's authenticator code under this policy. */
export const needsSecondFactor = (r: Risk, policy: Pick<PolicyView, 'second_factor_from'> | null) =>
  r === 'high' || (policy !== null && riskRank(r) >= riskRank(policy.second_factor_from));

/** The approval state of a fresh preview, from what the daemon answered. */
export function approvalOf(p: PreviewResult, policy: Pick<PolicyView, 'second_factor_from'> | null): z.infer<typeof approval> {
  const auto = p.auto_approval;
  if (auto?.session_grant) return { state: 'approved_by_session', approved_by: auto.approved_by, session_grant: auto.session_grant.grant_id, session_until: auto.session_grant.until, expires_at: auto.expires_at };
  if (auto) return { state: 'approved_by_policy', rule: auto.rule, approved_by: auto.approved_by, expires_at: auto.expires_at };
  if (p.unattended) return { state: 'inbox', command: `airlock inbox run ${p.transaction_id}` };
  return {
    state: 'waiting_for_person',
    who: `a person in ${APPROVER_GROUP} with role ${p.min_role} or above, as themselves (not this agent's account)`,
    command: `airlock approve ${p.transaction_id}`,
    second_factor: needsSecondFactor(p.risk, policy),
  };
}

export function previewedStep(p: PreviewResult, policy: PolicyView | null): z.infer<typeof previewed> {
  return {
    ok: true,
    transaction_id: p.transaction_id,
    action_name: p.action_name,
    params: p.params,
    summary: p.summary,
    risk: p.risk,
    min_role: p.min_role,
    current_state: p.current_state,
    proposed_change: mechanismOut(p.proposed_change),
    side_effects: p.side_effects,
    warnings: p.warnings,
    reboot_required: p.reboot_required,
    rollback_available: p.rollback_available,
    ...(p.rollback ? { rollback: p.rollback } : {}),
    requested_by: p.requested_by,
    expires_at: p.expires_at,
    preview_digest: p.preview_digest,
    match_code: matchCode(p.preview_digest),
    approval: approvalOf(p, policy),
    ...(p.plan ? { plan: planView(p.plan) } : {}),
  };
}

const mechanismOut = (c: ProposedChange) => ({ change: c.change, mechanism: c.mechanism as unknown as Array<Record<string, unknown>>, digest: c.digest });

/** Exactly the fields planOut promises. */
function planView(p: Plan): z.infer<typeof planOut> {
  return {
    steps: p.steps.map((s) => ({
      step: s.step,
      action_name: s.action_name,
      params: s.params,
      summary: s.summary,
      risk: s.risk,
      computed_after: s.computed_after ?? null,
      proposed_change: s.proposed_change ? mechanismOut(s.proposed_change) : null,
      side_effects: s.side_effects,
      warnings: s.warnings,
      reboot_required: s.reboot_required,
      rollback_available: s.rollback_available,
    })),
    reboot_required: p.reboot_required,
    services_interrupted: p.services_interrupted,
    computed_at_execution: p.computed_at_execution,
    digest: p.digest,
  };
}

function approvalLine(s: z.infer<typeof previewed>): string {
  const a = s.approval;
  if (a.state === 'approved_by_policy') return `approval: approved by the host's policy (rule ${a.rule}) until ${a.expires_at}: it can run now`;
  if (a.state === 'approved_by_session') return `approval: approved by ${a.approved_by}'s session grant ${a.session_grant} (they let identical requests through until ${a.session_until}): it can run now`;
  if (a.state === 'inbox') return `approval: you are unattended, so this is a proposal for the inbox; a person runs \`${a.command}\` or nothing happens`;
  const once = s.plan ? ` (one approval for all ${s.plan.steps.length} steps of the plan)` : '';
  return (
    `approval: WAITING for ${a.who}. They run, in their own terminal: ${a.command}${a.second_factor ? ' (with their authenticator code)' : ''}${once}. ` +
    `Tell the person the match code ${s.match_code}: they see the same code when they approve, which shows them it is this request.`
  );
}

/** The text the model reads: each preview as `airlock approve` shows it to the person, then what to do next. */
export function proposalText(steps: ProposedStep[], previews: Map<string, PreviewResult>, reason: string | undefined, self: Principal | null): string {
  const out: string[] = [];
  if (reason) out.push(`Reason you gave (not part of the signed record): ${reason}`);
  steps.forEach((s, i) => {
    if (!s.ok && s.action_name === PLAN_ACTION) return void out.push(`The plan was REFUSED by the daemon, nothing recorded (fix the step it names and propose the whole plan again):\n${errorText(s.error)}`);
    if (!s.ok) return void out.push(`Step ${i + 1}: ${s.action_name} was REFUSED by the daemon, nothing recorded:\n${errorText(s.error)}`);
    if (s.plan) return void out.push(`One plan of ${s.plan.steps.length} dependent steps, each previewed against the host the steps before it leave; one approval for all, run as one:\n${renderPreview(previews.get(s.transaction_id)!)}${approvalLine(s)}`);
    out.push(`Step ${i + 1}:\n${renderPreview(previews.get(s.transaction_id)!)}${approvalLine(s)}`);
  });
  const waiting = steps.flatMap((s) => (s.ok && s.approval.state === 'waiting_for_person' ? [s] : []));
  const ready = steps.flatMap((s) => (s.ok && s.approval.state !== 'inbox' ? [s.transaction_id] : []));
  out.push('');
  if (waiting.length) out.push(`Waiting for a person: ${waiting.map((s) => `\`${s.approval.state === 'waiting_for_person' ? s.approval.command : ''}\` (${s.risk} risk, match code ${s.match_code})`).join(', ')}. Only their own approval counts: a chat message is never an approval.`);
  if (self?.approver && waiting.length) out.push(`This agent's own account (${self.user}) is an approver: a person approving under that account needs their own authenticator code, every time.`);
  if (ready.length) out.push(`Then: airlock_execute with steps ${JSON.stringify(ready.map((id) => ({ transaction_id: id })))} and wait_for_approval (seconds), or stop here.`);
  return out.join('\n');
}

/** The steps proposed by the one rule (src/client/proposal.ts): a plan comes back as one step, action_name Plan. */
async function proposeAll(cl: AirlockClient, steps: Array<z.infer<typeof stepIn>>) {
  // The policy says whether Medium needs a code too; without it (an old daemon), say only what High needs.
  const policy = await cl.call('policy.show').catch(() => null);
  const proposal = await propose(cl, steps);
  const results = proposal.kind === 'plan' ? [proposal.result] : proposal.results;
  const out: ProposedStep[] = [];
  const previews = new Map<string, PreviewResult>();
  results.forEach((r, i) => {
    if (r.ok) {
      previews.set(r.preview.transaction_id, r.preview);
      out.push(previewedStep(r.preview, policy));
    } else if (proposal.kind === 'plan') out.push({ ok: false, action_name: PLAN_ACTION, params: { steps }, error: forAgent(r.error) });
    else out.push({ ok: false, action_name: steps[i]!.action_name, params: steps[i]!.params, error: forAgent(r.error) });
  });
  return { out, previews, self: cl.welcome.principal };
}

export function registerPropose(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_propose',
    {
      title: 'Propose Airlock steps',
      description:
        'Propose typed steps (actions from airlock_actions, with their parameters), in the order they should run. The daemon validates and previews each one and nothing on the host changes. ' +
        'Steps holding two or more changes (steps that are not reads) go as ONE plan: each previewed against the host the steps before it leave (a group created by step 1 exists for step 2), and the answer is one step, action_name Plan, with its transaction id, the steps in plan, and one approval for all; airlock_execute runs it as one. Otherwise each step goes alone: ' +
        "each step comes back with its transaction id, summary, the daemon's risk (never yours), minimum role, current state, the exact proposed change and mechanism, side effects, warnings, reboot and rollback, expiry, " +
        'and its approval state: approved by the host policy, or waiting for a person (with the exact command that person runs), or a proposal for the inbox. A step the daemon refuses returns its typed error and the others still preview. ' +
        ON_A_CHANGE,
      inputSchema: z.strictObject({
        steps: z.array(stepIn).min(1).max(MAX_STEPS).describe('the steps, in order'),
        reason: z.string().max(500).optional().describe('why, in a sentence, for the person (returned to you to show them; the daemon does not record it)'),
      }),
      outputSchema: z.object({ steps: z.array(stepOut), reason: z.string().nullable() }),
      // It records transactions and log entries in the daemon, so it is not read-only; it changes nothing on the host.
      annotations: hints({ readOnly: false, destructive: false, idempotent: false }),
    },
    async ({ steps, reason }) => {
      try {
        const groups = stepsByHost(steps);
        if (groups.size === 1 && groups.has(null)) {
          const { out, previews, self } = await withDaemon(deps.target, (cl) => proposeAll(cl, steps));
          return answer({ steps: out, reason: reason ?? null }, proposalText(out, previews, reason, self), out.every((s) => !s.ok));
        }
        // Steps for several hosts: each host previews its own steps against its own state, at once.
        const hosts = [...groups.keys()];
        const answers = await eachHost(hosts.map((h) => h ?? ''), (h) => withDaemon(deps.target, (cl) => proposeAll(cl, groups.get(h || null)!), h || null));
        const out: ProposedStep[] = [];
        const texts: string[] = [];
        for (const a of answers) {
          const name = a.host || 'this host';
          if (a.ok) {
            out.push(...a.value.out.map((s) => ({ ...s, host: a.host || null })));
            texts.push(`=== ${name} ===\n${proposalText(a.value.out, a.value.previews, undefined, a.value.self)}`);
          } else {
            const error = forAgent(a.error);
            out.push(...groups.get(a.host || null)!.map((s) => ({ ok: false as const, action_name: s.action_name, params: s.params, error, host: a.host || null })));
            texts.push(`=== ${name} ===\nNOT PROPOSED on ${name} (the other hosts are not affected):\n${errorText(error)}`);
          }
        }
        if (reason) texts.unshift(`Reason you gave (not part of the signed record): ${reason}`);
        texts.push(`Each host has its own transactions: airlock_execute runs them with each step's host, each host halting at its own first failure.`);
        return answer({ steps: out, reason: reason ?? null }, texts.join('\n\n'), out.every((s) => !s.ok));
      } catch (e) {
        return failure(e);
      }
    },
  );
}
