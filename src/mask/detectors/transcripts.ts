/**
 * Secrets that only their context names: a terminal transcript in which a command reads a
 * secret file or prints a secret (`cat /etc/restic/password`, `consul keygen`,
 * `elasticsearch-create-enrollment-token`, `nmcli -s -g 802-1x.password …`,
 * `psql -c 'select rolname, rolpassword …'`), a list of backup codes under its heading,
 * redis-cli's `CONFIG GET requirepass` reply, and the values of a Kubernetes Secret's
 * `data:` block. The rest of each line stays as it was.
 *
 * A prompt (`user@host:~$ `, `[root@host ~]# `, `$ `) is found by a literal-led pass;
 * what follows a secret command is read up to the next prompt, at most OUTPUT_LINES lines.
 * Every window is bounded and read once, so no input makes this more than linear.
 */
import { looksLikeKeyMaterial } from '../entropy.js';
import { secretName } from '../names.js';
import type { Detector, Span } from '../span.js';
import { isReference } from '../values.js';

/** How many lines of a secret command's output are read (a key file, a few codes, a table). */
const OUTPUT_LINES = 64;
/** How many lines after a backup-code heading hold the codes. */
const CODE_LINES = 40;

/** `user@host:path$ `, `root@host# `, `[root@host ~]# `: where the command starts (after the prompt). Sticky at a line's start. */
const PROMPT = /\[?[\w.-]{1,64}@[\w.-]{1,64}(?:[: ][^\n$#@\]]{0,256})?\]?[$#][ \t]+|\$[ \t]+/y;
/** Programs that show a file. */
const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'bat', 'batcat', 'strings', 'tac']);
/** Files that hold a secret whatever their name says, and files named like one that hold none. */
const SECRET_FILES = new Set(['.google_authenticator', 'shadow', 'gshadow', '.pgpass', '.netrc', '.my.cnf', 'htpasswd', '.htpasswd']);
const PUBLIC_FILES = new Set(['passwd', 'group', 'known_hosts', 'authorized_keys']);
/** Words of a command that say it prints a secret: key generators. Any word naming a secret does too (`…-enrollment-token`, `requirepass`). */
const GENERATORS = /^(?:keygen|genkey|genpsk|gen-key|generate-key|rand)$/;

/** Whether a file path names a secret file: its name (without extension) names a secret, and it is no public key. */
function secretFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (SECRET_FILES.has(base) || /(?:recovery|backup|scratch|emergency)[-_.]?codes?/i.test(base)) return true;
  if (PUBLIC_FILES.has(base) || /\.(?:pub|crt|pem\.pub|cert|csr)$/.test(base)) return false;
  return secretName(base.replace(/\.(?:txt|key|conf|cfg|secret)$/, '')) !== null || /\.key$/.test(base);
}

