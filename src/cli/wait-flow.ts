/**
 * The two commands that wait for a person instead of asking for a pasted receipt:
 * `airlock execute ID --wait [SECONDS]` (the requester's transaction, once approved) and
 * `airlock preview ACTION ... --wait [SECONDS]` or `--file PLAN --wait` (preview, say who must approve and the exact
 * command, wait, execute). Both run as the requester, with the receipt the daemon hands the
 * requester alone; the preview and what they say while waiting go to stderr, the result to
 * stdout (with --json: `execute`'s result envelope, or `{preview, result}`).
 */
import type { Command } from 'commander';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import type { PreviewResult } from '../protocol/messages.js';
import { escapeText } from '../protocol/escape-text.js';
import { renderPolicyNotes } from './render.js';
import { renderPreview } from '../client/render-preview.js';
import { executeShown, exitFor, status } from './executing.js';
import { c, printJson } from './ui.js';
import { awaitApproval, waitSeconds, whoApproves } from './wait.js';
import { livePreview } from '../protocol/compacted.js';
import { withMatchCode } from './with-match-code.js';

const say = (json: boolean, text: string) => !json && process.stderr.write(text);

/** `airlock execute ID --wait [SECONDS]`: waits for the approval of one's own transaction, then executes it. */
export async function executeWhenApproved(cl: AirlockClient, id: string, o: { wait: unknown; json?: boolean }, cmd: Command): Promise<number> {
  const json = Boolean(o.json);
  const seconds = waitSeconds(o.wait, cmd);
  const t = await cl.transaction(id);
  if (t.state === 'Previewed') say(json, `waiting for a person to approve ${t.transaction_id} (${escapeText(t.action_name)}, ${t.risk} risk); they run: ${c.bold(`airlock approve ${t.transaction_id}`)}\n`);
  const ok = await awaitApproval(cl, id, { seconds, quiet: json, expiresAt: t.expires_at });
  say(json, `${c.green('approved')} by ${escapeText(ok.approved_by)}; executing ${escapeText(t.action_name)} (${escapeText(t.summary)})...\n`);
  const r = await executeShown(cl, { transaction_id: id, action_name: t.action_name, params: livePreview(t).params }, ok.receipt, json, { announced: true });
  if (json) printJson(r);
  return exitFor(r);
}

/** `airlock preview ACTION --wait [SECONDS]` (and `--file PLAN --wait`): the preview, who must approve it and how, the wait, the execution. `what`: what is previewed; `make`: the preview. */
export async function previewAndWait(cl: AirlockClient, what: string, make: () => Promise<PreviewResult>, o: { wait: unknown; json?: boolean; verbose?: boolean }, cmd: Command): Promise<number> {
  const json = Boolean(o.json);
  const seconds = waitSeconds(o.wait, cmd);
  status(json, `previewing ${escapeText(what)}...`);
  const p = await make();
  say(json, renderPreview(p, { verbose: o.verbose === true }) + renderPolicyNotes(p.policy_notes));
  let receipt: string;
  if (p.auto_approval) {
    receipt = p.auto_approval.receipt;
    say(json, c.green(`\napproved by the policy (rule ${escapeText(p.auto_approval.rule)})\n`));
  } else if (p.unattended) {
    throw new AirlockError('authorization', 'unattended_proposal', `you are unattended in the policy, so ${p.transaction_id} waits in the inbox and is never approved as it stands`, `a person runs \`airlock inbox run ${p.transaction_id}\``);
  } else {
    say(json, '\n' + (await whoApproves(cl, p)));
    const ok = await awaitApproval(cl, p.transaction_id, { seconds, quiet: json, expiresAt: p.expires_at });
    receipt = ok.receipt;
    say(json, `${c.green('approved')} by ${escapeText(ok.approved_by)}\n`);
  }
  const r = await executeShown(cl, p, receipt, json);
  if (json) printJson({ preview: withMatchCode(p), result: r });
  return exitFor(r);
}
