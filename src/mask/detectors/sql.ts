/**
 * Passwords in SQL statements, as shell histories (~/.mysql_history, ~/.psql_history) and
 * query logs (MySQL's general log, PostgreSQL's log_statement) keep them:
 * `IDENTIFIED BY 'x'`, `PASSWORD('x')`, `PASSWORD 'x'` (ALTER ROLE ... PASSWORD 'x').
 */
import type { Detector } from '../span.js';

/** A quoted SQL string of at most 256 characters: from each keyword a bounded stretch is read, whatever the line holds. */
const STRING = "'((?:[^'\\n\\\\]|\\\\.|''){1,256})'";
const STATEMENTS = new RegExp(`IDENTIFIED\\s{1,16}(?:WITH\\s{1,16}\\w{1,64}\\s{1,16})?BY\\s{1,16}(?:PASSWORD\\s{1,16})?${STRING}|PASSWORD\\s{0,16}\\(\\s{0,16}${STRING}\\s{0,16}\\)|PASSWORD\\s{1,16}${STRING}`, 'iy');
/** The keywords the statements start with: one literal pass finds them, the statement is read from each (sticky). */
const KEYWORDS = /identified|password/gi;

export const sql: Detector = (text, out) => {
  KEYWORDS.lastIndex = 0;
  for (let k; (k = KEYWORDS.exec(text)); ) {
    if (k.index > 0 && /\w/.test(text[k.index - 1]!)) continue; // a word's end (`db_password`), not a keyword
    STATEMENTS.lastIndex = k.index;
    const m = STATEMENTS.exec(text);
    if (!m) continue;
    const value = m[1] ?? m[2] ?? m[3]!;
    const start = m.index + m[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, kind: 'password' });
    KEYWORDS.lastIndex = m.index + m[0].length;
  }
};
