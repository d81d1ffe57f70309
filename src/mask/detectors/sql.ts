/**
 * Passwords in SQL statements, as shell histories (~/.mysql_history, ~/.psql_history) and
 * query logs (MySQL's general log, PostgreSQL's log_statement) keep them:
 * `IDENTIFIED BY 'x'`, `PASSWORD('x')`, `PASSWORD 'x'` (ALTER ROLE ... PASSWORD 'x').
 */
import type { Detector } from '../span.js';

/** A quoted SQL string of at most 256 characters: from each keyword a bounded stretch is read, whatever the line holds. */
const STRING = "'((?:[^'\\n\\\\]|\\\\.|''){1,256})'";
const STATEMENTS = new RegExp(`\\bIDENTIFIED\\s{1,16}(?:WITH\\s{1,16}\\w{1,64}\\s{1,16})?BY\\s{1,16}(?:PASSWORD\\s{1,16})?${STRING}|\\bPASSWORD\\s{0,16}\\(\\s{0,16}${STRING}\\s{0,16}\\)|\\bPASSWORD\\s{1,16}${STRING}`, 'gi');

export const sql: Detector = (text, out) => {
  if (!/identified|password/i.test(text)) return;
  STATEMENTS.lastIndex = 0;
  for (let m; (m = STATEMENTS.exec(text)); ) {
    const value = m[1] ?? m[2] ?? m[3]!;
    const start = m.index + m[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, kind: 'password' });
  }
};
