/**
 * `airlock totp`: a person's second factor for approvals (TOTP, RFC 6238).
 * enroll: a person enrols their own, from their own account (the host's first approver
 * through sudo, at the installing terminal); the QR code and the secret go to their terminal
 * (/dev/tty) only, never to stdout or --json, and the first code from the app proves it.
 * confirm: that first code, for an enrolment left pending. approve: another approver, with
 * their own code, vouches for a proven first enrolment. reset: an admin approver, through
 * sudo and with their own code, deletes another person's factor (logged and notified).
 * Codes are read from the terminal without echo.
 * main.ts loads this file to declare the commands: the client, the terminal and the QR
 * renderer are imported inside each action, when it runs.
 */
import { Command, Option } from 'commander';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import type { Terminal } from './terminal.js';
import { c, printJson } from './ui.js';
import { command } from './lazy.js';

const connect = () => import('./connect.js');
const terminal = () => import('./terminal.js');

const HELP = `
High-risk approvals always need a code from the approver's authenticator app (Medium
too when the policy sets second_factor_from = "medium"). Each approver enrols their own
factor. The QR code and the secret appear on your terminal only (never on stdout, never
in --json); the first code the app shows proves it, and until then it approves nothing
(a pending enrolment lapses after 10 minutes). The daemon keeps the secret sealed in its
store and never shows it again.

A first factor is never one person's word alone, since an agent running as you could
enrol one of its own:
  - the host's first approver enrols through sudo from their login session, at the
    installing terminal (\`sudo airlock install\` says so as its next step);
  - every later approver enrols from their own account, and the enrolment waits (24 hours)
    until another approver approves it with their own code and the check code the enrolment
    showed you (read it out to them yourself: it names your secret, not one enrolled since).

Replacing your factor needs a code from the one you have. Lost it? Another admin
approver deletes it through sudo, with their own code (a signed log entry, and the
policy's notifier is told), and you enrol again.

  sudo airlock totp enroll               # the host's first approver, at the installing terminal
  airlock totp enroll                    # any later approver, as yourself: scan, type the first code
  airlock totp approve --user bob --check K7Q2-MX4P   # another approver, with bob's check code and your code
  airlock totp confirm                   # if enroll was interrupted before the first code
  sudo airlock totp reset --user alice   # another admin approver: delete alice's factor
  airlock approve tx_...                 # asks for the 6-digit code when the risk needs one`;

const CURRENT_PROMPT = 'Code from your authenticator app, for the factor you have now: ';
const FIRST_PROMPT = 'First code from the app, to confirm: ';

