/**
 * Passwords that programs take on their command line in a form of their own, as shell
 * histories, `ps` and CI logs show them: the MySQL and MariaDB clients' `-pPASSWORD`
 * (attached, so no separator names it), curl's and wget's `-u user:password`, sshpass's
 * `-p password`, and PHP's PDO constructor as a stack trace prints it
 * (`PDO->__construct('mysql:...', 'user', 'password')`). Flags that name the secret
 * (`--password=x`, `--redis.password x`) are assignments (assignments.ts).
 */
import type { Detector, Span } from '../span.js';

const MYSQL_P = /\b(?:mysql|mariadb|mysqldump|mysqladmin|mysqlimport|mariadb-dump|mysqlcheck)\b[^\n]*?[ \t]-p(?:'([^'\n]+)'|"([^"\n]+)"|([^\s'"]+))/g;
const USERINFO_FLAG = /(?:^|[ \t])(?:-u|--user|--proxy-user|--http-user)(?:[ \t]+|=)['"]?[^\s:'"]+:([^\s'"]+)/gm;
const SSHPASS = /\bsshpass\b[^\n]*?[ \t]-p[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|(\S+))/g;
const PDO = /\bPDO(?:->__construct)?\(\s*'[^'\n]*',\s*'[^'\n]*',\s*'([^'\n]+)'/g;

function valueGroups(text: string, re: RegExp, kind: string, out: Span[]): void {
  re.lastIndex = 0;
  for (let m; (m = re.exec(text)); ) {
    const value = m[1] ?? m[2] ?? m[3]!;
    const start = m.index + m[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, kind });
  }
}

export const commandLines: Detector = (text, out) => {
  if (text.includes('mysql') || text.includes('mariadb')) valueGroups(text, MYSQL_P, 'password', out);
  if (text.includes('-u') || text.includes('-user')) valueGroups(text, USERINFO_FLAG, 'password', out);
  if (text.includes('sshpass')) valueGroups(text, SSHPASS, 'password', out);
  if (text.includes('PDO')) valueGroups(text, PDO, 'password', out);
};
