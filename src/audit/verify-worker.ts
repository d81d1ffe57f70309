/** Worker thread: checks Ed25519 signatures of a batch of log entries, with the key the batch names. */
import type { KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { MAX_KEYS_IN_FILE, publicKeyFromRaw } from './keys.js';
import { entrySignatureValid } from './entry.js';

/** A log's keys, parsed once each; bounded like the verifier's trusted set (a batch names only chain keys). */
const keys = new Map<string, KeyObject>();
const keyOf = (hex: string): KeyObject => {
  let k = keys.get(hex);
  if (!k) {
    if (keys.size >= MAX_KEYS_IN_FILE) keys.clear();
    k = publicKeyFromRaw(Buffer.from(hex, 'hex'));
    keys.set(hex, k);
  }
  return k;
};

parentPort!.on('message', (batch: { id: number; publicKeyHex: string; seqs: number[]; bodies: string[]; sigs: string[] }) => {
  const publicKey = keyOf(batch.publicKeyHex);
  let bad = -1;
  for (let i = 0; i < batch.bodies.length; i++) {
    if (!entrySignatureValid(publicKey, batch.bodies[i]!, batch.sigs[i]!)) {
      bad = batch.seqs[i]!;
      break;
    }
  }
  parentPort!.postMessage({ id: batch.id, bad });
});
