/**
 * `airlock witness`: run a C2SP tlog-witness service that cosigns the tree heads of the logs
 * it is configured for, and refuses any head that does not extend the last one it cosigned.
 * main.ts loads this file to declare the commands; their code (witness-run.ts) loads when one runs.
 */
import { Command } from 'commander';
import { lazy } from './lazy.js';

export function witnessCommand(): Command {
  const witness = new Command('witness').description('a witness for other hosts\' audit logs: cosigns each tree head that extends the last one it saw (C2SP tlog-witness)');

  witness
    .command('serve')
    .description('answer POST /add-checkpoint: check the log\'s signature and the consistency proof, persist, cosign')
    .requiredOption('--config <file>', 'the TOML file naming the witness and the logs it witnesses (format below)')
    .requiredOption('--key <file>', 'the witness key: a 32-byte seed file of mode 0600 (see --create-key)')
    .option('--create-key', 'create the key file when it is missing')
    .option('--listen <host:port>', 'address to listen on; port 0 picks a free one', '127.0.0.1:7380')
    .option('--state <file>', 'where the last cosigned head of each log is kept (default: witness-state.json beside the config)')
    .option('--cert <file>', 'serve HTTPS with this PEM certificate (chain); needs --tls-key')
    .option('--tls-key <file>', 'the PEM private key of --cert')
    .option('--json', 'print the start line as JSON')
    .addHelpText(
      'after',
      `
The config file:
  name = "witness.example/w1"                 # the key name of its cosignatures
  [[log]]
  origin = "host-a/airlock/0123456789abcdef"  # as the log's tree heads name it
  key = "host-a/airlock/0123456789abcdef+1a2b3c4d+AX..."   # the log's vkey; or keys = [...] to rotate

Give the logs' operators the witness's vkey (\`airlock witness key\`). A log submits
"old SIZE", its consistency proof and the new tree head; the witness answers 200 with its
cosignature, 409 with the size it last cosigned, 422 for a fork or a bad proof, 403 for a
bad log signature, 404 for a log it does not witness. It writes the new head to --state
(atomically, fsync'd) before it answers, so a restart never cosigns a fork: keep that file,
and back it up. GET /<hex sha256 of origin>/checkpoint shows the last cosigned head.
  airlock witness key --key /var/lib/airlock-witness/key --config witness.toml --create-key
  airlock witness serve --config witness.toml --key /var/lib/airlock-witness/key --listen 0.0.0.0:7380`,
    )
    .action(lazy(() => import('./witness-run.js'), 'serve'));

  witness
    .command('key')
    .description('print the witness\'s verifier key (vkey), the line a log\'s verifier trusts its cosignatures by')
    .requiredOption('--key <file>', 'the witness key file')
    .option('--name <name>', 'the witness name (default: name = ... of --config)')
    .option('--config <file>', 'read the witness name from this config file')
    .option('--create-key', 'create the key file when it is missing')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./witness-run.js'), 'key'));
  return witness;
}
