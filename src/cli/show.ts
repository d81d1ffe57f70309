/** `airlock show TRANSACTION`: its stored preview, state and approver. */
import type { Command } from 'commander';
import { escapeText } from '../protocol/escape-text.js';
import { withClient } from './connect.js';
import { renderPreview } from './render.js';
import { c, printJson } from './ui.js';

export async function show(id: string, opts: { json?: boolean; verbose?: boolean }, cmd: Command): Promise<void> {
  await withClient(cmd, async (cl) => {
    const t = await cl.transaction(id);
    if (opts.json) return printJson(t);
    process.stdout.write(renderPreview(t.preview, { verbose: Boolean(opts.verbose) }) + `  ${c.dim('state')} ${escapeText(t.state)}${t.approved_by ? `   ${c.dim('approved by')} ${escapeText(t.approved_by)}` : ''}\n`);
  });
}
