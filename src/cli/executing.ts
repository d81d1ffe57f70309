/**
 * Executing an approved transaction and showing it, for `run`, `execute` and `preview --wait`:
 * at a terminal it says what it does (on stderr), its output is printed as the daemon streams
 * it (output notices, docs/protocol.md), then the result; the output is not printed a second
 * time unless the stream left lines out. With --json: the result alone, after the end.
 */
import type { AirlockClient } from '../client/client.js';
import { escapeText } from '../protocol/escape-text.js';
import type { OutputNotice, ResultEnvelope } from '../protocol/messages.js';
import { outputLine, renderResult } from './render.js';
import { c, EXIT } from './ui.js';

/** What the person at a terminal is told of what happens (stderr; nothing when it is not a terminal, or with --json). */
export const status = (json: boolean, text: string): void => {
  if (!json && process.stderr.isTTY) process.stderr.write(c.dim(text) + '\n');
};

export const exitFor = (r: ResultEnvelope): number => (r.state === 'Succeeded' || r.state === 'NeedsReboot' ? EXIT.ok : EXIT.failed);

/**
 * Executes `tx` with `receipt`; prints the streamed output and the result unless `json` (then
 * the caller prints). `announced`: the caller said already that it executes.
 */
export async function executeShown(cl: AirlockClient, tx: { transaction_id: string; action_name: string; params: Record<string, unknown> }, receipt: string, json: boolean, o: { announced?: boolean } = {}): Promise<ResultEnvelope> {
  const started = Date.now();
  if (!o.announced) status(json, `executing ${escapeText(tx.action_name)} ${tx.transaction_id}...`);
  let streamed = 0;
  let gaps = false;
  const onOutput = (n: OutputNotice) => {
    if (n.not_streamed > 0) {
      gaps = true;
      process.stdout.write(c.dim(`  (${n.not_streamed} lines not streamed)`) + '\n');
    }
    for (const l of n.lines) process.stdout.write(outputLine(l) + '\n');
    streamed += n.lines.length;
  };
  const r = await cl.execute(tx.transaction_id, tx.action_name, tx.params, receipt, json ? undefined : onOutput);
  if (!json) process.stdout.write(renderResult(r, { outputShown: streamed > 0 && !gaps }));
  status(json, `done in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return r;
}
