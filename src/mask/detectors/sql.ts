/**
 * Passwords in SQL statements, as shell histories (~/.mysql_history, ~/.psql_history) and
 * query logs (MySQL's general log, PostgreSQL's log_statement) keep them:
 * `IDENTIFIED BY 'x'`, `PASSWORD('x')`, `PASSWORD 'x'` (ALTER ROLE ... PASSWORD 'x').
 */
import type { Detector } from '../span.js';

const STATEMENTS = /\bIDENTIFIED\s+(?:WITH\s+\w+\s+)?BY\s+(?:PASSWORD\s+)?'((?:[^'\n\\]|\\.|'')+)'|\bPASSWORD\s*\(\s*'((?:[^'\n\\]|\\.|'')+)'\s*\)|\bPASSWORD\s+'((?:[^'\n\\]|\\.|'')+)'/gi;

export const sql: Detector = (text, out) => {
  if (!/identified|password/i.test(text)) return;
  STATEMENTS.lastIndex = 0;
  for (let m; (m = STATEMENTS.exec(text)); ) {
    const value = m[1] ?? m[2] ?? m[3]!;
    const start = m.index + m[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, kind: 'password' });
  }
};
