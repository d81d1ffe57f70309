/**
 * A notification as an ntfy message (https://ntfy.sh, self-hosted or not): what a phone shows.
 * The policy names a topic URL (`[notify] ntfy`); each notification is one POST to it, its body
 * the lines a person reads, and ntfy's headers for the title, the priority and the link a tap
 * opens (the console's page of the first waiting change: no secret in it). Header values are
 * ASCII only (HTTP headers are): the title is the daemon's own words; host and agent text
 * (summaries, names), already masked and escaped, goes in the UTF-8 body only.
 */
import { readSecretFile } from '../audit/keys.js';
import type { Notification } from './notify.js';

/** An access token is a line of at most this many bytes (ntfy's are `tk_` and 29 characters). */
const MAX_TOKEN_BYTES = 512;

/**
 * The access token the daemon sends as `Authorization: Bearer`, from `[notify] ntfy_token_file`:
 * a file only the daemon's uid (root) may read, never followed through a link (readSecretFile),
 * so that an agent that reads the policy learns the topic and nothing that writes to it or reads
 * from it. Returns the token, or why it is not used (the message is sent without it, and ntfy's
 * access control refuses it where the topic needs one).
 */
export function readNtfyToken(path: string): { token: string } | { problem: string } {
  let token: string;
  try {
    token = readSecretFile(path, MAX_TOKEN_BYTES).toString('utf8').trim();
  } catch (e) {
    return { problem: (e as Error).message };
  }
  if (!/^[\x21-\x7e]+$/.test(token)) return { problem: `${path} does not hold one token of printable ASCII` };
  return { token };
}

export interface NtfyMessage {
  body: string;
  headers: Record<string, string>;
}

/** ASCII printable only, bounded: what may go in a header. */
const ascii = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);

/** `n` as ntfy shows it; a pending one opens, when tapped, the console page its first change links to. */
export function ntfyMessage(n: Notification): NtfyMessage {
  switch (n.event) {
    case 'pending': {
      const high = n.pending.some((p) => p.risk === 'high');
      const lines = n.pending.map((p) => `${p.risk.toUpperCase()} ${p.action}: ${p.summary} (${p.transaction_id})`);
      if (n.not_listed > 0) lines.push(`and ${n.not_listed} more`);
      const what = n.count === 1 ? (n.pending[0]!.event === 'proposal' ? 'a proposal waits in the inbox' : 'a change waits for approval') : `${n.count} changes wait for approval`;
      return {
        body: `${n.requested_by} asks:\n${lines.join('\n')}`,
        headers: { Title: ascii(`Airlock: ${what}`), Priority: high ? 'high' : 'default', Tags: 'lock', ...(n.pending[0]?.link ? { Click: ascii(n.pending[0].link) } : {}) },
      };
    }
    case 'storage_pressure':
      return { body: `disk space of the state directory: ${n.state}`, headers: { Title: ascii(`Airlock: disk space ${n.state}`), Priority: n.state === 'ok' ? 'default' : 'high', Tags: 'warning' } };
    default:
      // A person's factors changed (reset, enrolled, a passkey registered): they should know, since one nobody remembers is an agent's.
      return { body: `${n.event.replace(/_/g, ' ')}: ${n.approver}, by ${n.by}, at ${n.at}`, headers: { Title: ascii(`Airlock: ${n.event.replace(/_/g, ' ')}`), Priority: 'high', Tags: 'key' } };
  }
}
