/** The body of `airlock keys rotate` (keys.ts declares it). */
import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { AirlockError } from '../protocol/errors.js';
import { withClient } from './connect.js';
import { printJson, reportError } from './ui.js';

const WHAT = {
  audit: 'the audit key (it signs the log; auditors keep their key file, or export the history afterwards)',
  approval: 'the approval key (it signs receipts; approvals not yet executed stop counting)',
} as const;

export async function rotate(key: string, o: { yes?: boolean; json?: boolean }, cmd: Command): Promise<number> {
  if (key !== 'audit' && key !== 'approval') throw new AirlockError('validation', 'bad_key_name', `no key ${JSON.stringify(key)}: rotate audit or approval`);
  if (!o.yes) {
    if (!process.stdin.isTTY || o.json) {
      reportError(new AirlockError('authorization', 'not_confirmed', `rotating ${key === 'audit' ? 'the audit' : 'the approval'} key needs a yes, and there is no terminal to ask: nothing was changed`, 'add --yes to rotate without asking'), Boolean(o.json));
      return 2;
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    let answer: string;
    try {
      answer = await rl.question(`Rotate ${WHAT[key]}? [y/N] `);
    } finally {
      rl.close();
    }
    if (!/^y(es)?$/i.test(answer.trim())) {
      reportError(new AirlockError('authorization', 'not_confirmed', 'not confirmed: nothing was changed'), false);
      return 2;
    }
  }
  const r = await withClient(cmd, (cl) => cl.call('keys.rotate', { key }));
  if (o.json) printJson(r);
  else {
    process.stdout.write(`rotated the ${r.key} key: ${r.old_key_id} -> ${r.new_key_id} (log entry ${r.seq}, signed by both)\n`);
    if (r.key === 'audit') process.stdout.write('  auditors: your key file still verifies the log; or write the whole history with\n  airlock audit pubkey --history --out FILE\n');
    else process.stdout.write('  approvals given before this no longer execute: preview and approve again\n');
  }
  return 0;
}
