/**
 * RFC 5424 syslog messages carrying tree heads, framed for a stream by RFC 6587 octet
 * counting (the framing RFC 5425 requires over TLS, and the one that cannot be confused
 * by the message's own bytes):
 *
 *   <37>1 2026-03-01T12:00:00.000Z web1 airlock 4242 tree-head - airlock-tree-head AbC...
 *
 * PRI 37 = facility auth (4) * 8 + severity notice (5); no structured data; the MSG is
 * the one-line tree head, plain ASCII, so no BOM and nothing a relay re-encodes.
 */
const PRI = 4 * 8 + 5;
export const APP_NAME = 'airlock';
export const MSGID = 'tree-head';

/** RFC 5424 HOSTNAME/PROCID: 1 to `max` printable US-ASCII characters (33..126), else the NILVALUE "-". */
function field(text: string, max: number): string {
  return /^[\x21-\x7e]+$/.test(text) && text.length <= max ? text : '-';
}

export function syslogMessage(o: { time: Date; hostname: string; procId: number | string; msg: string }): string {
  if (!/^[\x20-\x7e]+$/.test(o.msg)) throw new RangeError('a tree-head syslog message is printable ASCII');
  return `<${PRI}>1 ${o.time.toISOString()} ${field(o.hostname, 255)} ${APP_NAME} ${field(String(o.procId), 128)} ${MSGID} - ${o.msg}`;
}

/** RFC 6587 section 3.4.1: "MSG-LEN SP SYSLOG-MSG", the length in octets. */
export function octetCounted(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}