export function totpCommand(): Command {
  const totp = new Command('totp').description('your second factor for approvals: authenticator-app codes (RFC 6238)').addHelpText('after', HELP);
  totp
    .command('enroll')
    .description("enrol your own second factor: QR code and secret on your terminal, proven by a first code (the host's first approver through sudo; later ones are approved by an existing approver)")
    .option('--json', 'print {approver, user, state} as JSON; the secret goes to the terminal only')
    .addOption(new Option('--user <name>', 'refused: a person enrols their own factor').hideHelp())
    .addHelpText('after', HELP)
    .action(
      command(async (o, cmd: Command) => {
        if (o.user !== undefined) {
          throw new AirlockError(
            'authorization',
            'enrol_as_yourself',
            `a second factor is enrolled by its owner: ${o.user} enrols with \`airlock totp enroll\`, in their own terminal`,
            `to delete ${o.user}'s factor instead (they then enrol again): \`sudo airlock totp reset --user ${o.user}\``,
          );
        }
        const [{ Terminal }, { withClient }] = await Promise.all([terminal(), connect()]);
        const term = Terminal.open('enrolling a second factor', 'run `airlock totp enroll` yourself, in your own terminal');
        try {
          done(await withClient(cmd, (cl) => enrolAt(term, cl)), Boolean(o.json));
        } finally {
          term.close();
        }
      }),
    );
  totp
    .command('confirm')
    .description('confirm your pending enrolment with the first code your app shows (when enroll was interrupted)')
    .option('--json', 'print {approver, user, state} as JSON')
    .action(
      command(async (o, cmd: Command) => {
        const [{ Terminal }, { withClient }, { withCode }] = await Promise.all([terminal(), connect(), prompts()]);
        const term = Terminal.open('confirming a second factor', 'run `airlock totp confirm` yourself, in your own terminal');
        try {
          done(await withClient(cmd, (cl) => withCode(() => term, FIRST_PROMPT, (code) => cl.totpConfirm(code ?? ''), term.askHidden(FIRST_PROMPT))), Boolean(o.json));
        } finally {
          term.close();
        }
      }),
    );
  totp
    .command('approve')
    .description("vouch for another person's proven first enrolment, with your own code: from then on their factor counts (logged and notified)")
    .requiredOption('--user <name...>', 'the person whose enrolment you approve (several: --user bob --user carol, one code for all)')
    .requiredOption('--check <code...>', "the check code XXXX-XXXX the person's enrolment showed them, read out by them (one per --user, in order)")
    .option('--json', 'print {approved: [{approver, user}], state, approved_by} as JSON')
    .addHelpText('after', HELP)
    .action(
      command(async (o, cmd: Command) => {
        const [{ askAndShow }, { withOwnCode }] = await Promise.all([connect(), prompts()]);
        const hint = 'an approver runs `airlock totp approve --user NAME` in a terminal of their own';
        const users = o.user as string[];
        const checks = (o.check as string[]).map((k) => k.trim().toUpperCase());
        if (checks.length !== users.length) throw new AirlockError('validation', 'bad_params', `give one --check per --user, in the same order (${users.length} user(s), ${checks.length} check code(s))`, 'airlock totp approve --user bob --check K7Q2-MX4P');
        const enrolments = users.map((user, i) => ({ user, check: checks[i]! }));
        await askAndShow(
          cmd,
          o.json,
          (cl) => withOwnCode(`approving the second factor of ${users.join(', ')}`, hint, (code) => cl.totpApprove(enrolments, code)),
          (r) => r.approved.map((a) => `${c.green('approved')} ${a.approver}: their second factor counts from now on (logged; the policy's notifier is told)\n`).join(''),
        );
      }),
    );
  totp
    .command('reset')
    .description("delete another person's second factor (an admin approver through sudo, with your own code): logged and notified; they enrol again")
    .requiredOption('--user <name>', 'the person whose factor is deleted')
    .option('--passkeys', 'delete their passkeys too (a lost phone holds both); they register again with `airlock passkey add`')
    .option('--json', 'print {approver, user, factor, pending, passkeys?} as JSON')
    .action(
      command(async (o, cmd: Command) => {
        const [{ askAndShow }, { withOwnCode }] = await Promise.all([connect(), prompts()]);
        const hint = 'an admin approver runs `sudo airlock totp reset --user NAME` in a terminal of their own';
        const deleted = (r: { factor: boolean; pending: boolean; passkeys?: number }) =>
          [r.factor ? 'the second factor' : r.pending ? 'the pending enrolment' : '', r.passkeys ? `${r.passkeys} passkey(s)` : ''].filter(Boolean).join(' and ');
        await askAndShow(
          cmd,
          o.json,
          (cl) => withOwnCode(`resetting ${o.user}'s factor${o.passkeys ? ' and passkeys' : ''}`, hint, (code) => cl.totpReset(o.user, code, o.passkeys === true)),
          (r) => `${c.green('reset')} ${r.approver}: deleted ${deleted(r)} (logged; the policy's notifier is told)\n${c.cyan('next')}  ${r.user} enrols again with \`airlock totp enroll\`${r.passkeys ? ' and `airlock passkey add`' : ''}\n`,
        );
      }),
    );
  return totp;
}

/** The code prompts load with the command that asks, not at every start-up (test/unit/cli-startup.test.ts). */
const prompts = () => import('./code-prompt.js');

/** Enrols (with a code of the current factor when the daemon asks for one), shows the secret on the terminal, confirms. */
async function enrolAt(term: Terminal, cl: AirlockClient) {
  const { withCode } = await prompts();
  const issued = await withCode(() => term, CURRENT_PROMPT, (code) => cl.totpEnroll(code));
  const { renderUnicodeCompact } = await import('uqr');
  term.write(
    `\n${renderUnicodeCompact(issued.uri, { border: 2 })}\n` +
      `Scan this with your authenticator app, or type the secret into it:\n  secret  ${issued.secret}\n` +
      c.dim(`(shown once, on this terminal only; keep it only in the app. It approves nothing until confirmed, by ${issued.expires_at})\n`),
  );
  try {
    return await withCode(() => term, FIRST_PROMPT, (code) => cl.totpConfirm(code ?? ''), term.askHidden(FIRST_PROMPT));
  } catch (e) {
    if (!(e instanceof AirlockError) || e.code !== 'totp_invalid') throw e;
    throw new AirlockError(e.category, e.code, e.message, `the enrolment stays pending until ${issued.expires_at}: confirm it with \`airlock totp confirm\`, or start again with \`airlock totp enroll\``);
  }
}

function done(r: { approver: string; user: string; state: string; expires_at?: string; check?: string }, json: boolean): void {
  if (json) return void printJson({ approver: r.approver, user: r.user, state: r.state, ...(r.expires_at ? { expires_at: r.expires_at, check: r.check } : {}) });
  if (r.state === 'awaiting_approval') {
    return void process.stdout.write(
      `${c.yellow('proven')} ${r.approver}: your app's codes match; the factor counts once another approver approves it (by ${r.expires_at})\n` +
        `${c.bold('check')} ${r.check}  (read it to the approver yourself: it says which enrolment is yours)\n` +
        `${c.cyan('next')}  an approver runs: airlock totp approve --user ${r.user} --check ${r.check}\n`,
    );
  }
  process.stdout.write(`${c.green('enrolled')} ${r.approver}\n${c.cyan('next')}  approvals that need a second factor now ask ${r.user} for this app's 6-digit code\n`);
}
