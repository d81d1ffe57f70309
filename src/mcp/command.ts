/**
 * The `mcp-server` command for src/cli/main.ts. The server and the MCP SDK load only when
 * the command runs, so the rest of the CLI does not pay for them at start-up.
 */
import { Command } from 'commander';
import { DEFAULT_LOG_DIR, DEFAULT_STATE_DIR, stateFiles } from '../protocol/defaults.js';

const defaults = stateFiles(DEFAULT_STATE_DIR, DEFAULT_LOG_DIR);

export function mcpServerCommand(): Command {
  return new Command('mcp-server')
    .description("serve the agent's tools over MCP (stdio): propose, wait for a person's approval, execute, check")
    .option('--pubkey <file>', "the audit public key airlock_audit_verify trusts (where readable; else the daemon's, and it says so)", defaults.publicKey)
    .option('--checkpoints <file>', 'the checkpoint file, to catch a cut tail of the log (where readable; default: the one the daemon says it writes)')
    .addHelpText(
      'after',
      `
Run by an MCP client (Claude Code, Cursor, Codex CLI, VS Code), never by hand: stdout
carries MCP frames only, logs go to stderr. It reaches the daemon like the CLI does:
--socket, else $AIRLOCK_SOCKET, else /run/airlock/airlock.sock; $AIRLOCK_TOKEN on TCP
and the token socket. \`airlock setup\` writes the client's configuration.`,
    )
    .action(async (o: { pubkey: string; checkpoints?: string }, cmd: Command) => {
      const { serveMcp } = await import('./serve.js');
      await serveMcp({ socket: cmd.optsWithGlobals().socket, pubkey: o.pubkey, checkpoints: o.checkpoints });
    });
}
