/** The bodies of `airlock grant`, `airlock grant revoke` and `airlock grants` (declared in grants.ts). */
import type { Command } from 'commander';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { withClient } from './connect.js';
import { exitFor } from './executing.js';
import { runFlow } from './run.js';
import { expiresAt } from '../client/grant-expiry.js';
import { grantsListed } from '../catalogue/families/files/grant-record.js';
import { c, printJson } from './ui.js';

export async function grant(name: string, o: Record<string, string | boolean | undefined>, cmd: Command): Promise<number> {
  const missing = (['account', 'folder', 'check'] as const).filter((k) => typeof o[k] !== 'string');
  if (missing.length) throw new AirlockError('validation', 'missing_option', `airlock grant needs ${missing.map((k) => `--${k}`).join(', ')}`, 'airlock grant NAME --account USER --folder DIR --check CHECKER [--reload UNIT] [--for 8h]; see airlock grant --help');
  if (o.reload && o.restart) throw new AirlockError('validation', 'two_follow_ups', 'give --reload or --restart, not both');
  const unit = (o.reload ?? o.restart) as string | undefined;
  const params = {
    name,
    account: o.account as string,
    folder: o.folder as string,
    checker: o.check as string,
    ...(unit ? { unit, follow_up: o.restart ? 'restart' : 'reload' } : {}),
    expires_at: expiresAt({ for: o.for as string | undefined, until: o.until as string | undefined }),
  };
  return withClient(cmd, async (cl) => exitFor(await runFlow(cl, 'GrantConfigEdits', params, { json: Boolean(o.json) })));
}

export async function revoke(name: string, cmd: Command): Promise<number> {
  const json = Boolean(cmd.optsWithGlobals().json);
  return withClient(cmd, async (cl) => exitFor(await runFlow(cl, 'RevokeConfigGrant', { name }, { json })));
}

/** `airlock grants`: ListConfigGrants (a read the policy's reads rule approves), its output read as one grant a line. */
export async function list(json: boolean, cmd: Command): Promise<number> {
  return withClient(cmd, async (cl) => {
    const p = await cl.preview('ListConfigGrants', {});
    if (!p.auto_approval) throw new AirlockError('authorization', 'reads_not_automatic', `ListConfigGrants waits for a person under this policy (${p.transaction_id})`, `an approver runs \`airlock approve ${p.transaction_id}\`, then \`airlock execute ${p.transaction_id}\``);
    const r = await cl.execute(p.transaction_id, p.action_name, p.params, p.auto_approval.receipt);
    const grants = grantsListed(r.output ?? [], Date.now());
    if (json) printJson({ grants });
    else if (!grants.length) process.stdout.write('no grants for configuration edits\n');
    else {
      for (const g of grants) {
        const then = g.follow_up ? `, then ${g.follow_up.verb} ${g.follow_up.unit}` : '';
        const state = escapeText(g.expired ? `expired ${g.expires_at}` : `until ${g.expires_at}`);
        process.stdout.write(escapeText(`${g.name}  ${g.account} edits under ${g.folder} (${g.checker}${then}; ${g.edit_risk} edits), `) + state + '\n');
      }
      process.stdout.write(`\n${c.cyan('next')}  airlock grant revoke NAME   (the next edit under it is refused)\n`);
    }
    return 0;
  });
}
