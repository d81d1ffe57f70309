/**
 * `airlock passkey add`: passkey.begin here, the ceremony in the browser (the console's
 * /register#ID page relays the new credential to the daemon, which parks it), and
 * passkey.register here to finish: without a code while the browser part is not done
 * (`registration_not_ready`), then with the person's TOTP code when they hold no passkey yet
 * (asked at this terminal, code-prompt.ts); a person who holds one vouched for the new one on
 * the page. Five minutes at most, as long as the daemon keeps the registration.
 *
 * With `--existing FILE` (`-`: standard input), the passkey is one registered on another host,
 * as `airlock passkey export` printed it there: passkey.begin `existing`, and the page asks that
 * passkey to sign this host's challenge instead of making a new one. The file is the person's
 * (or an agent's) text: bounded, and checked with the protocol's own schema before it is sent.
 */
import type { Command } from 'commander';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { PasskeyPublicSchema, type PasskeyPublic } from '../protocol/wire/passkey.js';
import { readBoundedFile } from './bounded-file.js';
import { withOwnCode } from './code-prompt.js';
import { withClient } from './connect.js';
import { c, printJson } from './ui.js';

const WAIT_MS = 5 * 60_000;
const POLL_MS = 1500;
const DEFAULT_CONSOLE_URL = 'http://localhost:7443';
/** The largest exported passkey read: one is under 2 KiB (a credential id and a COSE key). */
export const MAX_EXISTING_BYTES = 16 * 1024;

interface Begun {
  approver: string;
  registration_id: string;
  /** The console's page for this registration (the policy's [console] url, the id in the fragment). */
  link?: string;
  check: string;
  expires_at: string;
  proof?: unknown;
}

interface Registered {
  approver: string;
  passkey_id: string;
  name: string;
  registered_at: string;
}

export async function passkeyAdd(o: { name?: string; json?: boolean; existing?: string }, cmd: Command): Promise<void> {
  // Read and checked before any connection: a malformed file is said at once, and begins nothing.
  const existing = o.existing === undefined ? undefined : await readExisting(o.existing);
  const done = await withClient(cmd, async (cl) => {
    const begun = (await cl.callUnchecked('passkey.begin', existing ? { existing } : {})) as Begun;
    const url = begun.link ?? `${await consoleUrl(cl)}/register#${begun.registration_id}`;
    const err = process.stderr;
    err.write(`Open this page where your passkey lives (phone, laptop), as ${begun.approver}:\n\n  ${c.bold(url)}\n\n`);
    err.write(`Check code: ${c.bold(begun.check)}  (the page must show the same code; if it does not, close it)\n`);
    if (existing) err.write(`There, sign with the passkey you registered on another host (${escapeText(existing.name) || 'unnamed'}): nothing new is made.\n`);
    if (begun.proof) err.write(existing ? 'You hold a passkey on this host already: the page asks it to vouch for that one.\n' : 'You hold a passkey already: the page asks it to vouch for the new one.\n');
    return finish(cl, begun, o.name);
  });
  if (o.json) printJson(done);
  else process.stdout.write(`${c.green('registered')} passkey ${done.name} (${done.passkey_id}) for ${done.approver}\n`);
}

const badFile = (file: string, what: string, hint = 'give the file `airlock passkey export ID` printed on the other host, unchanged') =>
  new AirlockError('validation', 'bad_registration', `${escapeText(file === '-' ? 'standard input' : file)}: ${what}`, hint);

/**
 * The exported passkey in `file` (`-`: standard input), at most MAX_EXISTING_BYTES, as JSON of
 * the shape passkey.begin takes as `existing` (the protocol's schema, so the daemon's own
 * refusal is not the first to say what is wrong). validation/bad_registration (exit 5) otherwise.
 */
export async function readExisting(file: string): Promise<PasskeyPublic> {
  const tooLarge = () => badFile(file, `larger than ${MAX_EXISTING_BYTES / 1024} KiB: not an exported passkey`);
  const bytes =
    file === '-'
      ? await readStdin()
      : readBoundedFile(file, MAX_EXISTING_BYTES, {
          unreadable: (code) => badFile(file, `cannot read it (${code})`, 'give the path of a file you can read, or - for standard input'),
          notFile: () => badFile(file, 'not a regular file', 'give the path of the file, or - and the JSON on standard input'),
          tooLarge,
        });
  if (bytes.length > MAX_EXISTING_BYTES) throw tooLarge();
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw badFile(file, `not JSON: ${escapeText((e as Error).message.split('\n')[0] ?? '')}`);
  }
  const parsed = PasskeyPublicSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length ? issue.path.map(String).join('.') : 'the file';
    throw badFile(file, `not an exported passkey {credential_id, public_key, rp_id, name, transports}: ${escapeText(at)}: ${escapeText(issue.message)}`);
  }
  return parsed.data;
}

/** Standard input, stopping once it holds more than MAX_EXISTING_BYTES (refused then). */
async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > MAX_EXISTING_BYTES) break;
  }
  process.stdin.pause();
  return Buffer.concat(chunks);
}

/** The console's address from the policy ([console] url), or its default. */
async function consoleUrl(cl: AirlockClient): Promise<string> {
  try {
    const view = (await cl.callUnchecked('policy.show', {})) as { console?: { url?: unknown } };
    const url = view.console?.url;
    if (typeof url === 'string' && /^https?:\/\//.test(url)) return url.replace(/\/+$/, '');
  } catch {
    // The policy is not readable here: the default address is still the right one for a tunnel.
  }
  return DEFAULT_CONSOLE_URL;
}

/** Polls until the browser part is done, then finishes with the factor the person holds. */
async function finish(cl: AirlockClient, begun: Begun, name: string | undefined): Promise<Registered> {
  const until = Date.now() + WAIT_MS;
  const tty = process.stderr.isTTY;
  let said = 0;
  const send = (code?: string) => cl.callUnchecked('passkey.register', { ...(name ? { name } : {}), ...(code ? { totp_code: code } : {}) }) as Promise<Registered>;
  for (;;) {
    try {
      const r = await withOwnCode(`registering a passkey for ${begun.approver}`, 'run `airlock passkey add` yourself, at your own terminal', send);
      if (tty) process.stderr.write('\r\x1b[K');
      return r;
    } catch (e) {
      if (!(e instanceof AirlockError && e.code === 'registration_not_ready')) throw e;
    }
    const left = until - Date.now();
    if (left <= 0) {
      if (tty) process.stderr.write('\n');
      throw new AirlockError('stale_approval', 'registration_expired', 'the browser part of the registration did not happen within 5 minutes', 'run `airlock passkey add` again and open the new link');
    }
    const secs = Math.ceil(left / 1000);
    const line = `waiting for the browser: ${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')} left (Ctrl-C stops)`;
    // Without a terminal, a line every 30 seconds rather than a log full of them.
    if (tty) process.stderr.write(`\r\x1b[K${line}`);
    else if (Date.now() - said >= 30_000) (process.stderr.write(`${line}\n`), (said = Date.now()));
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
