/**
 * A masking worker thread (pool.ts): masks what the daemon's event loop hands it, one task
 * at a time, and answers each. Streams (MaskStream) live here between their pieces; at most
 * MAX_STREAMS at once, the oldest evicted first (its next piece is answered `lost`, and the
 * pool withholds the rest of that output).
 */
import { parentPort } from 'node:worker_threads';
import type { MaskCounts } from './mask.js';
import type { MaskOp, MaskReply, PseudonymSpec } from './pool.js';
import { MaskStream } from './stream.js';
import { maskTask, optionsOf } from './task.js';

const MAX_STREAMS = 256;
/** Streams by id, oldest first (Map order). */
const streams = new Map<number, MaskStream>();

/** What `s` counted since `before` (a stream's counts grow with each piece). */
function since(s: MaskStream, before: MaskCounts): MaskCounts {
  const out: MaskCounts = {};
  for (const [k, n] of Object.entries(s.counts)) if (n > (before[k] ?? 0)) out[k] = n - (before[k] ?? 0);
  return out;
}

function streamOf(op: { stream: number; first: boolean; pseudonyms: PseudonymSpec | null }): MaskStream | null {
  let s = streams.get(op.stream);
  if (!s && op.first) {
    if (streams.size >= MAX_STREAMS) streams.delete(streams.keys().next().value!);
    s = new MaskStream(optionsOf(op.pseudonyms));
    streams.set(op.stream, s);
  }
  return s ?? null;
}

function handle(m: MaskOp): MaskReply {
  switch (m.op) {
    case 'push':
    case 'end': {
      const s = streamOf(m);
      if (!s) return { counts: {}, lost: true };
      const before = { ...s.counts };
      const text = m.op === 'push' ? s.push(m.piece) : s.end();
      if (m.op === 'end') streams.delete(m.stream);
      return { text, counts: since(s, before) };
    }
    default:
      return maskTask(m);
  }
}

parentPort!.on('message', (m: MaskOp) => {
  let reply: MaskReply | undefined;
  try {
    reply = handle(m);
  } catch {
    reply = undefined; // the pool withholds the text (fail closed)
  }
  parentPort!.postMessage(reply ? { reply } : { error: 'masking failed' });
});
parentPort!.postMessage({ ready: true });
