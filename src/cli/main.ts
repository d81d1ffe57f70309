/**
 * The `airlock` command line. An unprivileged client of the daemon's socket: it
 * never imports daemon or store code (a test enforces it).
 *
 * This file declares the commands with commander and nothing else: each command's
 * code is loaded when it runs (lazy.ts), so `airlock --help` starts in a few
 * milliseconds more than node itself (test/unit/cli-startup.test.ts lists what it may
 * import; `npm run bench` measures it). A new command is a few lines here, its code
 * in its own file:
 *
 *   program
 *     .command('deny')
 *     .description('...')
 *     .argument('<transaction>')
 *     .addOption(jsonOpt())
 *     .action(lazy(() => import('./deny.js'), 'deny'));   // deny(id, opts, cmd): exit code or nothing
 *
 * A group with subcommands is a function in its own file that builds it the same way
 * (see audit.ts), added with program.addCommand.
 */
import { Command, Option } from 'commander';
import { APPROVER_GROUP } from '../protocol/risk.js';
import { adminCommands } from './admin.js';
import { auditCommand } from './audit.js';
import { lazy } from './lazy.js';
import { inboxCommand, policyCommand } from './policy.js';
import { tokenCommand } from './token.js';
import { mcpServerCommand } from '../mcp/command.js';
import { totpCommand } from './totp.js';
import { EXIT } from './ui.js';
import { setupCommand } from './setup/index.js';

const program = new Command('airlock')
  .description(
    'Let an AI agent administer this host without a shell: it asks for typed actions,\n' +
      'a person approves the exact previewed change, the daemon executes it and signs a log.',
  )
  .version('0.1.0')
  .option('-s, --socket <path>', 'daemon socket (default $AIRLOCK_SOCKET or /run/airlock/airlock.sock)')
  .showHelpAfterError('(add --help for usage)')
  .addHelpText(
    'after',
    `
The flow:
  agent$  airlock preview AddAuthorizedKey --param user=deploy --param key="ssh-ed25519 AAAA..."
  human$  airlock approve tx_...             # as yourself, no sudo: shows the preview, prints a receipt
  agent$  airlock execute tx_... --receipt alr1....
  anyone$ airlock audit verify --pubkey audit.pub --db /var/lib/airlock/airlock.db

Or the agent waits for the person, and nobody pastes a receipt:
  agent$  airlock preview CreateGroup --param group=web --wait   # says who approves, waits, executes
  human$  airlock approve tx_...             # or: airlock deny tx_... --reason "not now"

Exit codes: 0 ok, 1 action failed (or log broken), 2 usage (or cannot verify),
3 authorization, 4 stale approval, 5 validation, 6 conflict, 7 transient/unreachable,
8 unsupported platform, 9 integrity, 10 execution error. See docs/cli.md.`,
  );

