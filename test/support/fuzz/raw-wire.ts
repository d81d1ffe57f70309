/**
 * Raw bytes on the daemon's socket from a real Unix user: a raw-worker.ts process started
 * through setpriv (as principal.ts starts clients), so the daemon admits the connection on
 * that user's kernel peer credentials. One call per generated frame stream.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../../../src/sandbox/node-command.js';
import type { UnixIdentity } from '../../../src/sandbox/principal.js';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'raw-worker.js');

export interface Exchange {
  replies: Array<Record<string, any>>;
  /** The daemon neither answered the last request nor closed the connection within 20 s. */
  stuck: boolean;
}

export class RawWire {
  private next = 1;
  private readonly waiting = new Map<number, (r: Exchange) => void>();
  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const r = JSON.parse(line) as Exchange & { id: number };
      this.waiting.get(r.id)?.(r);
      this.waiting.delete(r.id);
    });
  }

  static spawn(identity: UnixIdentity, socket: string): RawWire {
    const groups = identity.groups.length ? identity.groups.join(',') : String(identity.gid);
    const child = spawn('/usr/bin/setpriv', [`--reuid=${identity.uid}`, `--regid=${identity.gid}`, `--groups=${groups}`, '--inh-caps=-all', '--', ...nodeCommand(WORKER), socket], {
      stdio: ['pipe', 'pipe', 'inherit'],
      cwd: '/',
      env: { PATH: '/usr/bin:/bin', HOME: '/tmp' },
    });
    return new RawWire(child);
  }

  /** Sends the hello (when `greet`), the chunks, and a last request (when `last`; else ends the stream); every message back. */
  exchange(chunks: Buffer[], greet: boolean, last: boolean): Promise<Exchange> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin!.write(JSON.stringify({ id, greet, chunks: chunks.map((c) => c.toString('base64')), last }) + '\n');
    });
  }

  close(): void {
    this.child.stdin!.end();
  }
}
