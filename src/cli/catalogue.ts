/**
 * `airlock actions` and `airlock describe`: the daemon's answer when it can be reached
 * (effective risk under this host's policy, and whether this host supports each action);
 * without a daemon, the catalogue this airlock was built with
 * (src/protocol/catalogue-metadata.ts), saying so, since the host's part is then unknown.
 */
import type { Command } from 'commander';
import { catalogueMetadata, describeActionMetadata, FAMILY_DESCRIPTIONS, listActionMetadata, resolveActionName, type ActionMetadata } from '../protocol/catalogue-metadata.js';
import type { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import type { ActionDescription } from '../protocol/messages.js';
import { withClientOrOffline } from './connect.js';
import { c, EXIT, printJson, riskColour, table } from './ui.js';
import { page } from './pager.js';

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

export async function listActions(opts: { family?: string; json?: boolean; pager?: boolean }, cmd: Command): Promise<void> {
  const families = catalogueMetadata().families;
  if (opts.family !== undefined && !families.includes(opts.family)) {
    process.stderr.write(`${c.red('error')} there is no family named ${JSON.stringify(escapeText(opts.family.slice(0, 64)))}\n${c.cyan('next')}  families: ${families.join(', ')}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  const keep = (a: { family: string }) => !opts.family || a.family === opts.family;
  const list: Described[] = await withClientOrOffline(
    cmd,
    async (cl) => (await cl.call('actions.list')).filter(keep),
    (why) => (noteOffline(why), listActionMetadata(opts.family).map(offline)),
  );
  if (opts.json) return printJson(list);
  page(renderByFamily(list, families), { pager: opts.pager !== false });
}

/** The listing, a section per family in the catalogue's order: a header (name, what it covers), then its actions. */
function renderByFamily(list: Described[], order: readonly string[]): string {
  const support = (a: Described) => (a.supported_here === false ? c.dim('n/a here') : '');
  const rank = (f: string) => (order.includes(f) ? order.indexOf(f) : order.length);
  const groups = [...new Set(list.map((a) => a.family))].sort((x, y) => rank(x) - rank(y));
  // One set of column widths for the whole listing, so the sections line up.
  const rows = list.map((a) => [a.name, riskColour(a.risk), a.min_role, support(a), escapeText(a.description)]);
  const lines = table(rows, ['action', 'risk', 'role', '', 'description']).split('\n');
  const [header, ...body] = lines;
  const out: string[] = [];
  for (const f of groups) {
    const about = FAMILY_DESCRIPTIONS[f];
    out.push(`${c.bold(escapeText(f))}${about ? c.dim(`  ${about}`) : ''}`, `  ${header}`);
    list.forEach((a, i) => a.family === f && out.push(`  ${body[i]}`));
    out.push('');
  }
  return out.join('\n');
}

export async function describeAction(name: string, opts: { json?: boolean }, cmd: Command): Promise<void> {
  const a: Described = await withClientOrOffline(
    cmd,
    // A name in the wrong case (installpackage) means the one action it names.
    (cl) => cl.call('actions.describe', { action_name: resolveActionName(name) ?? name }),
    (why) => (noteOffline(why), offline(describeActionMetadata(name))),
  );
  if (opts.json) return printJson(a);
  process.stdout.write(
    `${c.bold(a.name)} (${a.family}) — ${a.description}\n  risk ${riskColour(a.risk)}, needs ${a.min_role}; reboot ${a.reboot_required ? 'yes' : 'no'}; rollback ${a.rollback_available ? 'yes' : 'no'}${a.read_only ? `; read-only${a.sensitive ? ', sensitive (never approved by the reads rule)' : ''}${a.reaches_network ? ', reaches the network' : ''}` : ''}\n` +
      (a.supported_here === null ? `  ${c.dim("risk and role are the catalogue's (this host's policy may raise them); support on this host is unknown without the daemon")}\n` : '') +
      `  parameters:\n${JSON.stringify(a.params_schema, null, 2).replace(/^/gm, '    ')}\n  example: airlock preview ${a.name} --params '${JSON.stringify(a.example)}'\n`,
  );
}
