/**
 * Passwords that programs take on their command line in a form of their own, as shell
 * histories, `ps` and CI logs show them: a flag whose name says nothing (`redis-cli -a x`,
 * `ldapsearch -w x`, `mysql -px`), a `user:password` or `user%password` argument (`curl -u`,
 * `smbclient -U`), an `openssl` pass phrase (`-passout pass:x`), and the arguments of a few
 * commands that are all secret after the first (`wpa_passphrase SSID x`). Also PHP's PDO
 * constructor as a stack trace prints it. Flags that name the secret (`--password=x`,
 * `--redis.password x`) are assignments (assignments.ts).
 *
 * One pass finds the lines that name a program; each such line is read once, so no input
 * makes this more than linear.
 */
import type { Detector, Span } from '../span.js';
import { ARMOUR_LITERALS, noteArmour, privateKeys, type Armours } from './private-keys.js';

/** The value after a flag: quoted, or one token. */
const VALUE = `(?:'([^'\\n]+)'|"([^"\\n]+)"|([^\\s'"]+))`;
/** [the program's name as a word, the flags (as a regular expression) whose value is a password]. */
const PROGRAMS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/\b(?:mysql|mariadb|mysqldump|mysqladmin|mysqlimport|mariadb-dump|mysqlcheck)\b/, new RegExp(`[ \\t]-p${VALUE}`, 'g')],
  [/\bsshpass\b/, new RegExp(`[ \\t]-p[ \\t]*${VALUE}`, 'g')],
  [/\bredis-cli\b/, new RegExp(`[ \\t]-a[ \\t]+${VALUE}`, 'g')],
  [/\bldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop)\b/, new RegExp(`[ \\t]-w[ \\t]+${VALUE}`, 'g')],
  [/\b(?:docker|podman|buildah|skopeo|helm|oras)\b[^\n]{0,40}\blogin\b/, new RegExp(`[ \\t]-p[ \\t]+${VALUE}`, 'g')],
  [/\bmongo(?:sh|dump|restore|import|export)?\b/, new RegExp(`[ \\t]-p[ \\t]+${VALUE}`, 'g')],
  [/\bkeytool\b/, new RegExp(`[ \\t]-(?:storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass)[ \\t]+${VALUE}`, 'g')],
  [/\bssh-keygen\b/, new RegExp(`[ \\t]-[NP][ \\t]+${VALUE}`, 'g')],
  [/\b(?:7z|7za)\b/, new RegExp(`[ \\t]-p${VALUE}`, 'g')],
  [/\b(?:zip|unzip)\b/, new RegExp(`[ \\t]-P[ \\t]+${VALUE}`, 'g')],
  [/\b(?:gpg|gpg2|iwctl)\b/, new RegExp(`[ \\t]--passphrase[ \\t]+${VALUE}`, 'g')],
  [/\bopenssl\b/, new RegExp(`[ \\t]-(?:passout|passin|pass)[ \\t]+(?:pass|env|file|fd):?${VALUE}|[ \\t]-k[ \\t]+${VALUE}`, 'g')],
  [/\b(?:curl|wget|lftp)\b|\bhttp\b(?!s?:\/\/)/, new RegExp(`[ \\t](?:-u|--user|--proxy-user|--http-user)(?:[ \\t]+|=)['"]?[^\\s:'"]+:${VALUE}`, 'g')],
  [/\b(?:smbclient|rpcclient|smbmap|net)\b/, new RegExp(`[ \\t](?:-U|--user)(?:[ \\t]+|=)['"]?[^\\s%'"]+%${VALUE}`, 'g')],
  [/\bwpa_passphrase\b/, new RegExp(`\\bwpa_passphrase[ \\t]+(?:'[^'\\n]*'|"[^"\\n]*"|\\S+)[ \\t]+${VALUE}`, 'g')],
  [/\bPDO\b/, /\bPDO(?:->__construct)?\(\s*'[^'\n]*',\s*'[^'\n]*',\s*'([^'\n]+)'/g],
  // Net-SNMP's tools: -c COMMUNITY (v1, v2c), -A AUTHPASS and -X PRIVPASS (v3).
  [/\bsnmp(?:walk|bulkwalk|get|getnext|bulkget|set|trap|inform|table|df|netstat|status|delta|test|usm|vacm|translate)\b/, new RegExp(`[ \\t]-[cAX][ \\t]*${VALUE}`, 'g')],
  // oathtool's KEY: its first argument that is no option (`oathtool --totp -b KEY`).
  [/\boathtool\b/, new RegExp(`\\boathtool(?:[ \\t]+-[-\\w=]*)*[ \\t]+${VALUE}`, 'g')],
];
/** Any program's name: a line that holds none is not read further. */
const ANY = new RegExp(PROGRAMS.map(([program]) => program.source).join('|'));
/**
 * What a line must hold before a program's name is looked for in it: one of the flags
 * above after a blank (`-p`, `-a`, `-w`, `-k`, `-u`, `-U`, `-N`, `-P`, `-storepass`,
 * `-deststorepass`, `--passphrase`, `--user`, snmp's `-c`, `-A`, `-X`, oathtool's `-b`), or one
 * of the two programs that take none.
 * One literal-led pass finds these; the program names (an expression with no literal to
 * skip to) are then read on those lines only.
 */
const FLAGS = '[ \\t]-[-pawkuUNPsdcAXb]|wpa_passphrase|PDO';
/**
 * The same pass finds the literals of private-key armour (private-keys.ts): one pass over
 * both costs about three quarters of two. The armours' spans are added first (before this
 * detector's), as when they had a pass of their own.
 */
const GATE = new RegExp(`${ARMOUR_LITERALS}|${FLAGS}`, 'g');
const ARMOURS = ARMOUR_LITERALS.split('|');

export const commandLinesAndKeys: Detector = (text, out) => {
  const armours: Armours = { begin: false, age: false, putty: false };
  const passwords: Span[] = [];
  GATE.lastIndex = 0;
  for (let m; (m = GATE.exec(text)); ) {
    const c = m[0][0];
    if (c === '-' || c === 'A' || (c === 'P' && m[0] !== 'PDO')) {
      noteArmour(m[0], armours);
      continue;
    }
    // The line of this flag, read once for every program on it.
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    let lineEnd = text.indexOf('\n', m.index);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    if (ANY.test(line)) for (const [program, flags] of PROGRAMS) if (program.test(line)) values(line, lineStart, flags, passwords);
    // The pass goes on at the next line; an armour's literal in the rest of this one (even
    // where the flag's ` --` starts a `-----BEGIN `) is looked for in the line itself.
    for (const literal of ARMOURS) if (line.includes(literal, m.index + 1 - lineStart)) noteArmour(literal, armours);
    GATE.lastIndex = lineEnd;
  }
  privateKeys(text, armours, out);
  for (const p of passwords) out.push(p);
};

/** Each match's value (its last defined group) as a password span; `base` is the line's offset in the text. */
function values(line: string, base: number, re: RegExp, out: Span[]): void {
  re.lastIndex = 0;
  for (let m; (m = re.exec(line)); ) {
    let value: string | undefined;
    for (let g = m.length - 1; g >= 1 && value === undefined; g--) value = m[g];
    if (!value) continue;
    const start = base + m.index + m[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, kind: 'password' });
  }
}
