/**
 * Inputs that make a careless masker super-linear (issue 23): each unit, repeated, puts a
 * candidate (a name, a prefix, an opening quote, a BEGIN line) every few characters, each
 * with a value or a search that would run to the end of the line or the text. Shared by the
 * linearity test (test/unit/mask-linear.test.ts) and `npm run bench` (bench/masking.ts).
 */
export const ADVERSARIAL: Readonly<Record<string, string>> = {
  'key=': 'key=',
  'sig=': 'sig=',
  'KEY=': 'KEY=',
  'auth=': 'auth=',
  'password=': 'password=',
  'token: ': 'token: ',
  'key: ': 'key: ',
  'key=a ': 'key=a ',
  '://a:b': '://a:b',
  'a:b@': 'a:b@',
  '"key="': '"key="',
  "'key='": "'key='",
  '<key>': '<key>',
  '\\"key\\": \\"': '\\"key\\": \\"',
  'name: DB_PASSWORD ': 'name: DB_PASSWORD ',
  '"--password",': '"--password",',
  'password ': 'password ',
  'Authorization: ': 'Authorization: ',
  'Bearer ': 'Bearer ',
  'mysql -p': 'mysql -p',
  'machine h password ': 'machine h password ',
  'base64 run': 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3',
  '= run': '=',
  'BEGIN lines': '-----BEGIN PRIVATE KEY-----\n',
  '$6$': '$6$',
  '{SSHA}': '{SSHA}',
  'quotes': '"',
  'one long word': 'A',
  'markers beside secrets': '⟦secret:token⟧ password=hunter22\n',
  'key=key=ghp_': 'key=key=ghp_',
  'key$6$ (found by the fuzz)': 'key$6$',
  "PASSWORD('": "PASSWORD('",
  "IDENTIFIED BY '": "IDENTIFIED BY '",
  'a. (host names)': 'a.',
  '1.1. (addresses)': '1.1.',
  'a@a. (e-mail)': 'a@a.',
  'Authorization== (found by the fuzz)': 'Authorization==',
  'basic ': 'basic ',
  '}a (hash tags)': '}a',
  '$$': '$',
  'md5 ': 'md5',
  '9:a:b: (.pgpass)': '9:a:b:',
  'x@h:~$ cat password': 'x@h:~$ cat /etc/password\n',
  'backup codes': 'backup codes\n',
  'kind: Secret': 'kind: Secret\ndata:\n',
  '1) "password"': '1) "password"\n',
  'tokens {': 'tokens {',
  'SHA1 ': '1 SHA1 ',
};

/** `unit` repeated to exactly `size` characters. */
export function repeatTo(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}
