/**
 * Runs as another Unix user (started through setpriv by the daemon fuzz), so the daemon
 * decides on the kernel's peer credentials of a real user: reads one JSON command per line
 * on stdin, { id, greet, chunks (base64), last }, opens a connection, sends the hello when
 * `greet`, then the chunks, then a last request when `last` (else ends the stream), and
 * answers one JSON line: every message the daemon sent until it closed, or `stuck` when it
 * neither answered the last request nor closed within 20 s.
 */
import net from 'node:net';
import { createInterface } from 'node:readline';
import { PROTOCOL } from '../../../src/protocol/messages.js';

const socket = process.argv[2]!;
const frame = (m: unknown) => {
  const b = Buffer.from(JSON.stringify(m), 'utf8');
  const h = Buffer.alloc(4);
  h.writeUInt32BE(b.length, 0);
  return Buffer.concat([h, b]);
};

interface Command {
  id: number;
  greet: boolean;
  chunks: string[];
  last: boolean;
}

function exchange(c: Command): Promise<{ replies: unknown[]; stuck: boolean }> {
  return new Promise((resolve) => {
    const sock = net.createConnection(socket);
    const replies: Array<{ id?: unknown }> = [];
    let buf = Buffer.alloc(0);
    let stuck = false;
    const timer = setTimeout(() => ((stuck = true), sock.destroy()), 20_000);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const reply = JSON.parse(buf.subarray(4, 4 + buf.readUInt32BE(0)).toString('utf8'));
        buf = buf.subarray(4 + buf.readUInt32BE(0));
        replies.push(reply);
        if (reply.id === 'fuzz-last') sock.end();
      }
    });
    sock.on('error', () => {});
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ replies, stuck });
    });
    if (c.greet) sock.write(frame({ type: 'hello', protocol: PROTOCOL }));
    for (const chunk of c.chunks) sock.write(Buffer.from(chunk, 'base64'));
    if (c.last) sock.write(frame({ type: 'request', id: 'fuzz-last', method: 'audit.pubkey', params: {} }));
    else sock.end();
  });
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const c = JSON.parse(line) as Command;
  void exchange(c).then((r) => process.stdout.write(JSON.stringify({ id: c.id, ...r }) + '\n'));
});
