/**
 * The controlling terminal (/dev/tty), opened directly: never stdin, so a pipe from an
 * agent cannot answer a prompt. Lines are read through the line discipline (echo and
 * editing); secrets (authenticator codes) are read in raw mode, so they are not echoed.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import tty from 'node:tty';
import { AirlockError } from '../protocol/errors.js';

/** A code is 6 digits; a little room for spaces people type, and no more. */
const MAX_SECRET_CHARS = 32;

export class Terminal {
  private constructor(private readonly fd: number) {}

  static open(): Terminal {
    try {
      return new Terminal(openSync('/dev/tty', 'r+'));
    } catch {
      throw new AirlockError('authorization', 'no_terminal', 'approving needs a person at a terminal, and this process has none', 'run `airlock approve ID` yourself, in a terminal of your own');
    }
  }

  write(text: string): void {
    writeSync(this.fd, text);
  }

  /** Blocks until a whole line is typed (or end of input). */
  ask(prompt: string): string {
    this.write(prompt);
    const bytes: number[] = [];
    const one = Buffer.alloc(1);
    while (readSync(this.fd, one, 0, 1, null) === 1 && one[0] !== 0x0a) bytes.push(one[0]!);
    return Buffer.from(bytes).toString('utf8').trim();
  }

  /**
   * Reads a line without echoing it: the terminal goes to raw mode on a second
   * descriptor of its own and back before this returns (Ctrl-C and Ctrl-D cancel).
   */
  async askSecret(prompt: string): Promise<string> {
    this.write(prompt);
    const input = new tty.ReadStream(openSync('/dev/tty', 'r'));
    input.setRawMode(true);
    try {
      return await new Promise<string>((resolve, reject) => {
        let typed = '';
        input.on('data', (chunk: Buffer) => {
          for (const ch of chunk.toString('utf8')) {
            if (ch === '\r' || ch === '\n') return resolve(typed);
            if (ch === '\x03' || ch === '\x04') return reject(new AirlockError('authorization', 'not_confirmed', 'not approved: input canceled'));
            if (ch === '\x7f' || ch === '\b') typed = typed.slice(0, -1);
            else if (typed.length < MAX_SECRET_CHARS && ch >= ' ') typed += ch;
          }
        });
        input.on('end', () => resolve(typed));
      });
    } finally {
      input.setRawMode(false);
      input.destroy();
      this.write('\n');
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
