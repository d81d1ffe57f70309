/**
 * Generates test/vectors/*.json, the known-answer vectors of every format Airlock signs
 * or hashes (docs/protocol.md §11-15), from the real code, with fixed keys, times and
 * nonces. The output depends on the code alone (no clock, host or randomness), so
 * test/unit/vectors.test.ts checks that this reproduces the committed files byte for
 * byte; it also replays the files against the code without regenerating them. Run
 * `npm run vectors` only when a format changes on purpose, and say so in protocol.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkpointVectors } from './vectors/checkpoint.js';
import { logEntryVectors } from './vectors/log-entry.js';
import { previewDigestVectors } from './vectors/preview-digest.js';
import { receiptVectors } from './vectors/receipt.js';
import { requestHashVectors } from './vectors/request-hash.js';

export const VECTORS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'vectors');

/** File name -> its exact text. */
export function renderVectors(): Map<string, string> {
  const files: [string, unknown][] = [
    ['request-hash.json', requestHashVectors()],
    ['preview-digest.json', previewDigestVectors()],
    ['receipt.json', receiptVectors()],
    ['log-entry.json', logEntryVectors()],
    ['checkpoint.json', checkpointVectors()],
  ];
  return new Map(files.map(([name, v]) => [name, JSON.stringify(v, null, 2) + '\n']));
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  mkdirSync(VECTORS_DIR, { recursive: true });
  for (const [name, text] of renderVectors()) writeFileSync(join(VECTORS_DIR, name), text);
  process.stdout.write(`wrote ${[...renderVectors().keys()].join(', ')} to ${VECTORS_DIR}\n`);
}
