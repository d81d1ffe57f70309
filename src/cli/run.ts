/**
 * `airlock run`: preview, have a person approve through sudo (whose password the
 * agent does not have), then execute as the requester. Root cannot run this for
 * itself: the daemon refuses self-approval, whoever asks.
 */
import { spawn } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import type { ApprovalGrant, ResultEnvelope } from '../protocol/messages.js';
import { renderPreview, renderResult } from './render.js';
import { c, printJson } from './ui.js';

export async function runFlow(cl: AirlockClient, action: string, params: Record<string, unknown>, o: { json: boolean; socket?: string }): Promise<ResultEnvelope> {
  if (cl.welcome.principal.uid === 0) {
    throw new AirlockError('authorization', 'self_approval', 'root cannot approve its own request, so `airlock run` as root cannot finish', 'run it as your own user (a member of airlock-dev or airlock-admin); you approve with sudo');
  }
  refuseUntrustedInstall();
  const p = await cl.preview(action, params);
  process.stderr.write(renderPreview(p));
  let grant: ApprovalGrant;
  if (p.auto_approval) {
    grant = p.auto_approval;
    process.stderr.write(c.green(`\napproved by the policy (rule ${p.auto_approval.rule})\n`));
  } else {
    process.stderr.write(c.cyan(`\nasking for approval with sudo (you may be asked for your password)...\n`));
    grant = await sudoApprove(p.transaction_id, o.socket);
  }
  const r = await cl.execute(p.transaction_id, p.action_name, p.params, grant.receipt);
  if (o.json) printJson({ preview: p, approval: { ...grant, receipt: undefined }, result: r });
  else process.stdout.write(renderResult(r));
  return r;
}

/**
 * sudo runs what this process names as root. Unless the node binary and Airlock's own files
 * are root-owned and writable by root only, whoever could edit them (the agent, if it cloned
 * Airlock into its home) would run code as root with the human's password.
 */
function refuseUntrustedInstall(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  for (const p of [process.execPath, realpathSync(process.argv[1]!), root, join(root, 'bin'), join(root, 'dist')]) {
    let st;
    try {
      st = statSync(realpathSync(p));
    } catch {
      continue; // dist is absent when run from sources: the sources then are what is checked
    }
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) {
      throw new AirlockError('authorization', 'untrusted_install', `${p} is not root-owned and protected, so \`airlock run\` will not hand it to sudo`, `install Airlock as root (e.g. in /opt/airlock), or approve in your own terminal with \`sudo airlock approve ID\``);
    }
  }
}

function sudoApprove(id: string, socket?: string): Promise<ApprovalGrant> {
  const args = ['--', process.execPath, process.argv[1]!, ...(socket ? ['--socket', socket] : []), 'approve', id, '--json'];
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/sudo', args, { stdio: ['inherit', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.on('error', () => reject(new AirlockError('authorization', 'no_sudo', 'sudo is not available to ask for approval', `ask an approver to run \`airlock approve ${id}\``)));
    child.on('close', () => {
      try {
        const v = JSON.parse(out);
        if (v.receipt) return resolve(v as ApprovalGrant);
        reject(AirlockError.fromWire(v.error));
      } catch {
        reject(new AirlockError('authorization', 'not_approved', 'the approval did not complete'));
      }
    });
  });
}
