/**
 * A notification as an ntfy message (https://ntfy.sh, self-hosted or not): what a phone shows.
 * The policy names a topic URL (`[notify] ntfy`); each notification is one POST to it, its body
 * the lines a person reads, and ntfy's headers for the title, the priority and the link a tap
 * opens (the console's page of the first waiting change: no secret in it). Header values are
 * ASCII only (HTTP headers are): the title is the daemon's own words; host and agent text
 * (summaries, names), already masked and escaped, goes in the UTF-8 body only.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Notification } from './notify.js';

/** An access token is a line of at most this many bytes (ntfy's are `tk_` and 29 characters). */
const MAX_TOKEN_BYTES = 512;

/**
 * The access token the daemon sends as `Authorization: Bearer`, from `[notify] ntfy_token_file`:
 * a file only root may read (owned by uid 0, no group or other bits), never followed through a
 * link, so that an agent that reads the policy learns the topic and nothing that writes to it or
 * reads from it. Returns the token, or why it is not used (the message is sent without it, and
 * ntfy's access control refuses it where the topic needs one).
 */
export function readNtfyToken(path: string): { token: string } | { problem: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    return { problem: `cannot open ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: `${path} is not a regular file` };
    if (st.uid !== 0 || (st.mode & 0o077) !== 0) return { problem: `${path} must be owned by root with mode 0600 (it is uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)})` };
    const buf = Buffer.alloc(MAX_TOKEN_BYTES + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const token = buf.subarray(0, n).toString('utf8').trim();
    if (n > MAX_TOKEN_BYTES || !/^[\x21-\x7e]+$/.test(token)) return { problem: `${path} does not hold one token of printable ASCII (at most ${MAX_TOKEN_BYTES} bytes)` };
    return { token };
  } finally {
    closeSync(fd);
  }
}

export interface NtfyMessage {
  body: string;
  headers: Record<string, string>;
}

/** ASCII printable only, bounded: what may go in a header. */
const ascii = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);

export function ntfyMessage(n: Notification, consoleUrl: string): NtfyMessage {
  switch (n.event) {
    case 'pending': {
      const high = n.pending.some((p) => p.risk === 'high');
      const lines = n.pending.map((p) => `${p.risk.toUpperCase()} ${p.action}: ${p.summary} (${p.transaction_id})`);
      if (n.not_listed > 0) lines.push(`and ${n.not_listed} more`);
      const what = n.count === 1 ? (n.pending[0]!.event === 'proposal' ? 'a proposal waits in the inbox' : 'a change waits for approval') : `${n.count} changes wait for approval`;
      return {
        body: `${n.requested_by} asks:\n${lines.join('\n')}`,
        headers: { Title: ascii(`Airlock: ${what}`), Priority: high ? 'high' : 'default', Tags: 'lock', Click: ascii(n.pending[0]?.link ?? consoleUrl) },
      };
    }
    case 'storage_pressure':
      return { body: `disk space of the state directory: ${n.state}`, headers: { Title: ascii(`Airlock: disk space ${n.state}`), Priority: n.state === 'ok' ? 'default' : 'high', Tags: 'warning' } };
    default:
      // A person's factors changed (reset, enrolled, a passkey registered): they should know, since one nobody remembers is an agent's.
      return { body: `${n.event.replace(/_/g, ' ')}: ${n.approver}, by ${n.by}, at ${n.at}`, headers: { Title: ascii(`Airlock: ${n.event.replace(/_/g, ' ')}`), Priority: 'high', Tags: 'key' } };
  }
}
