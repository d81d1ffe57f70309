/**
 * Parameter validators shared by every family. Each one is an allowlist: a value
 * that does not match is refused with a message saying what is allowed. None of
 * them admits NUL, a newline, a leading '-' (option injection) or a '..' segment.
 * A value longer than its schema allows is refused for its length alone (boundedString): no
 * pattern or refinement reads an agent's megabyte on the daemon's event loop
 * (test/unit/param-length.test.ts holds this over the whole catalogue).
 */
import { isIP } from 'node:net';
import { z } from 'zod';

const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

/**
 * A string of at most `max` characters, its length checked first and alone: a longer value is
 * refused with `message` before any later pattern or refinement reads it. Every string
 * parameter starts here.
 */
export const boundedString = (max: number, message?: string) => z.string().max(max, { message, abort: true });
const noLeadingDash = (s: string) => !s.startsWith('-');

/**
 * A string matching `re`, with the universal refusals applied first so their message is the
 * clear one. `accepts` is the sentence a refusal ends with and `airlock describe` shows
 * ("a package name (...), e.g. nginx"); the pattern itself is never shown to a person.
 */
export function token(re: RegExp, what: string, max = 255, accepts = `a ${what}`) {
  return boundedString(max, `${what} must be at most ${max} characters`)
    .min(1, `${what} must not be empty`)
    .refine(noControl, `${what} must not contain NUL, newlines or control characters`)
    .refine(noLeadingDash, `${what} must not start with '-'`)
    .regex(re, accepts)
    .describe(accepts);
}

/**
 * A user or group name: a lower-case letter or _, then lower-case letters, digits, _ and -,
 * 32 characters at most. The one pattern for login names: the catalogue's validators below,
 * the daemon (totp.reset) and the policy file (unattended) all use it.
 */
export const LOGIN_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
const LOGIN_CHARS = 'a lower-case letter or _, then lower-case letters, digits, _ and -, up to 32 characters';
export const userName = token(LOGIN_NAME, 'user name', 32, `a user name (${LOGIN_CHARS}, e.g. alice)`);
export const groupName = token(LOGIN_NAME, 'group name', 32, `a group name (${LOGIN_CHARS}, e.g. developers)`);
export const packageName = token(/^[a-z0-9][a-z0-9+.-]{1,99}$/, 'package name', 100, 'a package name (lower-case letters, digits and + . -, 2 to 100 characters, starting with a letter or digit, e.g. nginx)');
/**
 * As systemctl reads a unit name: one without a type suffix means NAME.service (`nginx` is
 * nginx.service). Only a name with no dot at all gets the suffix: systemctl would also turn
 * `cron.service.d` into `cron.service.d.service`, and a name that looks like something else
 * is better refused than guessed.
 */
export const unitWithType = (name: string): string => (name === '' || name.includes('.') ? name : `${name}.service`);
/**
 * A unit name, normalised before anything else looks at it: the preview, the request hash and
 * the log all carry `nginx.service` for `nginx`. Then the allowlist of the types Airlock manages.
 */
const UNIT_ACCEPTS = 'a systemd unit name (letters, digits and : _ . @ -, up to 250 characters, ending in .service, .socket, .timer, .target, .path or .mount; a name with no dot means NAME.service, e.g. nginx)';
export const unitName = z
  .preprocess((v) => (typeof v === 'string' ? unitWithType(v) : v), token(/^[A-Za-z0-9:_.@-]{1,240}\.(service|socket|timer|target|path|mount)$/, 'unit name', 250, UNIT_ACCEPTS))
  .describe(UNIT_ACCEPTS);
