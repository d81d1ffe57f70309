/**
 * The daemon's stderr (the journal, under systemd), written once per turn of the event loop:
 * every committed log entry has its line (journal.ts), and a lifecycle commits four times, so
 * writing each line as it comes was a system call (and a wake-up of the reader) per line. The
 * lines of one turn go out together at its end, in order; nothing waits longer than that turn,
 * at most FLUSH_CHARS are held, and what is held when the process exits (a fatal error
 * included) is written then (stderr is synchronous for files, pipes and terminals on Linux).
 */

/** Held at most: past it the lines go out at once, whatever the turn. */
export const FLUSH_CHARS = 64 * 1024;

const PREFIX = 'airlock-daemon: ';
let held = '';

function flush(): void {
  const text = held;
  held = '';
  if (text !== '') process.stderr.write(text);
}

let hooked = false;

/** One line of the daemon's own log, to stderr with the daemon's prefix, coalesced with the others of this turn. */
export function daemonLogLine(line: string): void {
  if (!hooked) {
    hooked = true;
    process.on('exit', flush);
  }
  if (held === '') setImmediate(flush);
  held += `${PREFIX}${line}\n`;
  if (held.length >= FLUSH_CHARS) flush();
}
