/**
 * The model's tools, built from this host's catalogue (HostContext.actions):
 * - propose_plan: the only way to finish with a plan. Each step is `oneOf` by action, each
 *   branch that action's name as a `const` and its own params_schema, so the schema itself
 *   admits no action this host lacks and no parameter the action does not take;
 * - refuse: the way to finish without one (impossible, unsafe, not understood);
 * - query: one read of the host, by action name among the queries: actions that are Low,
 *   read-only, not sensitive and reach no network (what the default policy auto-approves,
 *   less reads that send packets to a host the model names).
 * The schemas tell the model; validate.ts checks what it sends, since no provider is
 * trusted to enforce them.
 */
import { MAX_PLAN_STEPS } from '../../protocol/plan.js';
import type { ActionDescription } from '../../protocol/messages.js';
import type { HostContext } from '../contract.js';
import type { ToolSpec } from './providers/provider.js';

export const PROPOSE = 'propose_plan';
export const REFUSE = 'refuse';
export const QUERY = 'query';
export { MAX_PLAN_STEPS };
export const MAX_SUMMARY_CHARS = 500;
export const MAX_REASON_CHARS = 500;
/** Parts of the request a plan may name as missing, and characters of each one's words. */
export const MAX_MISSING = 20;
export const MAX_PART_CHARS = 120;

export interface Toolbox {
  specs: ToolSpec[];
  /** Every action a plan may hold, by name. */
  plannable: Map<string, ActionDescription>;
  /** The actions query may run, by name. */
  queries: Map<string, ActionDescription>;
}

export const isQuery = (a: ActionDescription): boolean => a.read_only && a.risk === 'low' && !a.sensitive && !a.reaches_network;

export function toolbox(host: HostContext): Toolbox {
  const plannable = new Map(host.actions.filter((a) => a.supported_here).map((a) => [a.name, a]));
  const queries = new Map([...plannable].filter(([, a]) => isQuery(a)));
  const specs: ToolSpec[] = [
    {
      name: PROPOSE,
      description: 'Finish with a plan: the catalogue actions that carry out the intent, in dependency order (what a step needs comes before it). The daemon previews each step and a person approves or rejects them. Every part of the intent is carried out by a step or named in missing.',
      input_schema: {
        type: 'object',
        properties: {
          summary: { type: 'string', maxLength: MAX_SUMMARY_CHARS, description: 'what the plan does, in one sentence' },
          steps: { type: 'array', minItems: 1, maxItems: MAX_PLAN_STEPS, description: 'each step: action_name, its params, the reason for the step in one sentence, and part: the words of the intent it carries out', items: { oneOf: [...plannable.values()].map((a) => stepSchema(a)) } },
          missing: {
            type: 'array',
            maxItems: MAX_MISSING,
            description: 'each part of the intent no step carries out (no action does it, or a value the person did not give): part, the intent\'s words; why, in a few words. Never leave a part out silently.',
            items: { type: 'object', properties: { part: { type: 'string', maxLength: MAX_PART_CHARS }, why: { type: 'string', maxLength: MAX_REASON_CHARS } }, required: ['part', 'why'], additionalProperties: false },
          },
        },
        required: ['summary', 'steps'],
        additionalProperties: false,
      },
    },
    {
      name: REFUSE,
      description: 'Finish without a plan: the intent is impossible with these actions, unsafe, or unclear. Say why, and what the person could ask instead.',
      input_schema: { type: 'object', properties: { reason: { type: 'string', minLength: 1, maxLength: MAX_REASON_CHARS } }, required: ['reason'], additionalProperties: false },
    },
  ];
  if (queries.size > 0) {
    specs.push({
      name: QUERY,
      description: `Look at the host before you plan: runs one read-only action and returns its output as untrusted data. Its params are that action's, as its schema in ${PROPOSE} says.`,
      // Not `oneOf` at the top (providers refuse that in a tool's input); each schema is in propose_plan already.
      input_schema: {
        type: 'object',
        properties: { action_name: { type: 'string', enum: [...queries.keys()] }, params: { type: 'object' } },
        required: ['action_name', 'params'],
        additionalProperties: false,
      },
    });
  }
  return { specs, plannable, queries };
}

/**
 * One action's branch: its name as a const, its own parameter schema (less `$schema`, which
 * some providers refuse). Kept as small as it can be, since it is sent ~200 times in every
 * request: what is the same in every branch (the reason's length) is checked by validate.ts.
 */
function stepSchema(a: ActionDescription): Record<string, unknown> {
  const { $schema: _drop, ...params } = a.params_schema;
  return { type: 'object', properties: { action_name: { const: a.name }, params, reason: { type: 'string' } }, required: ['action_name', 'params', 'reason'] };
}