export const hostName = token(/^(?=.{1,63}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'host name (one label, RFC 1123)', 63, 'a host name of one label (lower-case letters, digits and -, up to 63 characters, not starting or ending with -, e.g. web1)');
export const fqdn = token(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, 'host name', 253, 'a host name (labels of lower-case letters, digits and - separated by dots, up to 253 characters, e.g. web1.example.com)');
export const timezone = token(/^(UTC|[A-Z][A-Za-z_+-]*(\/[A-Za-z0-9_+-]+){1,2})$/, 'time zone (Area/City)', 64, 'a time zone, UTC or Area/City, e.g. Europe/Berlin');
export const sysctlKey = token(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$/, 'sysctl key (dotted, e.g. net.ipv4.ip_forward)', 128, 'a sysctl key (dotted lower-case words, e.g. net.ipv4.ip_forward)');
export const sysctlValue = token(/^[A-Za-z0-9_ .:,/+-]{1,128}$/, 'sysctl value', 128, 'a sysctl value (letters, digits, spaces and _ . : , / + -, up to 128 characters, e.g. 1)');
export const gecos = boundedString(64, 'comment must be at most 64 characters')
  .refine((s) => /^[A-Za-z0-9 ._'()-]*$/.test(s), "comment may hold letters, digits, spaces and . _ ' ( ) - only")
  .refine(noLeadingDash, "comment must not start with '-'");
export const port = z.number().int().min(1).max(65535);
export const ipAddress = boundedString(45)
  .refine((s) => isIP(s) !== 0, 'an IPv4 or IPv6 address, e.g. 192.0.2.10 or 2001:db8::10')
  .describe('an IPv4 or IPv6 address, e.g. 192.0.2.10 or 2001:db8::10');
export const lineCount = z.number().int().min(1).max(10_000);
/** A calendar date YYYY-MM-DD (proleptic Gregorian, 1970-01-01 or later) that really exists: 2031-02-30 is refused. */
export const calendarDate = token(/^(19[7-9][0-9]|2[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/, 'date (YYYY-MM-DD)', 10, 'a date YYYY-MM-DD, 1970 or later, e.g. 2031-12-31').refine(
  (s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
  },
  'date does not exist in the calendar',
);

/** Login shells the catalogue may set: a fixed list, not a path. */
export const LOGIN_SHELLS = ['/bin/bash', '/bin/sh', '/usr/bin/bash', '/usr/sbin/nologin', '/bin/false'] as const;
export const loginShell = z.enum(LOGIN_SHELLS).describe(`a login shell, one of ${LOGIN_SHELLS.join(', ')}`);

/** Absolute path: no '..', no '//' or '/./', no trailing slash, no control characters. Allowlists are the action's job. */
export const absolutePath = boundedString(4096)
  .min(2)
  .refine(noControl, 'path must not contain NUL, newlines or control characters')
  .refine((s) => s.startsWith('/'), 'path must be absolute')
  .refine((s) => !s.split('/').some((seg, i) => (i > 0 && seg === '') || seg === '.' || seg === '..'), "path must not contain '..', '.', '//' or end with '/'");

const SSH_KEY_TYPES = [
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
];

/**
 * An OpenSSH public key line "type base64 [comment]" with no options prefix: the
 * base64 must decode to a blob whose embedded type equals the declared one.
 */
export const sshPublicKey = boundedString(16_384)
  .refine(noControl, 'key must be a single line without control characters')
  .refine(isWellFormedSshKey, 'not an OpenSSH public key "TYPE BASE64 [comment]" (options such as command= are not accepted)');

export function parseSshKey(line: string): { type: string; blob: string; comment: string } | null {
  const m = /^([a-z0-9@.-]+) ([A-Za-z0-9+/]+={0,2})(?: ([A-Za-z0-9@._:+=-]{1,100}))?$/.exec(line);
  if (!m) return null;
  return { type: m[1]!, blob: m[2]!, comment: m[3] ?? '' };
}

function isWellFormedSshKey(line: string): boolean {
  const k = parseSshKey(line);
  if (!k || !SSH_KEY_TYPES.includes(k.type)) return false;
  const raw = Buffer.from(k.blob, 'base64');
  if (raw.toString('base64') !== k.blob || raw.length < 4) return false;
  const len = raw.readUInt32BE(0);
  return len > 0 && 4 + len <= raw.length && raw.subarray(4, 4 + len).toString('latin1') === k.type;
}

/** Every param schema is strict: unknown keys are refused, not ignored. */
export const params = z.strictObject;
export const noParams = z.strictObject({});

/**
 * Pure glob match used by action allowlists and the executor alike: `*` matches one
 * or more characters within a single path segment; nothing else is special.
 */
export function matchesGlob(path: string, glob: string): boolean {
  const re = new RegExp('^' + glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+') + '$');
  return re.test(path);
}

/** An absolutePath that also matches one of a fixed list of globs (see matchesGlob). */
export function pathMatching(globs: readonly string[], what: string) {
  return absolutePath.refine((p) => globs.some((g) => matchesGlob(p, g)), `${what} must be one of: ${globs.join(', ')}`);
}

// ---------------------------------------------------------------- shared by several families

/** A .service or .timer unit; a template needs its instance (getty@tty1.service, not getty@.service). */
export const serviceUnit = unitName
  .refine((u) => /\.(service|timer)$/.test(u), 'only .service and .timer units are managed by this family')
  .refine((u) => !/@\.(service|timer)$/.test(u), 'a template unit needs an instance, e.g. getty@tty1.service')
  .describe('a .service or .timer unit; a template needs its instance (getty@tty1.service); a name with no suffix (no dot) means NAME.service, as systemctl reads it');

/** How many journal lines UnitLogs returns: 1 to 1000, 100 when omitted. */
export const journalLines = z.number().int().min(1).max(1000);
export const DEFAULT_LOG_LINES = 100;

/** A .service unit: only those run processes (signals, schedules). */
export const serviceOnly = serviceUnit.refine((u) => u.endsWith('.service'), 'only .service units run processes');

/** A number of days (password ageing, retention), within bounds. */
export const days = (min: number, max: number) => z.number().int().min(min, `at least ${min}`).max(max, `at most ${max}`);
