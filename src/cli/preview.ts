/**
 * `airlock preview ACTION`: the daemon's preview, recorded as a transaction, and the next step
 * (who approves, or the receipt the policy minted); with --wait, the whole flow.
 * `airlock preview --file PLAN.yaml|json`: the steps of the file as ONE plan (`plan.preview`:
 * each step previewed against the host the steps before it leave, one approval), the same way.
 */
import type { Command } from 'commander';
import type { AirlockClient } from '../client/client.js';
import type { PreviewResult } from '../protocol/messages.js';
import { readPlanFile } from './plan-file.js';
import { buildParams } from './params-arg.js';
import { withClient } from './connect.js';
import { renderPolicyNotes } from './render.js';
import { autoApprovedBy, renderPreview } from '../client/render-preview.js';
import { c, printJson } from './ui.js';
import { withMatchCode } from './with-match-code.js';

export async function preview(name: string | undefined, opts: { param: string[]; params?: string; file?: string; json?: boolean; wait?: unknown; verbose?: boolean }, cmd: Command): Promise<number | void> {
  const make = previewOf(name, opts, cmd); // the command line and the file checked before the daemon is reached
  return withClient(cmd, async (cl) => {
    // --wait: preview, say who approves, wait for them, execute (src/cli/wait-flow.ts).
    if (opts.wait !== undefined) return (await import('./wait-flow.js')).previewAndWait(cl, make.what, () => make.run(cl), { ...opts, wait: opts.wait }, cmd);
    const p = await make.run(cl);
    if (opts.json) return printJson(withMatchCode(p));
    process.stdout.write(renderPreview(p, { verbose: Boolean(opts.verbose) }) + renderPolicyNotes(p.policy_notes));
    if (p.auto_approval) {
      process.stdout.write(`\n${c.green(autoApprovedBy(p.auto_approval))}; valid until ${p.auto_approval.expires_at}\n${c.dim('receipt')} ${p.auto_approval.receipt}\n`);
      process.stdout.write(`${c.cyan('next')}  airlock execute ${p.transaction_id} --receipt ${p.auto_approval.receipt}\n`);
    } else if (p.unattended) {
      process.stdout.write(`\n${c.yellow('proposed')}: you are unattended, so this waits in the inbox; a person runs ${c.bold(`airlock inbox run ${p.transaction_id}`)}\n`);
    } else process.stdout.write(`\n${c.cyan('next')}  an approver approves it, as themselves: ${c.bold(`airlock approve ${p.transaction_id}`)}\n`);
  });
}

/** What is previewed: one action with its parameters, or the plan of a file (never both). */
function previewOf(name: string | undefined, opts: { param: string[]; params?: string; file?: string }, cmd: Command): { what: string; run: (cl: AirlockClient) => Promise<PreviewResult> } {
  if (opts.file !== undefined) {
    if (name !== undefined || opts.param.length || opts.params !== undefined) cmd.error('error: --file takes the steps from the file: give no action, --param or --params with it');
    const steps = readPlanFile(opts.file);
    return { what: `a plan of ${steps.length} step${steps.length === 1 ? '' : 's'}`, run: (cl) => cl.call('plan.preview', { steps }) };
  }
  if (name === undefined) cmd.error('error: name the action to preview (airlock catalogue lists them), or give a plan with --file PLAN.yaml');
  const params = buildParams(opts.param, opts.params);
  return { what: name, run: (cl) => cl.preview(name, params) };
}