/** What a command line says its output holds: null (nothing secret), 'all' (secret lines), 'last' (the last field of each line is one). */
function secretCommand(command: string): 'all' | 'last' | null {
  let found: 'all' | 'last' | null = null;
  for (const segment of command.split(/;|&&|\|\||\|/)) {
    const words = segment.trim().split(/\s+/).filter((w) => w !== '' && w !== 'sudo');
    if (words.length === 0) continue;
    const program = words[0]!.slice(words[0]!.lastIndexOf('/') + 1);
    if (READERS.has(program) && words.slice(1).some((w) => !w.startsWith('-') && secretFile(w.replace(/^["']|["']$/g, '')))) return 'all';
    if (program === 'getent') continue; // `getent passwd`: the user database, no password in it
    if (program === 'wg' && words.includes('preshared-keys')) found = 'last';
    else if (words.some((w) => GENERATORS.test(w) || (w !== 'passwd' && !w.includes('/') && w.length <= 64 && secretName(w.replace(/^["'-]+|["']$/g, '')) === 'strong'))) found ??= 'all';
  }
  return found;
}

/** One line of a secret command's output: a lone token is masked whole; key material in `|` or tab separated fields is masked. */
function outputLine(text: string, start: number, end: number, how: 'all' | 'last', out: Span[]): void {
  const line = text.slice(start, end);
  const trimmed = line.trim();
  if (trimmed === '' || isReference(trimmed)) return;
  if (how === 'last') {
    const at = Math.max(line.lastIndexOf('\t'), line.lastIndexOf(' ')) + 1;
    if (at > 0 && looksLikeKeyMaterial(line.slice(at).trimEnd())) out.push({ start: start + at, end: start + at + line.slice(at).trimEnd().length, kind: 'key' });
    return;
  }
  if (!/[\s|]/.test(trimmed)) {
    if (trimmed.length >= 6 && !/^[/~.]/.test(trimmed)) {
      const at = start + line.indexOf(trimmed);
      out.push({ start: at, end: at + trimmed.length, kind: 'secret' });
    }
    return;
  }
  if (!/[|\t]/.test(line)) return;
  let from = 0;
  for (const field of line.split(/[|\t]/)) {
    const value = field.trim();
    const at = line.indexOf(value, from);
    from = at + value.length;
    if (value.length >= 16 && /\d/.test(value) && !/\s/.test(value) && looksLikeKeyMaterial(value)) out.push({ start: start + at, end: start + at + value.length, kind: 'password_hash' });
  }
}

/** The output of the command on the prompt line that holds `at`; returns where that line ends. */
function transcript(text: string, at: number, out: Span[]): number {
  const lineStart = text.lastIndexOf('\n', at) + 1;
  let lineEnd = text.indexOf('\n', at);
  if (lineEnd < 0) lineEnd = text.length;
  PROMPT.lastIndex = lineStart;
  const p = PROMPT.exec(text);
  if (!p) return lineEnd;
  const how = secretCommand(text.slice(p.index + p[0].length, lineEnd));
  if (how === null) return lineEnd;
  // Its output: the lines up to the next prompt, at most OUTPUT_LINES of them.
  let start = lineEnd + 1;
  for (let n = 0; n < OUTPUT_LINES && start < text.length; n++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    PROMPT.lastIndex = start;
    if (PROMPT.test(text)) break;
    outputLine(text, start, end > start && text[end - 1] === '\r' ? end - 1 : end, how, out);
    start = end + 1;
  }
  return lineEnd; // its output is read by the other contexts too (a redis-cli reply)
}

/** A heading over backup or recovery codes (GitHub, Google, GitLab, a password manager's export). */
const CODES_HEADING = /(?:backup|recovery|scratch|emergency|one[- ]time)[ -]codes?/iy;

/** A line of codes: an optional `1.` or `-`, then one or more codes (`5606 4233`, `a1b2c-3d4e5`, `ABCD-EFGH-1234`) two blanks apart. */
const CODE = /^[A-Za-z0-9]{3,20}(?:[ -][A-Za-z0-9]{3,12}){0,3}$/; // GitLab's are 16 hex digits

/** The codes under a heading whose `code` is at `at` (when a heading is there); returns where they end. */
function backupCodes(text: string, at: number, out: Span[]): number {
  // The adjective before ` codes`: at most `emergency` (9) and a separator back.
  let h = false;
  for (let back = 6; back <= 10 && !h; back++) {
    CODES_HEADING.lastIndex = at - back;
    h = at - back >= 0 && CODES_HEADING.test(text);
  }
  if (!h) return at + 1;
  let start = text.indexOf('\n', at) + 1;
  if (start === 0) return text.length;
  for (let n = 0; n < CODE_LINES && start < text.length; n++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    const body = /^\s*(?:\d{1,2}[.)]\s+|[-*•]\s+)?/.exec(line)![0].length;
    const cells = line.slice(body).trimEnd().split(/\s{2,}|\t/);
    if (line.slice(body).trim() !== '' && cells.every((c) => CODE.test(c) && /\d/.test(c))) {
      let from = body;
      for (const c of cells) {
        const i = line.indexOf(c, from);
        from = i + c.length;
        out.push({ start: start + i, end: start + i + c.length, kind: 'recovery_code' });
      }
    }
    start = end + 1;
  }
  return start;
}

/** redis-cli's reply to CONFIG GET: `1) "requirepass"` then `2) "VALUE"`. Sticky at a line's start. */
const REDIS_PAIR = /\d{1,4}\) "([^"\n]{1,128})"\r?\n\d{1,4}\) "([^"\n]{1,512})"/y;

function redisPair(text: string, at: number, out: Span[]): void {
  REDIS_PAIR.lastIndex = at;
  const m = REDIS_PAIR.exec(text);
  if (!m || secretName(m[1]!) !== 'strong' || m[2] === '' || isReference(m[2]!)) return;
  const end = m.index + m[0].length - 1;
  out.push({ start: end - m[2]!.length, end, kind: 'password' });
}

/** A Secret's `data:` or `stringData:` key: the lines under it, indented deeper, each `name: value`. */
const DATA_KEY = /^([ \t]*)(?:data|stringData):[ \t]*\r?$/gm;
const DATA_ENTRY = /([ \t]+)[\w.-]{1,253}:[ \t]+([^\s#][^\n\r]{0,8191})/y;
/** How far around a `data:` key a Secret's `kind: Secret` is looked for (its document). */
const DOCUMENT = 4096;

/**
 * The `data:` blocks of the Secret whose `kind: Secret` line is at `at`: within DOCUMENT
 * characters either side (kubectl prints `data` before `kind`), from `from` on (what an
 * earlier Secret's window read is not read again). Returns where this window ends.
 */
function secretData(text: string, at: number, from: number, out: Span[]): number {
  const limit = Math.min(text.length, at + DOCUMENT);
  const window = text.slice(0, limit); // the search for a `data:` key stops at the window's end, not the text's
  DATA_KEY.lastIndex = Math.max(from, at - DOCUMENT);
  for (let m; (m = DATA_KEY.exec(window)); ) {
    const indent = m[1]!.length;
    let start = text.indexOf('\n', m.index) + 1;
    while (start > 0 && start < text.length) {
      DATA_ENTRY.lastIndex = start;
      const e = DATA_ENTRY.exec(text);
      if (!e || e[1]!.length <= indent) break;
      const value = e[2]!.replace(/[ \t\r]+$/, '');
      const v = e.index + e[0].length - e[2]!.length;
      if (!isReference(value)) out.push({ start: v, end: v + value.length, kind: 'secret' });
      start = text.indexOf('\n', e.index) + 1;
    }
    DATA_KEY.lastIndex = Math.max(DATA_KEY.lastIndex, start);
  }
  return limit;
}

/**
 * Every context's literal in one pass: a prompt (`@host…$ `, `$ ` at a line's start), the
 * word `code` of a backup-code heading, a redis-cli reply line, a `kind: Secret` line.
 */
const GATE = /@[\w.-]{1,64}(?:[: ][^\n$#@\]]{0,256})?\]?[$#][ \t]|\n\$[ \t]|[Cc](?:odes?|ODES?)\b|\n\d{1,4}\) "|\nkind: Secret[ \t]*\r?(?=\n|$)/g;
/** The same at the text's start, where no newline comes before a line (a line's start is `\n` in GATE: `^` would cost a pass of its own). */
const AT_START = /\$[ \t]|\d{1,4}\) "|kind: Secret[ \t]*\r?(?:\n|$)/y;

export const contextSecrets: Detector = (text, out) => {
  let dataRead = 0;
  AT_START.lastIndex = 0;
  const first = AT_START.exec(text);
  GATE.lastIndex = 0;
  for (let m = first ?? GATE.exec(text); m; m = GATE.exec(text)) {
    const at = m === first || m[0][0] !== '\n' ? m.index : m.index + 1;
    const c = text[at]!;
    if (c === '@') GATE.lastIndex = Math.max(GATE.lastIndex, transcript(text, at, out));
    else if (c === 'C' || c === 'c') GATE.lastIndex = Math.max(GATE.lastIndex, backupCodes(text, at, out));
    else if (c === 'k') dataRead = secretData(text, at, dataRead, out);
    else if (c === '$') GATE.lastIndex = Math.max(GATE.lastIndex, transcript(text, at, out));
    else redisPair(text, at, out);
  }
};
