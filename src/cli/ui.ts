/** Terminal output: colour (src/client/colour.ts), errors that say what to do next, documented exit codes. */
import { AirlockError, type ErrorCategory } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { ROLE_ERRORS, staleGroups, staleGroupsAdvice } from '../client/stale-groups.js';
import { commandLineFix } from './params-arg.js';

import { c } from '../client/colour.js';

export { c, riskColour, stateColour } from '../client/colour.js';

/** Exit codes (docs/cli.md): one per error category, so scripts can branch. */
export const EXIT = {
  ok: 0,
  failed: 1, // the action ran and failed or was rolled back; `audit verify`: log broken
  usage: 2, // bad command line; `audit verify`: cannot verify
  authorization: 3,
  stale_approval: 4,
  validation: 5,
  conflict: 6,
  transient: 7,
  unsupported_platform: 8,
  integrity: 9,
  execution: 10,
  incomplete: 11, // `plan`, `do`: a part of the request maps to no step (named as missing); nothing runs
} as const satisfies Record<ErrorCategory | 'ok' | 'failed' | 'usage' | 'incomplete', number>;

export function printJson(v: unknown): void {
  process.stdout.write(JSON.stringify(v, null, 2) + '\n');
}

/** Prints an error (as JSON on stdout with --json, else to stderr) and returns the exit code for it. */
export function reportError(e: unknown, json: boolean): number {
  const err = withStaleGroups(e instanceof AirlockError ? e : new AirlockError('execution', 'client_error', (e as Error).message ?? String(e)));
  if (json) printJson({ ok: false, error: err.toWire() });
  else {
    // The daemon escaped its text already; a client-side error may quote anything.
    process.stderr.write(`${c.red('error')} ${c.dim(`[${escapeText(err.category)}/${escapeText(err.code)}]`)} ${escapeText(err.message)}\n`);
    if (err.hint) process.stderr.write(`${c.cyan('next')}  ${escapeText(err.hint)}\n`);
    for (const fix of (err.wrongTypes ?? []).map(commandLineFix)) if (fix) process.stderr.write(`${c.cyan('next')}  ${escapeText(fix)}\n`);
  }
  return EXIT[err.category];
}

/** A role refusal to a session that lacks groups /etc/group gives it: the fix is a new login, not an administrator. */
function withStaleGroups(err: AirlockError): AirlockError {
  if (err.category !== 'authorization' || !ROLE_ERRORS.has(err.code)) return err;
  const stale = staleGroups();
  return stale ? new AirlockError(err.category, err.code, err.message, staleGroupsAdvice(stale)) : err;
}

export function table(rows: string[][], header: string[]): string {
  const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => strip(r[i] ?? '').length)));
  const line = (r: string[]) => r.map((cell, i) => cell + ' '.repeat(Math.max(0, widths[i]! - strip(cell).length))).join('  ').trimEnd();
  return [c.bold(line(header)), ...rows.map(line)].join('\n') + '\n';
}
