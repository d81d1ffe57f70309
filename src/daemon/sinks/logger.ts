/**
 * The local syslog copy through /usr/bin/logger (as the daemon has always made): the
 * journal or rsyslog of this host, which may itself forward elsewhere. A program by
 * absolute path with an argv, no shell; the line is ASCII (base64 and hex), so it crosses
 * syslog relays byte for byte.
 */
import { execFile } from 'node:child_process';
import { printable, type Sink, type TreeHead } from './sink.js';

export class LoggerSink implements Sink {
  readonly name = 'logger';
  private closed = false;

  constructor(private readonly program = '/usr/bin/logger') {}

  async publish(head: TreeHead): Promise<void> {
    if (this.closed) throw new Error('the logger sink is closed');
    for (const line of head.legacy ? [head.legacy, head.line] : [head.line]) await this.send(line);
  }

  private send(line: string): Promise<void> {
    return new Promise((resolve, reject) =>
      execFile(this.program, ['-t', 'airlock', '-p', 'auth.notice', '--', line], { timeout: 5_000, maxBuffer: 64 * 1024, env: {} }, (err, _out, stderr) =>
        err ? reject(new Error(`${this.program} failed: ${printable(String(stderr) || err.message)}`)) : resolve(),
      ),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
