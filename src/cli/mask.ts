/**
 * `airlock mask [FILE...]`: the daemon's secret detectors (src/mask) on any text, offline,
 * no daemon needed: for a person about to paste a log into a chat, and for trying the
 * detectors. Reads each file (stdin when none, or for `-`) in pieces through the same
 * stream the daemon uses, so a file of any size costs bounded memory.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { addCounts, type MaskCounts } from '../mask/mask.js';
import { MaskStream } from '../mask/stream.js';
import { c, EXIT, printJson } from './ui.js';

async function maskInto(input: Readable, write: (s: string) => void): Promise<MaskCounts> {
  const stream = new MaskStream();
  input.setEncoding('utf8');
  for await (const piece of input) write(stream.push(piece as string));
  write(stream.end());
  return stream.counts;
}

export async function mask(files: string[], opts: { json?: boolean; check?: boolean }): Promise<void> {
  const total: MaskCounts = {};
  const perFile: { file: string; masked: MaskCounts; text?: string }[] = [];
  for (const file of files.length ? files : ['-']) {
    const input = file === '-' ? process.stdin : createReadStream(file);
    let text = '';
    let counts: MaskCounts;
    try {
      counts = await maskInto(input, opts.json ? (s) => (text += s) : (s) => void process.stdout.write(s));
    } catch (e) {
      process.stderr.write(`${c.red('error')} cannot read ${file}: ${(e as Error).message}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    addCounts(total, counts);
    perFile.push({ file, masked: counts, ...(opts.json ? { text } : {}) });
  }
  const n = Object.values(total).reduce((a, b) => a + b, 0);
  if (opts.json) printJson({ files: perFile, masked: total });
  else if (process.stderr.isTTY || n > 0) {
    const kinds = Object.entries(total).map(([k, v]) => `${v} ${k}`).join(', ');
    process.stderr.write(c.dim(`airlock mask: ${n === 0 ? 'nothing to mask' : `masked ${n} secret${n === 1 ? '' : 's'} (${kinds})`}\n`));
  }
  if (opts.check && n > 0) process.exitCode = EXIT.failed;
}
