/**
 * `airlock setup`: the command's options and help. The work is in run.ts, imported only when
 * the command runs. It writes the agent clients' own files and talks to the daemon only to
 * check the role it gives this account: no daemon or store code (a test enforces it).
 */
import { Command } from 'commander';
import { command } from '../lazy.js';
import type { ClientId } from './clients/index.js';

const CLIENT_FLAGS: Array<[ClientId, string]> = [
  ['claude', 'Claude Code: .mcp.json and CLAUDE.md (user scope: ~/.claude.json, ~/.claude/CLAUDE.md)'],
  ['cursor', 'Cursor: .cursor/mcp.json and .cursor/rules/airlock.mdc (user scope: ~/.cursor/mcp.json)'],
  ['codex', 'Codex CLI: ~/.codex/config.toml and AGENTS.md (user scope: ~/.codex/AGENTS.md)'],
  ['vscode', 'VS Code: .vscode/mcp.json and .github/copilot-instructions.md (user scope: the profile\'s mcp.json)'],
];

export function setupCommand(): Command {
  const cmd = new Command('setup').description('configure Claude Code, Cursor, Codex CLI or VS Code to use Airlock through its MCP server, with the guidance each agent reads');
  for (const [id, help] of CLIENT_FLAGS) cmd.option(`--${id}`, help);
  cmd
    .option('--all', 'all four, whether found or not')
    .option('--user', 'write the account\'s own files (every project) instead of the project folder\'s')
    .option('--project <dir>', 'the project folder (default: the current directory)')
    .option('--dry-run', 'show what would change, write nothing')
    .option('--uninstall', 'remove exactly what setup added (all four clients unless some are named)')
    .option('-y, --yes', 'do not ask for confirmation at a terminal')
    .option('--json', 'print the plan, the files and the checks as JSON')
    .addHelpText(
      'after',
      `
Without a client option, setup configures the clients it finds for this account (a command
on PATH, or its folder in your home). Run it as the account the agent runs under.

The server entry runs \`airlock mcp-server\` with this Node and this checkout's bin/airlock.js,
by absolute path. With the global --socket PATH (or $AIRLOCK_SOCKET) it carries
AIRLOCK_SOCKET; with $AIRLOCK_TOKEN set it carries the token too, and then goes only to your
own files (--user, and Codex's config.toml), written with mode 0600.

Files are merged: your other servers and settings stay, byte for byte. A file setup cannot
parse is refused and left untouched (exit 6), with the reason. Running it again changes
nothing. The guidance sits between "BEGIN airlock" and "END airlock" marker lines.

Then setup checks Node, the socket, and the role the daemon gives this account, and says
what to fix. See docs/cli.md.`,
    )
    .action(
      command(async (o, c: Command) => {
        const { runSetup } = await import('./run.js');
        return runSetup({
          clients: CLIENT_FLAGS.map(([id]) => id).filter((id) => o[id]),
          all: Boolean(o.all),
          user: Boolean(o.user),
          project: o.project,
          socket: c.optsWithGlobals().socket,
          dryRun: Boolean(o.dryRun),
          uninstall: Boolean(o.uninstall),
          yes: Boolean(o.yes),
          json: Boolean(o.json),
        });
      }),
    );
  return cmd;
}
