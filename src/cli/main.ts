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
import { witnessCommand } from './witness.js';
import { lazy } from './lazy.js';
import { inboxCommand, policyCommand } from './policy.js';
import { tokenCommand } from './token.js';
import { mcpServerCommand } from '../mcp/command.js';
import { totpCommand } from './totp.js';
import { passkeyCommand } from './passkey.js';
import { sessionsCommand } from './sessions.js';
import { grantCommand, grantsCommand } from './grants.js';
import { keysCommand } from './keys.js';
import { EXIT } from './ui.js';
import { airlockVersion } from './version.js';
import { setupCommand } from './setup/index.js';
import { fleetCommand, hostsCommand, proxyCommand, relayCommand } from './fleet.js';

const program = new Command('airlock')
  .description(
    'Let an AI agent administer this host without a shell: it asks for typed actions,\n' +
      'a person approves the exact previewed change, the daemon executes it and signs a log.',
  )
  .version(airlockVersion())
  .option('-s, --socket <path>', 'daemon socket (default $AIRLOCK_SOCKET or /run/airlock/airlock.sock)')
  .option('-H, --host <name>', "reach that host's daemon through the relay (default $AIRLOCK_HOST; `airlock hosts` lists the names)")
  .showHelpAfterError('(add --help for usage)')
  .addHelpText(
    'after',
    `
The flow:
  agent$  airlock preview AddAuthorizedKey --param user=deploy --param key="ssh-ed25519 AAAA..."
  human$  airlock approve tx_...             # as yourself, no sudo: shows the preview, prints a receipt
  agent$  airlock execute tx_... --receipt alr1....
  anyone$ airlock audit pubkey --out audit.pub   # once; compare its key id out of band
  anyone$ airlock audit verify --pubkey audit.pub   # any role, through the daemon; or --db COPY, --bundle FILE

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
  .option('--no-pager', 'do not page the listing at a terminal ($PAGER, else less -FRX)')
  .action(lazy(() => import('./catalogue.js'), 'listActions'));

program
  .command('describe')
  .description('show one action: description, risk, parameters (JSON Schema) and an example (no daemon needed)')
  .argument('<action>')
  .addOption(jsonOpt())
  .action(lazy(() => import('./catalogue.js'), 'describeAction'));

program
  .command('preview')
  .description('ask the daemon what an action (or a plan of steps, --file) would change; records a transaction awaiting approval')
  .argument('[action]', 'the action (airlock catalogue lists them); none with --file')
  .option(...PARAM_OPTION)
  .option('--params <json>', 'all parameters as one JSON object')
  .option('-f, --file <plan>', 'a plan: the steps of this .yaml, .yml or .json file, previewed as one plan (one approval)')
  .addOption(waitOpt('then wait for a person to approve it, and execute it'))
  .addOption(verboseOpt())
  .addOption(jsonOpt())
  .addHelpText('after', `
With --wait it goes on: it prints the preview on stderr, says who must approve it and
the exact command they run, waits, and executes it (the result on stdout; with --json,
{preview, result}). A preview the policy approves executes at once.${WAIT_HELP}

A plan from a file (--file): dependent steps, in the order they run, previewed as ONE
plan: each step against the host as the steps before it leave it (the group step 1
creates exists for step 2), one approval for all, executed as one (the steps done are
rolled back at a failure). The file is a list of steps, as airlock_propose takes them:
  # deployers.yaml
  - action_name: CreateGroup
    params: {group: deployers}
  - action_name: AddUserToGroup
    params: {user: alice, group: deployers}
  airlock preview --file deployers.yaml           # a person then runs: airlock approve tx_...
  airlock execute tx_... --wait                   # runs the plan once it is approved
  airlock preview --file deployers.json --wait    # or all in one go
JSON is the same list ([{"action_name": ..., "params": {...}}]); {"steps": [...]} is read
too. At most 20 steps and 256 KiB; the name says JSON or YAML (.json, .yaml, .yml). A
file the command cannot use is refused before the daemon is asked (exit 5), with the step
and what to fix.`)
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

const PLANNER_OPTIONS = (c: Command) =>
  c
    .option('--provider <name>', 'offline, openai or anthropic: overrides the configuration for this run')
    .option('--model <name>', "the provider's model: overrides the configuration for this run")
    .addOption(jsonOpt());
const PLAN_HELP = `
The planner is an LLM when one is configured (~/.config/airlock/config.toml or the
environment), else the offline planner: no key, no network. It only proposes: the daemon
previews every step, and the risk shown is the daemon's, never the planner's. An intent
that holds a secret (a password, a token, a key) is refused before any planner sees it.`;

PLANNER_OPTIONS(
  program
    .command('plan')
    .description('turn a sentence into catalogue steps, each previewed by the daemon; nothing runs')
    .argument('<intent>', 'what you want done, in your words (quoted)'),
).addHelpText('after', `${PLAN_HELP}

Each step shows its action, the daemon's risk and summary, its transaction id and who
approves it (\`airlock approve tx_...\`); then the planner's notes (the offline planner
says what it did not understand). The steps wait for approval like any preview.
Two or more changes are previewed as ONE plan: each step against the host as the steps
before it leave it, one transaction, one approval (\`airlock approve tx_...\`, once), run
as one (\`airlock execute tx_... --wait\`). Reads, or one change with reads, stay steps of
their own, so the host's policy can approve the reads.
  airlock plan "restart nginx"
  airlock plan "create the group deployers" --json
  airlock plan "free some disk space on /var" --provider offline
A part of the request no step carries out ("install nginx and frobnicate it") makes the
plan INCOMPLETE: each such part is shown as "missing: PART: why", never dropped.
--json adds "proposal" (the steps as one plan: [{action_name, params}]), "complete" and
"missing".
Exit status: 0 every step of a complete plan previewed; 1 no plan to run as it stands (the
planner refused or proposed nothing, or the daemon refused a step: shown with its error);
11 the plan is incomplete (a part of the request has no step); 5 the intent was refused (a
secret in it, too long); 7 the daemon or the provider unreachable, or too slow.

With --hosts web1,web2,web3 (names the relay knows: \`airlock hosts\`), the planner plans once,
on the first host, and the same steps are previewed on every host, each against its own state
as its own transaction; each host's answer is shown under its name, and one that cannot be
reached or refuses is that host's answer alone (exit 1 when any host did not preview all).`)
  .option('--hosts <names>', 'plan once, then preview the same steps on each of these hosts through the relay (comma-separated)')
  .action(lazy(() => import('./plan.js'), 'plan'));

PLANNER_OPTIONS(
  program
    .command('do')
    .description('plan, then run it as `airlock run` does (after one question): dependent changes as one plan, one approval')
    .argument('<intent>', 'what you want done, in your words (quoted)'),
)
  .option('-y, --yes', 'do not ask "run this plan?" (for scripts; the plan or each step is still approved as usual)')
  .addHelpText('after', `${PLAN_HELP}

It shows the plan, asks once at your terminal, then runs it. Two or more changes are ONE
plan: shown whole (each step's change, the steps computed when the one before has run,
reboot and services interrupted), approved once (by you, with your code, where you may;
or by another approver while it waits: they run \`airlock approve tx_...\`), executed as
one: at a failure the steps done are rolled back and the result says each step's fate.
Otherwise each step in order: its preview, its approval (the host's policy approves
reads), its execution; it stops at the first step that fails, is denied or expires, and
cancels the steps after it.
  airlock do "add a group deployers and put alice and bob in it"   # one plan, one approval
When the daemon refuses any step, or the plan is incomplete (a part of the request has no
step), nothing runs.
  airlock do "restart nginx and show its last errors"
  airlock do "set the time zone to Europe/Paris" --yes --json
Exit status: 0 every step done; 1 a step failed, or no plan to run; 11 the plan is incomplete
(nothing ran); 3 a person denied a step, or you did not say yes; 4 a step expired; 5 the
intent was refused; 7 unreachable.`)
  .action(lazy(() => import('./plan.js'), 'doIntent'));

program
  .command('revert')
  .description('undo a finished change (or a whole plan) from the pre-state it kept: a new transaction, approved like the change')
  .argument('<transaction>', 'the transaction that succeeded (airlock history lists them)')
  .addOption(waitOpt('then wait for a person to approve the revert, and execute it'))
  .addOption(verboseOpt())
  .addOption(jsonOpt())
  .addHelpText('after', `
The revert is the action RevertTransaction: its preview shows each file put back as it was
(as a diff) and each command's undo, last step first; it needs the approval the reverted
change needed (a High change's revert is High), and runs like any change. A plan is reverted
as a whole, its steps in reverse order.

It is refused (exit 5) when:
  - the host drifted: something the change touched has changed since it finished (named);
  - the change cannot be reverted: its action's rollback is "none" (the reason is the one its
    preview showed), it did not succeed, its pre-state was over the 256 KiB kept, or
    retention compacted it.
After it ran, the result says whether the state the change touched reads as it did before
the change (state_check).

  airlock revert tx_0123456789abcdef01234567           # preview; an approver approves it
  airlock revert tx_0123456789abcdef01234567 --wait    # preview, wait for the approval, run it${WAIT_HELP}`)
  .action(lazy(() => import('./revert.js'), 'revert'));

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
program.addCommand(witnessCommand());
for (const sub of adminCommands()) program.addCommand(sub);
program.addCommand(totpCommand());
program.addCommand(passkeyCommand());
program.addCommand(sessionsCommand());
program.addCommand(grantCommand());
program.addCommand(grantsCommand());
program.addCommand(keysCommand());
program.addCommand(policyCommand());
program.addCommand(inboxCommand());
program.addCommand(tokenCommand());
program.addCommand(mcpServerCommand());
program.addCommand(setupCommand());
program.addCommand(relayCommand());
program.addCommand(hostsCommand());
program.addCommand(fleetCommand());
program.addCommand(proxyCommand());


program
  .command('console')
  .description('serve the web console: people sign in with a passkey, approve or deny, and grant folders for configuration edits from a browser (as airlock-console, never root)')
  .option('--listen <addr:port>', 'where to listen (default 127.0.0.1:7443: reach it through `ssh -L 7443:localhost:7443 HOST` or a reverse proxy)')
  .option('--origin <url>', "the origin browsers see it at (default: that of the policy's [console] url, else http://localhost:PORT)")
  .addHelpText(
    'after',
    `
The console relays and decides nothing: it lists what the signed-in person may approve,
shows each preview as \`airlock approve\` shows it with its match code, and carries their
passkey assertions and denials to the daemon, which verifies each one. It runs as its own
account, which the daemon recognises by its uid ([console] user, default airlock-console):
  sudo systemctl enable --now airlock-console     # the unit airlock install writes
  sudo -u airlock-console airlock console         # or by hand
Without --origin it serves at the origin of the policy's [console] url (http://localhost:PORT
when there is none); either must be among the policy's [passkeys] origins. A person
registers a passkey with \`airlock passkey add\` at their own terminal. docs/console.md
shows the SSH tunnel and a reverse proxy with a real certificate.
Exit status: 0 stopped (SIGTERM, Ctrl-C); 3 run as root; 5 a bad --listen or --origin;
7 the address is taken.`,
  )
  .action(lazy(() => import('./console.js'), 'runConsole'));

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
