/**
 * The `airlock` command line. An unprivileged client of the daemon's socket: it
 * never imports daemon or store code (a test enforces it).
 */
import { Command, Option } from 'commander';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import type { ResultEnvelope } from '../protocol/messages.js';
import { APPROVER_GROUP } from '../protocol/risk.js';
import { buildParams } from './params-arg.js';
import { withClient } from './connect.js';
import { renderHistory, renderPreview, renderResult } from './render.js';
import { approveInteractively } from './approve.js';
import { auditCommand } from './audit.js';
import { adminCommands } from './admin.js';
import { demoCommand } from './demo.js';
import { totpCommand } from './totp.js';
import { inboxCommand, policyCommand } from './policy.js';
import { tokenCommand } from './token.js';
import { setupCommand } from './setup/index.js';
import { runFlow } from './run.js';
import { c, EXIT, printJson, reportError, riskColour, table } from './ui.js';

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

Exit codes: 0 ok, 1 action failed (or log broken), 2 usage (or cannot verify),
3 authorization, 4 stale approval, 5 validation, 6 conflict, 7 transient/unreachable,
8 unsupported platform, 9 integrity, 10 execution error. See docs/cli.md.`,
  );

let exitCode = 0;
const json = (cmd: Command) => Boolean(cmd.optsWithGlobals().json);
/** Wraps a command body: errors become typed messages and exit codes. */
function act(fn: (...args: any[]) => Promise<number | void>) {
  return async (...args: any[]) => {
    const cmd = args[args.length - 1] as Command;
    try {
      exitCode = (await fn(...args)) ?? 0;
    } catch (e) {
      exitCode = reportError(e, json(cmd));
    }
  };
}
const jsonOpt = () => new Option('--json', 'print machine-readable JSON');
const PARAM_OPTION = ['-p, --param <k=v>', 'a parameter: key=string or key:=JSON (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[]] as const;

program
  .command('actions')
  .description('list the catalogue: every action the agent can ask for, with its risk')
  .addOption(jsonOpt())
  .option('--family <name>', 'only this family')
  .action(
    act(async (opts, cmd) =>
      withClient(cmd, async (cl) => {
        const list = (await cl.call('actions.list')).filter((a) => !opts.family || a.family === opts.family);
        if (json(cmd)) return printJson(list);
        process.stdout.write(table(list.map((a) => [a.name, a.family, riskColour(a.risk), a.min_role, a.supported_here ? '' : c.dim('n/a here'), a.description]), ['action', 'family', 'risk', 'role', '', 'description']));
      }),
    ),
  );

program
  .command('describe')
  .description('show one action: description, risk, parameters (JSON Schema) and an example')
  .argument('<action>')
  .addOption(jsonOpt())
  .action(
    act(async (name, _o, cmd) =>
      withClient(cmd, async (cl) => {
        const a = await cl.call('actions.describe', { action_name: name });
        if (json(cmd)) return printJson(a);
        process.stdout.write(
          `${c.bold(a.name)} (${a.family}) — ${a.description}\n  risk ${riskColour(a.risk)}, needs ${a.min_role}; reboot ${a.reboot_required ? 'yes' : 'no'}; rollback ${a.rollback_available ? 'yes' : 'no'}${a.read_only ? `; read-only${a.sensitive ? ', sensitive (never approved by the reads rule)' : ''}${a.reaches_network ? ', reaches the network' : ''}` : ''}\n` +
            `  parameters:\n${JSON.stringify(a.params_schema, null, 2).replace(/^/gm, '    ')}\n  example: airlock preview ${a.name} --params '${JSON.stringify(a.example)}'\n`,
        );
      }),
    ),
  );

program
  .command('preview')
  .description('ask the daemon what an action would change; records a transaction awaiting approval')
  .argument('<action>')
  .option(...PARAM_OPTION)
  .option('--params <json>', 'all parameters as one JSON object')
  .addOption(jsonOpt())
  .action(
    act(async (name, opts, cmd) =>
      withClient(cmd, async (cl) => {
        const p = await cl.preview(name, buildParams(opts.param, opts.params));
        if (json(cmd)) return printJson(p);
        process.stdout.write(renderPreview(p));
        if (p.auto_approval) {
          process.stdout.write(`\n${c.green('approved by policy')} (rule ${p.auto_approval.rule}); valid until ${p.auto_approval.expires_at}\n${c.dim('receipt')} ${p.auto_approval.receipt}\n`);
          process.stdout.write(`${c.cyan('next')}  airlock execute ${p.transaction_id} --receipt ${p.auto_approval.receipt}\n`);
        } else if (p.unattended) {
          process.stdout.write(`\n${c.yellow('proposed')}: you are unattended, so this waits in the inbox; a person runs ${c.bold(`airlock inbox run ${p.transaction_id}`)}\n`);
        } else process.stdout.write(`\n${c.cyan('next')}  an approver approves it, as themselves: ${c.bold(`airlock approve ${p.transaction_id}`)}\n`);
      }),
    ),
  );

program
  .command('show')
  .description('show a transaction: its preview, state and result')
  .argument('<transaction>')
  .addOption(jsonOpt())
  .action(
    act(async (id, _o, cmd) =>
      withClient(cmd, async (cl) => {
        const t = await cl.transaction(id);
        if (json(cmd)) return printJson(t);
        process.stdout.write(renderPreview(t.preview) + `  ${c.dim('state')} ${escapeText(t.state)}${t.approved_by ? `   ${c.dim('approved by')} ${escapeText(t.approved_by)}` : ''}\n`);
      }),
    ),
  );

program
  .command('approve')
  .description(`approve a previewed transaction: a person in ${APPROVER_GROUP}, as themselves, at a terminal`)
  .argument('<transaction>')
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
  .action(
    act(async (id, _o, cmd) =>
      withClient(cmd, async (cl) => {
        const grant = await approveInteractively(cl, id, json(cmd));
        if (json(cmd)) return printJson(grant);
        process.stdout.write(`\n${c.green('approved')} ${grant.transaction_id} by ${grant.approved_by}; valid until ${grant.expires_at}\n`);
        process.stdout.write(`${c.dim('receipt')} ${grant.receipt}\n${c.cyan('next')}  ${grant.executor} runs: airlock execute ${grant.transaction_id} --receipt ${grant.receipt}\n`);
      }),
    ),
  );

program
  .command('execute')
  .description('execute an approved transaction with its receipt (the requester only)')
  .argument('<transaction>')
  .requiredOption('-r, --receipt <receipt>', 'the receipt printed by `airlock approve`')
  .addOption(jsonOpt())
  .action(
    act(async (id, opts, cmd) =>
      withClient(cmd, async (cl) => {
        const t = await cl.transaction(id);
        if (process.stderr.isTTY && !json(cmd)) process.stderr.write(c.dim(`executing ${t.action_name} (${t.summary})...\n`));
        const r = await cl.execute(id, t.action_name, t.preview.params, opts.receipt);
        if (json(cmd)) printJson(r);
        else process.stdout.write(renderResult(r));
        return r.state === 'Succeeded' || r.state === 'NeedsReboot' ? EXIT.ok : EXIT.failed;
      }),
    ),
  );

program
  .command('run')
  .description('the whole flow at your terminal: preview, approval (yours with your code, or another approver\'s while this waits), execute')
  .argument('<action>')
  .option(...PARAM_OPTION)
  .option('--params <json>', 'all parameters as one JSON object')
  .addOption(jsonOpt())
  .action(
    act(async (name, opts, cmd) =>
      withClient(cmd, async (cl) => {
        const r: ResultEnvelope = await runFlow(cl, name, buildParams(opts.param, opts.params), { json: json(cmd) });
        return r.state === 'Succeeded' || r.state === 'NeedsReboot' ? EXIT.ok : EXIT.failed;
      }),
    ),
  );

program
  .command('cancel')
  .description('cancel a transaction that has not run (requester or an admin approver)')
  .argument('<transaction>')
  .addOption(jsonOpt())
  .action(
    act(async (id, _o, cmd) =>
      withClient(cmd, async (cl) => {
        const t = await cl.call('cancel', { transaction_id: id });
        if (json(cmd)) return printJson(t);
        process.stdout.write(`${t.transaction_id} is ${t.state}\n`);
      }),
    ),
  );

program
  .command('history')
  .description('list transactions, newest first')
  .option('--status <state>', 'Previewed, Queued, Running, Succeeded, Failed, Canceled, RolledBack or NeedsReboot')
  .option('--action <name>', 'only this action')
  .option('--since <time>', 'ISO time (2026-11-29T10:00:00Z) or a duration ago (30m, 12h, 7d)')
  .option('--limit <n>', 'at most n rows (default 50)', (v) => Number(v))
  .addOption(jsonOpt())
  .action(
    act(async (opts, cmd) =>
      withClient(cmd, async (cl) => {
        const rows = await cl.call('history', {
          ...(opts.status ? { state: opts.status } : {}),
          ...(opts.action ? { action: opts.action } : {}),
          ...(opts.since ? { since: parseSince(opts.since) } : {}),
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        });
        if (json(cmd)) return printJson(rows);
        process.stdout.write(renderHistory(rows));
      }),
    ),
  );

program.addCommand(auditCommand());
for (const sub of adminCommands()) program.addCommand(sub);
program.addCommand(totpCommand());
program.addCommand(policyCommand());
program.addCommand(inboxCommand());
program.addCommand(tokenCommand());
program.addCommand(demoCommand());
program.addCommand(setupCommand());
program.command('daemon').description('run the root daemon (see `airlock daemon --help`)');

function parseSince(s: string): string {
  const m = /^(\d+)([mhd])$/.exec(s);
  if (m) return new Date(Date.now() - Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd']).toISOString();
  if (Number.isNaN(Date.parse(s))) throw new AirlockError('validation', 'bad_since', `--since ${s} is neither an ISO time nor a duration like 30m, 12h, 7d`);
  return new Date(s).toISOString();
}

// Usage errors exit 2 from every (sub)command, help and --version exit 0.
const usageExit = (cmd: Command): void => {
  cmd.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT.usage));
  cmd.commands.forEach(usageExit);
};
usageExit(program);
await program.parseAsync(process.argv);
// Subcommands defined in other files set process.exitCode themselves; keep theirs.
if (exitCode !== 0) process.exitCode = exitCode;
