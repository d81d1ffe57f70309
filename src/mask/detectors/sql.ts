/**
 * Passwords in SQL statements, as shell histories (~/.mysql_history, ~/.psql_history) and
 * query logs (MySQL's general log, PostgreSQL's log_statement) keep them:
 * `IDENTIFIED BY 'x'`, `PASSWORD('x')`, `PASSWORD 'x'` (ALTER ROLE ... PASSWORD 'x').
 */
import type { Span } from '../span.js';

/** A quoted SQL string of at most 256 characters: from each keyword a bounded stretch is read, whatever the line holds. */
const STRING = "'((?:[^'\\n\\\\]|\\\\.|''){1,256})'";
const STATEMENTS = new RegExp(`IDENTIFIED\\s{1,16}(?:WITH\\s{1,16}\\w{1,64}\\s{1,16})?BY\\s{1,16}(?:PASSWORD\\s{1,16})?${STRING}|PASSWORD\\s{0,16}\\(\\s{0,16}${STRING}\\s{0,16}\\)|PASSWORD\\s{1,16}${STRING}`, 'iy');
/**
 * The keywords the statements start with, in any case. The credential-file pass
 * (credential-files.ts) looks for them in its own pass (it looks for `password` already,
 * and a pass costs about the same whatever it looks for) and calls `statementAt` at each.
 */
export const SQL_KEYWORDS = 'identified|password';

/**
 * The statement whose keyword starts at `at` (any case), if one does: its string's span
 * added to `out`. Returns where the statement ends (a keyword before that is inside it,
 * not read again), or -1.
 */
export function statementAt(text: string, at: number, out: Span[]): number {
  if (at > 0 && /\w/.test(text[at - 1]!)) return -1; // a word's end (`db_password`), not a keyword
  STATEMENTS.lastIndex = at;
  const m = STATEMENTS.exec(text);
  if (!m) return -1;
  const value = m[1] ?? m[2] ?? m[3]!;
  const start = m.index + m[0].lastIndexOf(value);
  out.push({ start, end: start + value.length, kind: 'password' });
  return m.index + m[0].length;
}
