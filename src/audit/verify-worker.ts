/** Worker thread: checks Ed25519 signatures of a batch of log entries. */
import { parentPort, workerData } from 'node:worker_threads';
import { publicKeyFromRaw } from './keys.js';
import { entrySignatureValid } from './entry.js';

const publicKey = publicKeyFromRaw(Buffer.from(workerData.publicKeyHex as string, 'hex'));

parentPort!.on('message', (batch: { id: number; seqs: number[]; bodies: string[]; sigs: string[] }) => {
  let bad = -1;
  for (let i = 0; i < batch.bodies.length; i++) {
    if (!entrySignatureValid(publicKey, batch.bodies[i]!, batch.sigs[i]!)) {
      bad = batch.seqs[i]!;
      break;
    }
  }
  parentPort!.postMessage({ id: batch.id, bad });
});
