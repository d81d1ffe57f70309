/**
 * `airlock actions` and `airlock describe`: the daemon's answer when it can be reached
 * (effective risk under this host's policy, and whether this host supports each action);
 * without a daemon, the catalogue this airlock was built with
 * (src/protocol/catalogue-metadata.ts), saying so, since the host's part is then unknown.
 */
import type { Command } from 'commander';
import { describeActionMetadata, listActionMetadata, type ActionMetadata } from '../protocol/catalogue-metadata.js';
import type { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import type { ActionDescription } from '../protocol/messages.js';
import { withClientOrOffline } from './connect.js';
import { c, printJson, riskColour, table } from './ui.js';

/** An action described without a daemon: `supported_here` is null (unknown), `risk` the catalogue's. */
type OfflineDescription = ActionMetadata & { supported_here: null };
type Described = ActionDescription | OfflineDescription;

const offline = (m: ActionMetadata): OfflineDescription => ({ ...m, supported_here: null });

/** On stderr, so that stdout (a table or JSON) stays what it is with a daemon. */
function noteOffline(why: AirlockError): void {
  process.stderr.write(
    `${c.yellow('note')}  ${escapeText(why.message)}: this is the catalogue this airlock was built with.\n` +
      `      Without the daemon, whether this host supports each action, and any risk its policy raises, are unknown.\n`,
  );
}

export async function listActions(opts: { family?: string; json?: boolean }, cmd: Command): Promise<void> {
  const keep = (a: { family: string }) => !opts.family || a.family === opts.family;
  const list: Described[] = await withClientOrOffline(
    cmd,
    async (cl) => (await cl.call('actions.list')).filter(keep),
    (why) => (noteOffline(why), listActionMetadata(opts.family).map(offline)),
  );
  if (opts.json) return printJson(list);
  const support = (a: Described) => (a.supported_here === false ? c.dim('n/a here') : '');
  process.stdout.write(table(list.map((a) => [a.name, a.family, riskColour(a.risk), a.min_role, support(a), a.description]), ['action', 'family', 'risk', 'role', '', 'description']));
}

export async function describeAction(name: string, opts: { json?: boolean }, cmd: Command): Promise<void> {
  const a: Described = await withClientOrOffline(
    cmd,
    (cl) => cl.call('actions.describe', { action_name: name }),
    (why) => (noteOffline(why), offline(describeActionMetadata(name))),
  );
  if (opts.json) return printJson(a);
  process.stdout.write(
    `${c.bold(a.name)} (${a.family}) — ${a.description}\n  risk ${riskColour(a.risk)}, needs ${a.min_role}; reboot ${a.reboot_required ? 'yes' : 'no'}; rollback ${a.rollback_available ? 'yes' : 'no'}${a.read_only ? `; read-only${a.sensitive ? ', sensitive (never approved by the reads rule)' : ''}${a.reaches_network ? ', reaches the network' : ''}` : ''}\n` +
      (a.supported_here === null ? `  ${c.dim("risk and role are the catalogue's (this host's policy may raise them); support on this host is unknown without the daemon")}\n` : '') +
      `  parameters:\n${JSON.stringify(a.params_schema, null, 2).replace(/^/gm, '    ')}\n  example: airlock preview ${a.name} --params '${JSON.stringify(a.example)}'\n`,
  );
}
