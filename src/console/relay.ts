/**
 * The console's one way to the daemon: one request on a fresh connection to the Unix socket,
 * as the console's own account (the daemon recognises it by the kernel's peer uid and lets it
 * call only the console.* methods). At most `max` relays at once (more are refused at once,
 * never queued without bound), each with a deadline. The console decides nothing: what the
 * daemon answers, or refuses, is what the page gets.
 */
import { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';

export type ConsoleMethod = 'console.sign_in_options' | 'console.sign_in' | 'console.sign_out' | 'console.call' | 'console.registration_options' | 'console.registration_response';

export class Relay {
  private running = 0;
  constructor(
    private readonly socket: string,
    private readonly max = 16,
    private readonly timeoutMs = 30_000,
  ) {}

  async call(method: ConsoleMethod, params: Record<string, unknown>): Promise<unknown> {
    if (this.running >= this.max) throw new AirlockError('transient', 'console_busy', `the console is relaying ${this.max} requests already`, 'try again in a moment');
    this.running++;
    let client: AirlockClient | undefined;
    try {
      client = await AirlockClient.connect(this.socket, { timeoutMs: this.timeoutMs, client: 'airlock-console/0.1' });
      return await client.callUnchecked(method, params);
    } finally {
      client?.close();
      this.running--;
    }
  }
}
