/**
 * A sink is one place outside the store where signed tree heads go: the local
 * append-only file, a remote syslog collector, a witness, a PostgreSQL table on another
 * server. Each is independent evidence: a host that cuts its log's tail must also reach
 * every sink that already holds a later head, and the remote ones are out of its reach.
 *
 * Sinks see an opaque, already signed head: they never sign, parse or re-encode it, so
 * every copy is the same bytes and verifies the same way.
 */

export interface TreeHead {
  /** Leaves (log entries) the head covers. */
  size: number;
  /** The Merkle root, 64 lower-case hex digits. */
  root: string;
  /** The signed note (C2SP tlog-checkpoint), ending in "\n". */
  note: string;
  /** The one-line form for files and syslog: "airlock-tree-head <base64 of the note>". */
  line: string;
  /**
   * The hash-chain checkpoint line of the same head ("airlock-checkpoint ..."), which
   * `audit verify` reads today; the line sinks write it just before `line`.
   */
  legacy?: string;
}

export interface Sink {
  /** Short and stable (log lines name it): "file", "syslog", "witness <url>", "postgres". */
  readonly name: string;
  /** Resolves once the sink holds the head (or, for a queueing sink, has taken it in); throws when it cannot. */
  publish(head: TreeHead): Promise<void>;
  /** For a queueing sink: resolves when what it took is sent, or after timeoutMs. */
  flush?(timeoutMs: number): Promise<void>;
  /** Lets go of connections and timers; publish after close throws. */
  close(): Promise<void>;
}

/** Text from outside (a server's answer, an error message) made safe for one log line. */
export function printable(text: string, max = 200): string {
  const flat = text.replace(/[^\x20-\x7e]/g, '?');
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}
