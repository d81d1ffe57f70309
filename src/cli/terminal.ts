/**
 * The controlling terminal (/dev/tty), opened directly rather than through stdin and
 * stdout, so that a pipe from an agent can neither answer a prompt nor read what is
 * meant for the person at the terminal (a preview to approve, a second-factor secret).
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { ReadStream } from 'node:tty';
import { AirlockError } from '../protocol/errors.js';

const CTRL_C = 0x03;
const CTRL_D = 0x04;
const CTRL_U = 0x15;
const BACKSPACE = [0x08, 0x7f];

export class Terminal {
  private constructor(private readonly fd: number) {}

  /** `need` says what needs a person (for the refusal when there is no terminal), `hint` what to do instead. */
  static open(need = 'approving', hint = 'run `airlock approve ID` yourself, in a terminal of your own'): Terminal {
    try {
      return new Terminal(openSync('/dev/tty', 'r+'));
    } catch {
      throw new AirlockError('authorization', 'no_terminal', `${need} needs a person at a terminal, and this process has none`, hint);
    }
  }

  write(text: string): void {
    writeSync(this.fd, text);
  }

  /** Blocks until a whole line is typed (or end of input); the line discipline echoes and edits. */
  ask(prompt: string): string {
    this.write(prompt);
    const bytes: number[] = [];
    const one = Buffer.alloc(1);
    while (readSync(this.fd, one, 0, 1, null) === 1 && one[0] !== 0x0a) bytes.push(one[0]!);
    return Buffer.from(bytes).toString('utf8').trim();
  }

  /**
   * Like ask, but what is typed is not echoed (a code, which someone watching the screen or a
   * recording of the session must not learn). The terminal is put in raw mode through a
   * second descriptor (node:tty sets the mode with tcsetattr; no stty, no shell), before the
   * prompt, so nothing typed early is echoed; it is restored however the read ends. Backspace
   * and Ctrl-U edit, Enter ends, Ctrl-C refuses.
   */
  askHidden(prompt: string): string {
    const mode = new ReadStream(openSync('/dev/tty', 'r'));
    const bytes: number[] = [];
    try {
      mode.setRawMode(true);
      this.write(prompt);
      const one = Buffer.alloc(1);
      while (readSync(this.fd, one, 0, 1, null) === 1) {
        const b = one[0]!;
        if (b === 0x0d || b === 0x0a || (b === CTRL_D && bytes.length === 0)) break;
        if (b === CTRL_C) throw new AirlockError('authorization', 'not_confirmed', 'interrupted: nothing was sent');
        if (BACKSPACE.includes(b)) bytes.pop();
        else if (b === CTRL_U) bytes.length = 0;
        else if (b >= 0x20) bytes.push(b);
      }
    } finally {
      mode.setRawMode(false);
      mode.destroy();
      this.write('\n');
    }
    return Buffer.from(bytes).toString('utf8').trim();
  }

  close(): void {
    closeSync(this.fd);
  }
}
