/**
 * `airlock passkey`: a person's passkeys for approvals. `add` registers a new one: begun here,
 * at the person's own terminal (so the daemon knows whose it is by the kernel's peer
 * credentials), made in the browser on the console's registration page, and finished here
 * with the factor the person holds now; with `--existing FILE`, one registered on another host
 * (`export` there), which signs on that page instead. Declarations only: the body loads when it runs.
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

A passkey you registered on another host of a fleet is added here the same way, from what
\`airlock passkey export ID\` printed there (\`-\` reads it from standard input):

  airlock passkey add --existing laptop.passkey.json

The page then asks that passkey to sign this host's challenge (nothing new is made), and
you give your factor on this host here, as for a new one.

Exit status: 0 registered; 3 refused (a wrong code, too many passkeys, a passkey that does
not verify); 4 the browser part did not happen within 5 minutes; 5 the --existing file is
not an exported passkey, is of another RP ID, or that passkey is registered here already;
7 the daemon is unreachable.`;

export function passkeyCommand(): Command {
  const passkey = new Command('passkey').description('your passkeys for approving in the web console (WebAuthn)').addHelpText('after', HELP);
  passkey
    .command('add')
    .description('register a passkey: a link for your browser and a check code here, then your current factor')
    .option('--name <name>', 'what to call it ("phone", "laptop"), 1 to 64 printable characters')
    .option('--existing <file>', 'a passkey of yours registered on another host, as `airlock passkey export` printed it there (- for standard input): it signs here instead of a new one being made')
    .option('--json', 'print {approver, passkey_id, name, registered_at} as JSON')
    .addHelpText('after', HELP)
    .action(lazy(() => import('./passkey-add.js'), 'passkeyAdd'));
  passkey
    .command('export')
    .argument('<id>', "the passkey's id: 16 hex digits, as `airlock doctor` and the log name it")
    .description('print the public part of one of your passkeys as JSON, to register it on another host of a fleet')
    .addHelpText(
      'after',
      `
Prints {credential_id, public_key, rp_id, name, transports}: nothing secret. On the other
host the passkey itself must sign that host's challenge, and you give your factor there,
before it counts (passkey.begin with \`existing\`, docs/protocol.md section 6.22). The hosts
of one fleet share the policy's [passkeys] rp_id and origins.

  airlock passkey export 3f9a0c1d2e4b5a69 > laptop.passkey.json

Exit status: 0 printed; 3 not an approver; 5 no passkey of yours has that id
(validation/no_such_passkey); 7 the daemon is unreachable.`,
    )
    .action(lazy(() => import('./passkey-export.js'), 'passkeyExport'));
  return passkey;
}
