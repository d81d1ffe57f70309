/**
 * `airlock unmask TRANSACTION`: a person sees a read's output in clear. The daemon masks
 * every secret in what it sends; this asks it for the same read again as an unmasking
 * preview (High risk whatever the read's own), which only its requester may approve, with
 * their second factor, and whose clear output goes to that connection alone. The signed
 * log records who unmasked what, and how many secrets of each kind the output held.
 */
import type { Command } from 'commander';
import { escapeText } from '../protocol/escape-text.js';
import { AirlockError } from '../protocol/errors.js';
import { isRecorded } from '../protocol/messages.js';
import { approveInteractively } from './approve.js';
import { withClient } from './connect.js';
import { c, EXIT, printJson } from './ui.js';
import { livePreview } from '../protocol/compacted.js';

export async function unmask(id: string, opts: { json?: boolean }, cmd: Command): Promise<void> {
  await withClient(cmd, async (cl) => {
    const tx = await cl.transaction(id);
    const p = await cl.preview(tx.action_name, livePreview(tx).params, undefined, true);
    const grant = await approveInteractively(cl, p.transaction_id, !!opts.json);
    // An unmasking approval is its requester's alone, never counted with another person's (approve.ts personsNeeded): a recorded one is a daemon of another version.
    if (isRecorded(grant)) throw new AirlockError('integrity', 'unexpected_recorded', `the daemon recorded the approval of ${p.transaction_id} without a receipt, which an unmasking approval never is`, 'upgrade airlock so that client and daemon are the same version');
    const r = await cl.execute(p.transaction_id, p.action_name, p.params, grant.receipt);
    if (opts.json) return printJson(r);
    process.stderr.write(c.yellow(`clear output of ${escapeText(tx.action_name)} (as ${p.transaction_id}); it holds secrets: do not paste it into a chat\n`));
    for (const line of r.output) process.stdout.write(line + '\n');
    if (r.state !== 'Succeeded') process.exitCode = EXIT.failed;
  });
}
