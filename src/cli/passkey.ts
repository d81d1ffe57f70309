/**
 * `airlock passkey`: a person's passkeys for approvals. `add` registers a new one: begun here,
 * at the person's own terminal (so the daemon knows whose it is by the kernel's peer
 * credentials), made in the browser on the console's registration page, and finished here
 * with the factor the person holds now. Declarations only: the body loads when it runs.
 */
import { Command } from 'commander';
import { lazy } from './lazy.js';

const HELP = `
A passkey approves a change on your phone or laptop, bound to that exact preview: the
daemon derives what your authenticator signs from the transaction and its preview, so
the signature approves nothing else (docs/security.md, "Passkeys").

  airlock passkey add --name phone

prints a link to the console's registration page (its id is after the #, so it reaches no
server log) and a check code. Open the link where the passkey lives (through
\`ssh -L 7443:localhost:7443 HOST\`, or at the console's https address), check the page shows
the same code, and make the passkey there. Then, here: the code from your authenticator app
for your first passkey; none when you hold a passkey already (the page asked that one to
vouch for the new one). Approve with it in the console: docs/console.md.

Exit status: 0 registered; 3 refused (a wrong code, too many passkeys); 4 the browser part
did not happen within 5 minutes; 7 the daemon is unreachable.`;

export function passkeyCommand(): Command {
  const passkey = new Command('passkey').description('your passkeys for approving in the web console (WebAuthn)').addHelpText('after', HELP);
  passkey
    .command('add')
    .description('register a passkey: a link for your browser and a check code here, then your current factor')
    .option('--name <name>', 'what to call it ("phone", "laptop"), 1 to 64 printable characters')
    .option('--json', 'print {approver, passkey_id, name, registered_at} as JSON')
    .addHelpText('after', HELP)
    .action(lazy(() => import('./passkey-add.js'), 'passkeyAdd'));
  return passkey;
}
