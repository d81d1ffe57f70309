/** `airlock preview ACTION`: the daemon's preview, recorded as a transaction, and the next step (who approves, or the receipt the policy minted); with --wait, the whole flow. */
import type { Command } from 'commander';
import { buildParams } from './params-arg.js';
import { withClient } from './connect.js';
import { renderPolicyNotes } from './render.js';
import { renderPreview } from '../client/render-preview.js';
import { c, printJson } from './ui.js';

export async function preview(name: string, opts: { param: string[]; params?: string; json?: boolean; wait?: unknown; verbose?: boolean }, cmd: Command): Promise<number | void> {
  return withClient(cmd, async (cl) => {
    // --wait: preview, say who approves, wait for them, execute (src/cli/wait-flow.ts).
    if (opts.wait !== undefined) return (await import('./wait-flow.js')).previewAndWait(cl, name, buildParams(opts.param, opts.params), { ...opts, wait: opts.wait }, cmd);
    const p = await cl.preview(name, buildParams(opts.param, opts.params));
    if (opts.json) return printJson(p);
    process.stdout.write(renderPreview(p, { verbose: Boolean(opts.verbose) }) + renderPolicyNotes(p.policy_notes));
    if (p.auto_approval) {
      process.stdout.write(`\n${c.green('approved by policy')} (rule ${p.auto_approval.rule}); valid until ${p.auto_approval.expires_at}\n${c.dim('receipt')} ${p.auto_approval.receipt}\n`);
      process.stdout.write(`${c.cyan('next')}  airlock execute ${p.transaction_id} --receipt ${p.auto_approval.receipt}\n`);
    } else if (p.unattended) {
      process.stdout.write(`\n${c.yellow('proposed')}: you are unattended, so this waits in the inbox; a person runs ${c.bold(`airlock inbox run ${p.transaction_id}`)}\n`);
    } else process.stdout.write(`\n${c.cyan('next')}  an approver approves it, as themselves: ${c.bold(`airlock approve ${p.transaction_id}`)}\n`);
  });
}
