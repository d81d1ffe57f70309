/**
 * Interactive approval. Reads the answer from the controlling terminal (/dev/tty),
 * not stdin, so a pipe from an agent cannot answer; shows exactly the stored
 * preview after checking its digest; high risk needs the action name typed.
 */
import { openSync, createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import type { ApprovalGrant } from '../protocol/messages.js';
import { previewDigestMatches, renderPreview } from './render.js';
import { c } from './ui.js';

function openTerminal() {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r+');
  } catch {
    throw new AirlockError('authorization', 'no_terminal', 'approving needs a person at a terminal, and this process has none', 'run `sudo airlock approve ID` yourself in a terminal');
  }
  const input = createReadStream('', { fd, autoClose: false });
  const output = createWriteStream('', { fd, autoClose: false });
  return { rl: createInterface({ input, output, terminal: true }), output, close: () => (input.destroy(), output.destroy()) };
}

export async function approveInteractively(cl: AirlockClient, id: string, quietStdout: boolean): Promise<ApprovalGrant> {
  const tx = await cl.transaction(id);
  if (!previewDigestMatches(tx.preview)) {
    throw new AirlockError('integrity', 'preview_digest', 'the preview the daemon returned does not match its own digest; refusing to show or approve it');
  }
  if (tx.state !== 'Previewed') throw new AirlockError('stale_approval', 'not_pending', `${id} is ${tx.state}, not waiting for approval`);
  const term = openTerminal();
  try {
    const screen = quietStdout ? term.output : process.stdout;
    screen.write('\n' + renderPreview(tx.preview) + '\n');
    if (!cl.welcome.principal.approver) screen.write(c.yellow(`note: ${cl.welcome.principal.user} is not an approver; the daemon will refuse.\n`));
    if (tx.preview.risk === 'high') {
      const typed = (await term.rl.question(`${c.red('High risk.')} Type the action name (${tx.preview.action_name}) to approve, anything else to refuse: `)).trim();
      if (typed !== tx.preview.action_name) throw new AirlockError('authorization', 'not_confirmed', 'not approved: the action name was not typed');
    } else {
      const yes = (await term.rl.question(`Approve ${tx.preview.action_name} (${tx.preview.risk} risk)? [y/N] `)).trim().toLowerCase();
      if (yes !== 'y' && yes !== 'yes') throw new AirlockError('authorization', 'not_confirmed', 'not approved');
    }
  } finally {
    term.rl.close();
    term.close();
  }
  return cl.approve(id, tx.preview.preview_digest);
}
