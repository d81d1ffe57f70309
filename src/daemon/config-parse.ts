/**
 * Runs the daemon's own configuration parsers (json, yaml, toml, ini) off the event loop: each
 * check in a fresh worker thread (config-parse-worker.ts) with a heap bound, terminated when it
 * misses its deadline; at most PARSES_AT_ONCE at once and PARSES_WAITING waiting, past which a
 * check is refused (transient) rather than queued without end.
 */
import type { Worker } from 'node:worker_threads';
import { startWorkerBeside } from '../protocol/worker-thread.js';
import { AirlockError } from '../protocol/errors.js';
import { CHECKER, type ParserName } from '../catalogue/lib/config-checkers.js';
import { Slots } from './slots.js';

/**
 * How long one parse may take once its worker is ready: PARSE_DEADLINE_MS, and 20 µs more per
 * character. The YAML parser is the slow one: 6.5 µs a character measured on a loaded machine (a
 * 1 MiB text of short flow lists: 6.5 s), 12 s in a worker beside other work; a 1 MiB text gets 23 s.
 */
export const PARSE_DEADLINE_MS = 2_000;
export const PARSE_CHARS_PER_MS = 50;
/** How long a worker may take to load (from the TypeScript sources under tsx, seconds on a busy machine). */
export const START_DEADLINE_MS = 30_000;
/** The heap of one parse worker: a 1 MiB YAML text and its document (over 96 MB for 40,000 short flow lists), with room; past it the worker dies and the text is refused. */
export const PARSE_HEAP_MB = 256;
export const PARSES_AT_ONCE = 2;
export const PARSES_WAITING = 16;

export interface ParseLimits {
  parseMs: number;
  charsPerMs: number;
  startMs: number;
}

export class ConfigParsers {
  private readonly slots = new Slots(PARSES_AT_ONCE);
  private waiting = 0;
  constructor(private readonly limits: ParseLimits = { parseMs: PARSE_DEADLINE_MS, charsPerMs: PARSE_CHARS_PER_MS, startMs: START_DEADLINE_MS }) {}

  /** The problems `parser` finds in `text` ([] when it parses); a parse that overruns or dies is a problem too. */
  async parse(parser: ParserName, text: string): Promise<string[]> {
    if (this.waiting >= PARSES_WAITING) throw new AirlockError('transient', 'checks_busy', `${PARSES_WAITING} configuration checks are already waiting`, 'try again in a moment');
    this.waiting++;
    let release: () => void;
    try {
      release = await this.slots.take();
    } finally {
      this.waiting--;
    }
    try {
      return await this.inWorker(parser, text);
    } finally {
      release();
    }
  }

  private inWorker(parser: ParserName, text: string): Promise<string[]> {
    const what = CHECKER[parser].describe;
    return new Promise((resolve, reject) => {
      const worker: Worker = startWorkerBeside(import.meta.url, 'config-parse-worker', { resourceLimits: { maxOldGenerationSizeMb: PARSE_HEAP_MB } });
      let done = false;
      const finish = (r: string[] | Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        void worker.terminate();
        r instanceof Error ? reject(r) : resolve(r);
      };
      let timer = setTimeout(() => finish(new AirlockError('transient', 'checker_start', `${what} did not start in time`, 'try again in a moment')), this.limits.startMs);
      worker.on('message', (m: { ready?: true; problems?: string[] }) => {
        if (m.ready) {
          clearTimeout(timer);
          const ms = this.limits.parseMs + Math.ceil(text.length / this.limits.charsPerMs);
          timer = setTimeout(() => finish([`${what} did not finish within ${ms} ms: the text is refused`]), ms);
          worker.postMessage({ parser, text });
          return;
        }
        finish(Array.isArray(m.problems) ? m.problems : [`${what} gave no answer: the text is refused`]);
      });
      // Out of memory (the heap bound) or a crash: the text is not accepted.
      worker.on('error', (e) => finish([`${what} stopped: ${String(e.message).split('\n', 1)[0]}: the text is refused`]));
      worker.on('exit', () => finish([`${what} stopped before it answered: the text is refused`]));
    });
  }
}
