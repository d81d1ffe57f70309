/**
 * airlock_actions and airlock_describe_action: the catalogue as this host's daemon
 * describes it (the policy's risk raises applied, whether this host supports each
 * action), with each action's parameter schema. With no daemon to ask, the catalogue this
 * airlock was built with (src/protocol/catalogue-metadata.ts), saying so: support on this
 * host unknown, the risk the catalogue's (a host's policy may raise it, never lower it).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { withDaemon } from '../daemon.js';
import { hints, type ToolDeps } from '../deps.js';
import { actionDescription, pickAction, type Described } from '../schemas.js';
import { answer, failure } from '../tool-result.js';
import { AirlockError } from '../../protocol/errors.js';
import { describeActionMetadata, listActionMetadata } from '../../protocol/catalogue-metadata.js';

const OFFLINE_NOTE =
  "No Airlock daemon answered, so this is the catalogue this airlock was built with: whether this host supports each action is unknown, and a risk shown may be raised by the host's policy. Proposing needs the daemon.";

/** The daemon's answer, or, only when it cannot be reached, the built-in catalogue with supported_here null. */
async function fromDaemonOrBuiltIn<T>(online: () => Promise<T>, offline: () => T): Promise<{ value: T; offline: boolean }> {
  try {
    return { value: await online(), offline: false };
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'daemon_unreachable') return { value: offline(), offline: true };
    throw e;
  }
}

const family = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'a family name such as users or packages');
const actionName = z.string().regex(/^[A-Z][A-Za-z0-9]{0,63}$/, 'an action name such as ListUsers');

const line = (a: Pick<Described, 'name' | 'family' | 'risk' | 'min_role' | 'read_only' | 'reboot_required' | 'rollback_available' | 'supported_here' | 'description'>) =>
  `${a.name} (${a.family}): risk ${a.risk}, needs ${a.min_role}${a.read_only ? ', read-only' : ''}${a.reboot_required ? ', reboot' : ''}${a.rollback_available ? ', rollback' : ''}${a.supported_here === false ? ', NOT supported on this host' : ''}: ${a.description}`;

export function registerActions(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'airlock_actions',
    {
      title: 'List Airlock actions',
      description:
        'List the catalogue of typed actions this host offers (optionally one family): each with its risk, the minimum role, whether it is read-only, needs a reboot or can be rolled back, its platforms, whether this host supports it, and its parameters as JSON Schema. ' +
        'Nothing is proposed or changed. Pick an action here, then propose it with airlock_propose.',
      inputSchema: z.strictObject({ family: family.optional().describe('only this family (users, packages, services, files, ...)') }),
      outputSchema: z.object({ actions: z.array(actionDescription) }),
      annotations: hints({ readOnly: true, destructive: false, idempotent: true }),
    },
    async ({ family }) => {
      try {
        const got = await fromDaemonOrBuiltIn<Described[]>(
          () => withDaemon(deps.target, (cl) => cl.call('actions.list')),
          () => listActionMetadata().map((m) => ({ ...m, supported_here: null })),
        );
        const all = got.value;
        const actions = all.filter((a) => family === undefined || a.family === family).map(pickAction);
        const text = actions.length ? actions.map(line).join('\n') : `no action in family ${family}; families: ${[...new Set(all.map((a) => a.family))].join(', ')}`;
        return answer({ actions }, got.offline ? `${OFFLINE_NOTE}\n${text}` : text);
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'airlock_describe_action',
    {
      title: 'Describe an Airlock action',
      description:
        "One action of the catalogue: what it does, its risk and minimum role, reboot, rollback, platforms, whether this host supports it, its parameters' JSON Schema and a valid example. Nothing is proposed or changed.",
      inputSchema: z.strictObject({ action_name: actionName.describe('the action, e.g. CreateUser') }),
      outputSchema: actionDescription,
      annotations: hints({ readOnly: true, destructive: false, idempotent: true }),
    },
    async ({ action_name }) => {
      try {
        const got = await fromDaemonOrBuiltIn<Described>(
          () => withDaemon(deps.target, (cl) => cl.call('actions.describe', { action_name })),
          () => ({ ...describeActionMetadata(action_name), supported_here: null }),
        );
        const a = pickAction(got.value);
        const text = `${line(a)}\nparameters: ${JSON.stringify(a.params_schema)}\nexample: ${JSON.stringify(a.example)}`;
        return answer(a, got.offline ? `${OFFLINE_NOTE}\n${text}` : text);
      } catch (e) {
        return failure(e);
      }
    },
  );
}
