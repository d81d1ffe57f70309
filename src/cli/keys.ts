/**
 * `airlock keys rotate audit|approval`: replace the audit or the approval key (an admin person;
 * the daemon appends a key_rotated entry signed by both keys). Declarations only: the body
 * (keys-run.ts) loads when the command runs.
 */
import { Command } from 'commander';
import { lazy } from './lazy.js';

const HELP = `
The audit key signs the log; the approval key signs receipts. Each rotates on its own:
the daemon writes a new key, appends a key_rotated entry that both the old and the new
key sign, and from then on signs with the new one. Older entries stay verifiable: the
verifier follows the rotation from the first key to the current one.

After an audit rotation, auditors keep verifying with the key file they have (the log's
first key), or export the whole history: airlock audit pubkey --history --out FILE.
After an approval rotation, approvals given before it no longer execute: preview and
approve again.

  sudo airlock keys rotate audit           # asks y/N at a terminal
  sudo airlock keys rotate approval --yes  # no terminal: --yes`;

export function keysCommand(): Command {
  const keys = new Command('keys').description('the daemon\'s signing keys: rotate the audit or the approval key').addHelpText('after', HELP);
  keys
    .command('rotate')
    .description('replace the audit or the approval key (admin, as a person): a log entry signed by both keys says so')
    .argument('<key>', 'audit or approval')
    .option('-y, --yes', 'rotate without asking (needed when there is no terminal)')
    .option('--json', 'print {key, old_key_id, new_key_id, seq} as JSON')
    .addHelpText('after', '\nExit status: 0 rotated; 2 not confirmed (no terminal and no --yes, or not answered y).')
    .action(lazy(() => import('./keys-run.js'), 'rotate'));
  return keys;
}
