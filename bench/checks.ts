/**
 * The configuration checks' figures of `npm run bench` (issue 29): an edit's text checked by the
 * daemon's own parsers as the daemon runs them (ConfigParsers: a fresh worker thread per check,
 * heap-bounded, with a deadline), beside the same parser run in this thread on the same text (the
 * least any check must pay); at an edit's largest text (64 KiB) and at the checker's bound (1 MiB).
 * The worker's start is most of a small check's cost; a large one's is the parse.
 *
 * `node --import tsx bench/checks.ts` prints these figures alone.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ConfigParsers } from '../src/daemon/config-parse.js';
import { PARSERS, type ParserName } from '../src/catalogue/lib/config-checkers.js';
import { parseIni, parseJson, parseTomlText, parseYaml } from '../src/catalogue/lib/config-parsers.js';
import { MAX_EDIT_BYTES } from '../src/catalogue/families/files/granted-edits.js';

export interface CheckFigure {
  parser: ParserName;
  bytes: number;
  /** One check through ConfigParsers, median of the runs. */
  checkedMs: number;
  /** The same parse in this thread: the limit. */
  rawMs: number;
}

const RAW: Record<ParserName, (t: string) => string[]> = { json: parseJson, yaml: parseYaml, toml: parseTomlText, ini: parseIni };

/** A configuration of about `bytes` bytes in each format: many small sections of settings, as real ones are. */
function sample(parser: ParserName, bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const p =
      parser === 'json' ? `${i ? ',' : '{'}\n  "site${i}": { "listen": ${8000 + (i % 1000)}, "root": "/srv/app/${i}", "tls": ${i % 2 === 0} }`
      : parser === 'yaml' ? `site${i}:\n  listen: ${8000 + (i % 1000)}\n  root: /srv/app/${i}\n  tls: ${i % 2 === 0}\n`
      : parser === 'toml' ? `[site${i}]\nlisten = ${8000 + (i % 1000)}\nroot = "/srv/app/${i}"\ntls = ${i % 2 === 0}\n`
      : `[site${i}]\nlisten = ${8000 + (i % 1000)}\nroot = /srv/app/${i}\ntls = ${i % 2 === 0}\n`;
    parts.push(p);
    size += p.length;
  }
  return parts.join('') + (parser === 'json' ? '\n}\n' : '');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function checksBench(runs = 5): Promise<CheckFigure[]> {
  const parsers = new ConfigParsers();
  const out: CheckFigure[] = [];
  for (const bytes of [MAX_EDIT_BYTES, 1024 * 1024]) {
    for (const parser of PARSERS) {
      const text = sample(parser, bytes);
      const raw: number[] = [];
      const checked: number[] = [];
      for (let i = 0; i < runs; i++) {
        let t = performance.now();
        const problems = RAW[parser](text);
        raw.push(performance.now() - t);
        if (problems.length) throw new Error(`${parser}: the sample does not parse: ${problems[0]}`);
        t = performance.now();
        const found = await parsers.parse(parser, text);
        checked.push(performance.now() - t);
        if (found.length) throw new Error(`${parser} in a worker: ${found[0]}`);
      }
      out.push({ parser, bytes: Buffer.byteLength(text), checkedMs: median(checked), rawMs: median(raw) });
    }
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const f of await checksBench()) {
    process.stdout.write(`${f.parser.padEnd(5)} ${(f.bytes / 1024).toFixed(0).padStart(5)} KiB: checked ${f.checkedMs.toFixed(1)} ms, in this thread ${f.rawMs.toFixed(1)} ms (ratio ${(f.rawMs / f.checkedMs).toFixed(2)})\n`);
  }
}