const jsonOpt = () => new Option('--json', 'print machine-readable JSON');
/** -v: a preview with the raw JSON of its parameters, current state and change, and whole digests. */
const verboseOpt = () => new Option('-v, --verbose', 'show the preview with its parameters, the state read from the host and the change as JSON, and whole digests');
/** `--wait [SECONDS]` (src/cli/wait.ts): wait for a person instead of needing a receipt. */
const waitOpt = (what: string) => new Option('-w, --wait [seconds]', `${what} (at most SECONDS; without a number, until the preview expires)`);
const WAIT_HELP = `
While it waits, a line on a terminal's stderr shows the time waited and the time the
preview has left; Ctrl-C stops waiting and leaves the request as it is. The receipt
comes from the daemon, to the requester only. Put --wait after the other arguments.
Exit status: as for execute (0 done, 1 the action failed); 3 a person denied it (the
message gives their reason); 4 it expired, was canceled, or already ran; 7 nobody
decided within SECONDS (\`airlock execute ID --wait\` waits again).`;
const PARAM_OPTION = ['-p, --param <k=v>', 'a parameter: key=string or key:=JSON (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[]] as const;

program
  .command('actions')
  .description('list the catalogue: every action the agent can ask for, with its risk (no daemon needed)')
  .addOption(jsonOpt())
  .option('--family <name>', 'only this family')
  .action(lazy(() => import('./catalogue.js'), 'listActions'));

program
  .command('describe')
  .description('show one action: description, risk, parameters (JSON Schema) and an example (no daemon needed)')
  .argument('<action>')
  .addOption(jsonOpt())
  .action(lazy(() => import('./catalogue.js'), 'describeAction'));

program
  .command('preview')
  .description('ask the daemon what an action would change; records a transaction awaiting approval')
  .argument('<action>')
  .option(...PARAM_OPTION)
  .option('--params <json>', 'all parameters as one JSON object')
  .addOption(waitOpt('then wait for a person to approve it, and execute it'))
  .addOption(verboseOpt())
  .addOption(jsonOpt())
  .addHelpText('after', `
With --wait it goes on: it prints the preview on stderr, says who must approve it and
the exact command they run, waits, and executes it (the result on stdout; with --json,
{preview, result}). A preview the policy approves executes at once.${WAIT_HELP}`)
  .action(lazy(() => import('./preview.js'), 'preview'));

program
  .command('show')
  .description('show a transaction: its preview, state and result')
  .argument('<transaction>')
  .addOption(verboseOpt())
  .addOption(jsonOpt())
  .action(lazy(() => import('./show.js'), 'show'));

program
  .command('approve')
  .description(`approve a previewed transaction: a person in ${APPROVER_GROUP}, as themselves, at a terminal`)
  .argument('<transaction>')
  .addOption(verboseOpt())
  .addOption(jsonOpt().default(false).argParser(() => true))
  .addHelpText(
    'after',
    `
Run it as yourself, without sudo: the daemon judges you by your own groups (an
approval through sudo counts as you too, and sudo makes nobody an approver).
It refuses at once (exit 3) when you may not approve. Otherwise it shows the
stored preview (after checking its digest), asks for your authenticator code when
one is needed (High risk, Medium where the policy says so, and always for a request
made under your own account, where the agent runs as you), then for confirmation;
High risk needs the action name typed. Prints the receipt the requester executes with.`,
  )
  .action(lazy(() => import('./approve.js'), 'approve'));

program
  .command('execute')
  .description('execute an approved transaction with its receipt, or once a person approves it (--wait); the requester only')
  .argument('<transaction>')
  .option('-r, --receipt <receipt>', 'the receipt printed by `airlock approve`')
  .addOption(waitOpt('no receipt: wait for a person to approve it, then execute').conflicts('receipt'))
  .addOption(jsonOpt())
  .addHelpText('after', `
Give the receipt the approver printed, or --wait: then the daemon hands you (the
requester, and nobody else) the receipt the moment a person approves, and it runs.${WAIT_HELP}`)
  .action(lazy(() => import('./execute.js'), 'execute'));

program
  .command('deny')
  .description('refuse a previewed transaction, with a reason its requester is told (a person who may approve it; no code needed)')
  .argument('<transaction>')
  .option('--reason <text>', 'why, at most 500 characters: shown to the requester and signed into the log')
  .addOption(jsonOpt())
  .addHelpText(
    'after',
    `
Who may deny: the people who may approve it (in ${APPROVER_GROUP}, with the role its
risk needs, as themselves), with no authenticator code: refusing is the safe direction.
Only a transaction still waiting for approval is denied; an approved one is canceled
(\`airlock cancel ID\`). A requester waiting for it (\`airlock execute ID --wait\`, an
agent's tool) is told at once, with the reason; the signed log records who and why.
Exit status: 0 denied; 3 you may not (not an approver, role too low, a token);
4 it no longer waits for approval; 5 no such transaction, or a reason over 500 characters.`,
  )
  .action(lazy(() => import('./deny.js'), 'deny'));

program
  .command('run')
  .description('the whole flow at your terminal: preview, approval (yours with your code, or another approver\'s while this waits), execute')
  .argument('<action>')
  .option(...PARAM_OPTION)
  .option('--params <json>', 'all parameters as one JSON object')
  .addOption(verboseOpt())
  .addOption(jsonOpt())
  .action(lazy(() => import('./run.js'), 'run'));

program
  .command('cancel')
  .description('cancel a transaction that has not run (requester or an admin approver)')
  .argument('<transaction>')
  .addOption(jsonOpt())
  .action(lazy(() => import('./cancel.js'), 'cancel'));

program
  .command('history')
  .description('list transactions, newest first')
  .option('--status <state>', 'Previewed, Queued, Running, Succeeded, Failed, Canceled, RolledBack or NeedsReboot')
  .option('--action <name>', 'only this action')
  .option('--since <time>', 'ISO time (2026-11-29T10:00:00Z) or a duration ago (30m, 12h, 7d)')
  .option('--limit <n>', 'at most n rows (default 50)', (v) => Number(v))
  .addOption(jsonOpt())
  .action(lazy(() => import('./history.js'), 'history'));

program
  .command('mask')
  .description('mask secrets in text, as the daemon does before any client sees it (offline, no daemon)')
  .argument('[file...]', 'files to read (stdin when none, or -)')
  .option('--check', 'exit 1 when anything was masked (for scripts: "does this log hold a secret?")')
  .addOption(jsonOpt())
  .addHelpText(
    'after',
    `
Prints the text with each secret replaced by ⟦secret:KIND⟧ (private keys, cloud and
service tokens, JWTs, Authorization headers, URL passwords, password hashes, and
values of names such as password, token, secret, api_key, psk), and on stderr how
many of each kind. Use it before you paste a log or a config file into a chat:
  journalctl -u nginx -n 200 | airlock mask
  airlock mask /etc/netplan/*.yaml
Exit codes: 0 done, 1 with --check when something was masked, 2 a file unreadable.`,
  )
  .action(lazy(() => import('./mask.js'), 'mask'));

program
  .command('unmask')
  .description(`see a read's output in clear: you (a person in ${APPROVER_GROUP}) approve it yourself, with your code`)
  .argument('<transaction>', 'the transaction whose read to run again in clear')
  .addOption(jsonOpt())
  .addHelpText(
    'after',
    `
The daemon masks every secret it sends. This runs the same read again as an
unmasking request: High risk, approved by you alone with your authenticator code
(at this terminal), and its clear output comes to you and to nobody else; the
requester of the original never sees it. The signed log records that you unmasked
it and how many secrets of each kind the output held.`,
  )
  .action(lazy(() => import('./unmask.js'), 'unmask'));

program.addCommand(auditCommand());
for (const sub of adminCommands()) program.addCommand(sub);
program.addCommand(totpCommand());
program.addCommand(policyCommand());
program.addCommand(inboxCommand());
program.addCommand(tokenCommand());
program.addCommand(mcpServerCommand());
program.addCommand(setupCommand());


program
  .command('demo')
  .description('run the whole story on a throwaway copy of this host (needs root; changes nothing)')
  .option('--fast', 'no pauses between steps')
  .action(lazy(() => import('./demo.js'), 'runDemo'));

program.command('daemon').description('run the root daemon (see `airlock daemon --help`)');

// Usage errors exit 2 from every (sub)command, help and --version exit 0.
const usageExit = (cmd: Command): void => {
  cmd.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT.usage));
  cmd.commands.forEach(usageExit);
};
usageExit(program);
await program.parseAsync(process.argv);
