/**
 * A notification as an ntfy message (https://ntfy.sh, self-hosted or not): what a phone shows.
 * The policy names a topic URL (`[notify] ntfy`); each notification is one POST to it, its body
 * the lines a person reads, and ntfy's headers for the title, the priority and the link a tap
 * opens (the console's page of the first waiting change: no secret in it). Header values are
 * ASCII only (HTTP headers are): the title is the daemon's own words; host and agent text
 * (summaries, names), already masked and escaped, goes in the UTF-8 body only.
 */
import type { Notification } from './notify.js';

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
