/**
 * A file a person (or an agent) names on the command line, read with a bound: at most `max` + 1
 * bytes of a regular file, so that a larger one is refused without reading the rest, and a
 * device or a FIFO is never opened for long. Each caller says how it refuses, in its own words.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export interface BoundedFileRefusals {
  /** The file cannot be opened (its errno code, such as ENOENT). */
  unreadable: (code: string) => Error;
  notFile: () => Error;
  tooLarge: () => Error;
}

export function readBoundedFile(path: string, max: number, refuse: BoundedFileRefusals): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted at the path opens at once (then refused as no regular file) instead of waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    throw refuse.unreadable((e as NodeJS.ErrnoException).code ?? 'error');
  }
  try {
    if (!fstatSync(fd).isFile()) throw refuse.notFile();
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    if (n > max) throw refuse.tooLarge();
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
