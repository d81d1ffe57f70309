/**
 * `airlock token new`: a client token for the TCP or vsock listener, and the line root adds to the token file.
 * main.ts loads this file to declare the command; the token code is imported when it runs.
 */
import { Command, Option } from 'commander';
import { c, printJson } from './ui.js';

export function tokenCommand(): Command {
  const token = new Command('token').description('client tokens for the TCP and vsock listeners (where the kernel cannot say who is asking)');
  token
    .command('new')
    .description('make a token and print it with the entry for /etc/airlock/tokens.toml (nothing is written)')
    .argument('<name>', 'the principal the daemon will know it as (token:NAME in the log)')
    .addOption(new Option('--role <role>', 'what it may request').choices(['observer', 'dev', 'admin']).makeOptionMandatory())
    .option('--unattended', 'a cron job, monitor or service: it may propose, never act (no receipt is minted for it except for non-sensitive reads)')
    .option('--json', 'print {name, token, entry} as JSON')
    .addHelpText(
      'after',
      `
The token file holds only the token's SHA-256. Add the entry as root, keep the file
root-owned with mode 0600, then \`sudo airlock policy reload\`. The client sets
AIRLOCK_TOKEN (never a command-line flag: other users can read those) and
AIRLOCK_SOCKET=tcp:127.0.0.1:7070, or the bridge's socket for vsock. Token principals
never approve: people approve on the host's own socket.`,
    )
    .action(async (name: string, o) => {
      if (!/^[a-z0-9][a-z0-9_-]{0,31}$/.test(name)) {
        process.stderr.write('the name is 1 to 32 lower-case letters, digits, _ and -\n');
        process.exitCode = 2;
        return;
      }
      const { newToken, tokenHash } = await import('../protocol/token.js');
      const t = newToken();
      const entry = `[[token]]\nname = "${name}"\nrole = "${o.role}"\nunattended = ${Boolean(o.unattended)}\nsha256 = "${tokenHash(t).toString('hex')}"\n`;
      if (o.json) return printJson({ name, token: t, entry });
      process.stdout.write(`${c.bold('token')} ${t}   ${c.dim('(shown once; give it to the client only)')}\n\n${c.dim('# add to /etc/airlock/tokens.toml (root, mode 0600), then: sudo airlock policy reload')}\n${entry}`);
    });
  return token;
}
