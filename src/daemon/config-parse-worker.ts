/**
 * A worker thread that parses one configuration text (config-parse.ts starts one per check, with
 * a heap bound, and terminates it at its deadline): the daemon's event loop never parses it.
 */
import { parentPort } from 'node:worker_threads';
import { PARSE } from '../catalogue/lib/config-parsers.js';
import type { ParserName } from '../catalogue/lib/config-checkers.js';

parentPort!.once('message', (m: { parser: ParserName; text: string }) => {
  let problems: string[];
  try {
    problems = PARSE[m.parser](m.text);
  } catch (e) {
    // A parser that throws where it should answer: the text is not accepted (fail closed).
    problems = [`the parser failed: ${String((e as Error).message ?? e).split('\n', 1)[0]}`];
  }
  parentPort!.postMessage({ problems });
});
parentPort!.postMessage({ ready: true });
