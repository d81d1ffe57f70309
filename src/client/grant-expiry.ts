/**
 * When a grant for configuration edits ends, from what a person gives: a length (`8h`, the CLI's
 * `--for`, the console's choice) or a time (`--until`). Every client that makes a grant computes
 * it here; the daemon refuses one over 30 days (GrantConfigEdits).
 */
import { AirlockError } from '../protocol/errors.js';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "8h" → milliseconds; a usage error says what is accepted. */
export function durationMs(text: string): number {
  const m = /^([1-9][0-9]{0,4})([mhd])$/.exec(text);
  if (!m) throw new AirlockError('validation', 'bad_duration', `--for ${JSON.stringify(text)} is not a duration`, 'write minutes, hours or days: 30m, 8h, 7d (at most 30d)');
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** When a grant given `--for` or `--until` ends, as the UTC time the daemon checks (it refuses over 30 days). */
export function expiresAt(o: { for?: string; until?: string }, now = Date.now()): string {
  if (o.until !== undefined) {
    const t = Date.parse(o.until);
    if (Number.isNaN(t)) throw new AirlockError('validation', 'bad_time', `--until ${JSON.stringify(o.until)} is not a time`, 'write a UTC time: 2026-12-08T18:00:00Z');
    return new Date(t).toISOString();
  }
  return new Date(now + durationMs(o.for ?? '8h')).toISOString();
}
