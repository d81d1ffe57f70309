/**
 * The masking figures of `npm run bench`: recall on the planted-secret corpus, the share
 * of ordinary lines changed (false positives), and masking throughput on one core beside
 * a raw scan of the same bytes by one regular expression (the least any masker that looks
 * for secret words must pay). The corpus is generated (test/support/secret-corpus.ts).
 */
import { performance } from 'node:perf_hooks';
import { maskText } from '../src/mask/mask.js';
import { ordinaryOutputs, plantedSecrets } from '../test/support/secret-corpus.js';

export interface MaskingFigures {
  secrets: number;
  missed: number;
  recall: number;
  lines: number;
  changedLines: number;
  falsePositiveRate: number;
  bytes: number;
  mbPerS: number;
  rawScanMbPerS: number;
  /** The slowest of the crafted inputs (CRAFTED), MB/s: masking must stay linear whatever a host file holds. */
  worstCraftedMbPerS: number;
  worstCrafted: string;
}

/** Inputs that would make a careless masker super-linear: a lazy scan from every match, spans x markers, long runs. */
const CRAFTED: Record<string, string> = {
  'one line of "mysql "': 'mysql '.repeat(200_000),
  'one line of "sshpass "': 'sshpass '.repeat(150_000),
  'markers beside secrets': '⟦secret:token⟧ password=hunter22\n'.repeat(40_000),
  'one 1 MiB word': 'A'.repeat(1 << 20),
  'one line of "password="': 'password='.repeat(120_000),
  'one line of "://a:b"': '://a:b'.repeat(180_000),
  'BEGIN lines with no END': '-----BEGIN PRIVATE KEY-----\n'.repeat(30_000),
  'one line of "key: "': 'key: '.repeat(200_000),
  'one line of "name: DB_PASSWORD "': 'name: DB_PASSWORD '.repeat(50_000),
  'a JSON array of "--password",': '"--password",'.repeat(80_000),
};

/** MB/s of `op` over `bytes`, best of `runs`. */
function best(bytes: number, runs: number, op: () => void): number {
  let fastest = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    op();
    fastest = Math.min(fastest, performance.now() - t);
  }
  return bytes / 1e6 / (fastest / 1000);
}

export function maskingBench(): MaskingFigures {
  const planted = plantedSecrets();
  let secrets = 0;
  let missed = 0;
  for (const f of planted) {
    const masked = maskText(f.text).text;
    for (const s of f.secrets) {
      secrets++;
      if (masked.includes(s.value)) missed++;
    }
  }
  const ordinary = ordinaryOutputs();
  let lines = 0;
  let changedLines = 0;
  for (const f of ordinary) {
    const before = f.text.split('\n');
    const after = maskText(f.text).text.split('\n');
    lines += before.length;
    for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) changedLines++;
  }
  // Throughput on ~16 MB: the ordinary corpus with the planted files mixed in, repeated.
  const unit = [...ordinary, ...planted].map((f) => f.text).join('\n');
  let text = unit;
  while (text.length < 16e6) text += '\n' + unit;
  const bytes = Buffer.byteLength(text);
  maskText(text); // warm-up: compiled code, not the interpreter, is what the daemon runs
  const mbPerS = best(bytes, 3, () => maskText(text));
  const raw = /password|secret|token|key/gi;
  const rawScanMbPerS = best(bytes, 3, () => {
    raw.lastIndex = 0;
    while (raw.exec(text));
  });
  let worstCraftedMbPerS = Infinity;
  let worstCrafted = '';
  for (const [name, crafted] of Object.entries(CRAFTED)) {
    const rate = best(Buffer.byteLength(crafted), 1, () => maskText(crafted));
    if (rate < worstCraftedMbPerS) [worstCraftedMbPerS, worstCrafted] = [rate, name];
  }
  return { secrets, missed, recall: (secrets - missed) / secrets, lines, changedLines, falsePositiveRate: changedLines / lines, bytes, mbPerS, rawScanMbPerS, worstCraftedMbPerS, worstCrafted };
}
