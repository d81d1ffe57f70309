/** One connection for one command: opened from --socket / $AIRLOCK_SOCKET (and $AIRLOCK_TOKEN), always closed. */
import type { Command } from 'commander';
import { AirlockClient, socketPath } from '../client/client.js';

export async function withClient<T>(cmd: Command, fn: (cl: AirlockClient) => Promise<T>): Promise<T> {
  const cl = await AirlockClient.connect(socketPath(cmd.optsWithGlobals().socket), { client: 'airlock-cli/0.1' });
  try {
    return await fn(cl);
  } finally {
    cl.close();
  }
}
