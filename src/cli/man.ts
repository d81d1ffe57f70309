/**
 * `airlock man`: the manual page (roff), generated from the command definitions that
 * --help prints (command-tree.ts). `airlock install` writes it to MAN_PATH; `man airlock`
 * then shows it, and `man -l <(airlock man)` shows it from a checkout.
 */
import type { Command } from 'commander';
import { allCommands, commandTree, type CommandSpec } from './command-tree.js';
import { rootOf } from './completion.js';

export const MAN_PATH = '/usr/local/share/man/man1/airlock.1';

/** Text for roff: backslashes escaped, hyphens literal, and no line that starts as a request. */
const roff = (s: string) =>
  s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');

const bold = (s: string) => `\\fB${roff(s)}\\fR`;
const italic = (s: string) => `\\fI${roff(s)}\\fR`;

function commandSection(c: CommandSpec): string {
  const usage = [bold(['airlock', ...c.path].join(' ')), ...c.args.map(italic), ...(c.subcommands.length ? [italic('command')] : [])].join(' ');
  const opts = c.options.filter((o) => o.names[1] !== '--help' && o.names[0] !== '--help');
  return [
    '.TP',
    usage,
    roff(c.description.replace(/\s*\n\s*/g, ' ')),
    ...(opts.length ? ['.RS', ...opts.flatMap((o) => ['.TP', bold(o.flags), roff(o.description)]), '.RE'] : []),
  ].join('\n');
}

export function manPage(program: Command, date = new Date()): string {
  const tree = commandTree(program);
  const commands = allCommands(tree).slice(1);
  const month = date.toISOString().slice(0, 7);
  return [
    `.TH AIRLOCK 1 "${month}" "airlock ${program.version() ?? ''}" "User Commands"`,
    '.nh',
    '.ad l',
    '.SH NAME',
    'airlock \\- let an AI agent administer this host without a shell, with a person\'s approval',
    '.SH SYNOPSIS',
    `${bold('airlock')} [${bold('-s')} ${italic('socket')}] ${italic('command')} [${italic('options')}] [${italic('arguments')}]`,
    '.SH DESCRIPTION',
    roff(tree.description.replace(/\s*\n\s*/g, ' ')),
    '.PP',
    `The agent asks for typed actions from a fixed catalogue (${bold('airlock actions')}); the daemon previews the change, a person approves the exact preview (${bold('airlock approve')}), the daemon executes it without a shell and signs a log anyone can verify (${bold('airlock audit verify')}). Every command prints help with ${bold('--help')}; most print JSON with ${bold('--json')}.`,
    '.SH GLOBAL OPTIONS',
    ...tree.options.flatMap((o) => ['.TP', bold(o.flags), roff(o.description)]),
    '.SH COMMANDS',
    ...commands.map(commandSection),
    '.SH EXIT STATUS',
    '0 ok, 1 the action failed (or the log is broken), 2 usage (or cannot verify), 3 authorization, 4 stale approval, 5 validation, 6 conflict, 7 transient or unreachable, 8 unsupported platform, 9 integrity, 10 execution error.',
    '.SH FILES',
    ...[
      ['/run/airlock/airlock.sock', 'the daemon\'s socket'],
      ['/etc/airlock/policy.toml', 'the policy: what the daemon approves by itself (root-owned)'],
      ['/var/lib/airlock', 'the store and the keys (root only)'],
      ['/var/lib/airlock/audit.pub', 'the public key that verifies the log'],
      ['/var/log/airlock/checkpoints.log', 'signed checkpoints of the log (append-only)'],
    ].flatMap(([f, d]) => ['.TP', italic(f!), roff(d!)]),
    '.SH SEE ALSO',
    `${bold('systemctl')}(1), ${bold('journalctl')}(1), and docs/cli.md in the Airlock checkout.`,
    '',
  ].join('\n');
}

/** `airlock man` */
export function man(_opts: unknown, cmd: Command): void {
  process.stdout.write(manPage(rootOf(cmd)));
}
