/**
 * `airlock mcp-server` driven by the MCP SDK's own client over stdio, the way an agent's
 * MCP client runs it: as the agent's real Unix user (setpriv), inside the throwaway host
 * of a test world (nsenter into its mount, UTS and IPC namespaces and root, so the
 * server reads that host's /etc/group and files), or on this host for the tests that
 * need no daemon.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UnixIdentity } from '../../src/sandbox/principal.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The real command line's entry point, as an MCP configuration names it. */
const AIRLOCK = join(ROOT, 'bin', 'airlock.js');

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr (its logs): stdout is MCP frames only. */
  stderr: string[];
  close(): Promise<void>;
}

export interface McpSpawn {
  identity: UnixIdentity;
  /** Pid of a process in the throwaway host (the sandbox pid); absent: run on this host. */
  insidePid?: number;
  env: Record<string, string>;
  args?: string[];
  /** What node runs instead of `airlock mcp-server` (a test's own server entry, test/support/mcp-scripted.ts). */
  entry?: string[];
}

export async function startMcp(o: McpSpawn): Promise<McpSession> {
  const { uid, gid, groups } = o.identity;
  const asUser = ['/usr/bin/setpriv', `--reuid=${uid}`, `--regid=${gid}`, `--groups=${groups.length ? groups.join(',') : gid}`, '--inh-caps=-all', '--', process.execPath, ...(o.entry ?? [AIRLOCK, 'mcp-server']), ...(o.args ?? [])];
  const argv = o.insidePid ? ['/usr/bin/nsenter', '-t', String(o.insidePid), '-m', '-u', '-i', '-r', '-w', '--', ...asUser] : asUser;
  const transport = new StdioClientTransport({
    command: argv[0]!,
    args: argv.slice(1),
    env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1', ...o.env },
    cwd: '/',
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => stderr.push(...d.toString('utf8').split('\n').filter(Boolean)));
  const client = new Client({ name: 'airlock-test', version: '0.0.1' });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`the MCP server did not start: ${(e as Error).message}\n${stderr.join('\n')}`);
  }
  return { client, stderr, close: () => client.close() };
}
