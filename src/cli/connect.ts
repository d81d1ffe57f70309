/** One connection for one command: opened from --socket / $AIRLOCK_SOCKET (and $AIRLOCK_TOKEN), always closed. */
import type { Command } from 'commander';
import { AirlockClient, socketPath } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { printJson } from './ui.js';

/** The host named by --host or $AIRLOCK_HOST (reached through the relay), or null for this host's daemon. */
export const targetHost = (cmd: Command): string | null => (cmd.optsWithGlobals().host as string | undefined) ?? process.env.AIRLOCK_HOST ?? null;

const CLIENT = 'airlock-cli/0.1';
/** Host `host`'s daemon, through the relay. */
const relayed = (host: string) => AirlockClient.connect(undefined, { client: CLIENT, host });

const open = async (cmd: Command) => {
  const host = targetHost(cmd);
  if (host === null) return AirlockClient.connect(socketPath(cmd.optsWithGlobals().socket), { client: CLIENT });
  const cl = await relayed(host);
  // Every answer says which host it comes from: on stderr, so stdout stays the answer alone.
  process.stderr.write(`airlock: ${host} (${escapeText(cl.remote ?? '?', 'line')}), through the relay\n`);
  return cl;
};

async function using<T>(cl: AirlockClient, fn: (cl: AirlockClient) => Promise<T>): Promise<T> {
  try {
    return await fn(cl);
  } finally {
    cl.close();
  }
}

export async function withClient<T>(cmd: Command, fn: (cl: AirlockClient) => Promise<T>): Promise<T> {
  return using(await open(cmd), fn);
}

/** One connection to host `host` through the relay, for a command that speaks to many (`fleet approve`), always closed. */
export async function withHost<T>(host: string, fn: (cl: AirlockClient) => Promise<T>): Promise<T> {
  return using(await relayed(host), fn);
}

/**
 * The shape of most commands: one connection, one question to the daemon, and its answer
 * shown: as JSON with --json, else as the text `text` makes of it (escaped and coloured there).
 * An error is the command wrapper's to report (lazy.ts `command`).
 */
export async function askAndShow<T>(cmd: Command, json: boolean | undefined, ask: (cl: AirlockClient) => Promise<T>, text: (answer: T) => string): Promise<void> {
  const answer = await withClient(cmd, ask);
  if (json) printJson(answer);
  else process.stdout.write(text(answer));
}

/**
 * With the daemon when it can be reached, else `offline(why)`: for commands that have
 * something true to say without it (the catalogue). Only an unreachable daemon falls
 * back; a daemon that answers and refuses is answered by its refusal.
 */
export async function withClientOrOffline<T, U>(cmd: Command, fn: (cl: AirlockClient) => Promise<T>, offline: (why: AirlockError) => U | Promise<U>): Promise<T | U> {
  let cl: AirlockClient;
  try {
    cl = await open(cmd);
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'daemon_unreachable') return offline(e);
    throw e;
  }
  return using(cl, fn);
}
