/**
 * Interactive approval. Reads the answer from the controlling terminal (/dev/tty),
 * not stdin, so a pipe from an agent cannot answer; shows exactly the stored
 * preview after checking its digest; high risk needs the action name typed.
 */
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import type { ApprovalGrant } from '../protocol/messages.js';
import { previewDigestMatches, renderPreview } from './render.js';
import { c } from './ui.js';
import { Terminal } from './terminal.js';

export async function approveInteractively(cl: AirlockClient, id: string, quietStdout: boolean): Promise<ApprovalGrant> {
  const tx = await cl.transaction(id);
  if (!previewDigestMatches(tx.preview)) {
    throw new AirlockError('integrity', 'preview_digest', 'the preview the daemon returned does not match its own digest; refusing to show or approve it');
  }
  if (tx.state !== 'Previewed') throw new AirlockError('stale_approval', 'not_pending', `${id} is ${tx.state}, not waiting for approval`);
  const term = Terminal.open();
  try {
    const show = (text: string) => (quietStdout ? term.write(text) : process.stdout.write(text));
    show('\n' + renderPreview(tx.preview) + '\n');
    if (!cl.welcome.principal.approver) show(c.yellow(`note: ${cl.welcome.principal.user} is not an approver; the daemon will refuse.\n`));
    if (tx.preview.risk === 'high') {
      const typed = term.ask(`${c.red('High risk.')} Type the action name (${tx.preview.action_name}) to approve, anything else to refuse: `);
      if (typed !== tx.preview.action_name) throw new AirlockError('authorization', 'not_confirmed', 'not approved: the action name was not typed');
    } else {
      const yes = term.ask(`Approve ${tx.preview.action_name} (${tx.preview.risk} risk)? [y/N] `).toLowerCase();
      if (yes !== 'y' && yes !== 'yes') throw new AirlockError('authorization', 'not_confirmed', 'not approved');
    }
    return await withSecondFactor(term, (code) => cl.approve(id, tx.preview.preview_digest, code));
  } finally {
    term.close();
  }
}

/** Wrong codes the terminal lets a person retype before giving up (the daemon counts them too). */
const CODE_ATTEMPTS = 3;

/**
 * Approves, asking for the authenticator code on the terminal when the daemon says
 * this risk needs one; a mistyped code may be typed again.
 */
async function withSecondFactor(term: Terminal, approve: (code?: string) => Promise<ApprovalGrant>): Promise<ApprovalGrant> {
  let code: string | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      return await approve(code);
    } catch (e) {
      const retry = e instanceof AirlockError && (e.code === 'totp_required' || (e.code === 'totp_invalid' && attempt < CODE_ATTEMPTS));
      if (!retry) throw e;
      if (e.code === 'totp_invalid') term.write(c.yellow(`${e.message}\n`));
      code = term.ask('Code from your authenticator app: ').replace(/\s+/g, '');
    }
  }
}
