/** `airlock totp enroll`: root gives an approver a second factor (TOTP) and shows it once, as a QR code. */
import { Command } from 'commander';
import { renderUnicodeCompact } from 'uqr';
import { withClient } from './connect.js';
import { c, printJson, reportError } from './ui.js';

export function totpCommand(): Command {
  const totp = new Command('totp').description('second factor for approvals: authenticator-app codes (RFC 6238)');
  totp
    .command('enroll')
    .description('create (or replace) an approver\'s TOTP secret (root only); shows it once')
    .option('--user <name>', 'the approver (root, or a member of airlock-approvers); default: you as the daemon sees you (root under sudo)')
    .option('--json', 'print the approver, secret and otpauth URI as JSON instead of a QR code')
    .addHelpText(
      'after',
      `
High-risk approvals always need a code from the approver's authenticator app (Medium
too when the policy sets second_factor_from = "medium"). Scan the QR code with any
authenticator app (or type the secret); the daemon keeps the secret in its root-only
store and never shows it again. Enrolling again replaces the old secret.

  sudo airlock totp enroll --user alice
  sudo airlock approve tx_...      # asks for the 6-digit code after you confirm`,
    )
    .action(async (o, cmd: Command) => {
      try {
        const e = await withClient(cmd, (cl) => cl.totpEnroll(o.user));
        if (o.json) return void printJson(e);
        process.stdout.write(
          `${renderUnicodeCompact(e.uri, { border: 2 })}\n` +
            `${c.green('enrolled')} ${e.approver}\n${c.dim('secret')}  ${e.secret}  ${c.dim('(shown once; store it only in the authenticator app)')}\n` +
            `${c.cyan('next')}  approvals of High-risk actions by ${e.user} now ask for the app's 6-digit code\n`,
        );
      } catch (e) {
        process.exitCode = reportError(e, Boolean(o.json));
      }
    });
  return totp;
}
