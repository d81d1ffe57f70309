/**
 * Wire framing: each message is a 4-byte big-endian length followed by that many
 * bytes of UTF-8 JSON. Length 0 and lengths above MAX_FRAME are protocol errors.
 */
import { TextDecoder } from 'node:util';
import { jsonDepthExceeds } from './canonical.js';
import { AirlockError } from './errors.js';

export const MAX_FRAME = 1024 * 1024;
export const MAX_MESSAGE_DEPTH = 32;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** One buffer, header and body, encoded in place: every reply of the daemon passes here. */
export function encodeFrame(message: unknown): Buffer {
  const text = JSON.stringify(message);
  const length = Buffer.byteLength(text, 'utf8');
  if (length > MAX_FRAME) throw new AirlockError('validation', 'frame_too_large', `message of ${length} bytes exceeds ${MAX_FRAME}`);
  const frame = Buffer.allocUnsafe(4 + length);
  frame.writeUInt32BE(length, 0);
  frame.write(text, 4, 'utf8');
  return frame;
}

/** Parses one frame body; a bad body is a typed validation error. */
export function decodeBody(body: Buffer): unknown {
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    throw new AirlockError('validation', 'bad_utf8', 'frame is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const deep = e instanceof RangeError;
    throw new AirlockError('validation', deep ? 'too_deep' : 'bad_json', deep ? 'frame nests too deeply' : 'frame is not valid JSON');
  }
  if (jsonDepthExceeds(value, MAX_MESSAGE_DEPTH)) {
    throw new AirlockError('validation', 'too_deep', `message nests deeper than ${MAX_MESSAGE_DEPTH} levels`);
  }
  return value;
}

/**
 * Accumulates stream chunks and yields whole frame bodies. Chunks are kept as a list
 * and joined once, when a frame is complete, so a frame that arrives in many small
 * chunks costs work in proportion to its size (copying the whole buffer on every chunk
 * would cost its square). `maxFrame` is checked when a header is read, so the daemon
 * can hold the hello to a smaller limit and raise it afterwards.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  /** Index of the first chunk not yet taken. */
  private head = 0;
  private size = 0;
  /** Body length of the frame whose header was read, or -1 before its header. */
  private need = -1;
  constructor(public maxFrame = MAX_FRAME) {}

  /** Adds bytes; frames are taken with next(). */
  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /**
   * Where the first frame held stands: nothing held, begun but incomplete, or ready for
   * next(). Reads and checks its header as soon as the header is whole (so a bad length
   * is refused before any of its body is awaited); throws on an oversized or empty one.
   */
  state(): 'empty' | 'partial' | 'ready' {
    if (this.need < 0) {
      if (this.size < 4) return this.size === 0 ? 'empty' : 'partial';
      const len = this.take(4).readUInt32BE(0);
      if (len === 0) throw new AirlockError('validation', 'empty_frame', 'a frame must carry at least one byte');
      if (len > this.maxFrame) throw new AirlockError('validation', 'frame_too_large', `frame length ${len} is over the ${this.maxFrame}-byte limit`);
      this.need = len;
    }
    return this.size >= this.need ? 'ready' : 'partial';
  }

  /** The next complete frame body, or null until more bytes come; throws as state() does. */
  next(): Buffer | null {
    if (this.state() !== 'ready') return null;
    const body = this.take(this.need);
    this.need = -1;
    return body;
  }

  /** Appends the chunk and returns every frame body now complete. */
  push(chunk: Buffer): Buffer[] {
    this.append(chunk);
    const out: Buffer[] = [];
    for (let body = this.next(); body !== null; body = this.next()) out.push(body);
    return out;
  }

  /** Every byte held and not yet taken as a frame, in one buffer (what follows a greeting). */
  drain(): Buffer {
    const rest = this.size === 0 ? Buffer.alloc(0) : this.take(this.size);
    this.need = -1;
    return rest;
  }

  /** Bytes held that no frame taken so far covered. */
  get pending(): number {
    return this.size;
  }

  /** Removes the first n bytes (n <= size): a view when they lie in one chunk, else one copy. */
  private take(n: number): Buffer {
    this.size -= n;
    const first = this.chunks[this.head]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.head++;
      else this.chunks[this.head] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      for (let at = 0; at < n; ) {
        const c = this.chunks[this.head]!;
        const k = Math.min(c.length, n - at);
        c.copy(out, at, 0, k);
        at += k;
        if (k === c.length) this.head++;
        else this.chunks[this.head] = c.subarray(k);
      }
    }
    // Taken chunks are dropped in one go, not shifted off one by one (each shift costs the list's length).
    if (this.head === this.chunks.length) {
      this.chunks.length = 0;
      this.head = 0;
    } else if (this.head >= 1024) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
    return out;
  }
}

/**
 * The first frame of a byte stream that carries other bytes after it (the relay's and the
 * proxy's greetings): at most `max` bytes buffered, within `timeoutMs`; the bytes that came
 * after it are handed back unread. The stream is paused again before this resolves, so nothing
 * is lost between the greeting and the pipe that follows.
 */
export function readFirstFrame(stream: NodeJS.ReadableStream & { pause(): unknown; resume(): unknown }, max: number, timeoutMs: number): Promise<{ message: unknown; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const reader = new FrameReader(max);
    const done = (err: Error | null, value?: { message: unknown; rest: Buffer }) => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.pause();
      if (err) reject(err);
      else resolve(value!);
    };
    const onData = (chunk: Buffer) => {
      try {
        reader.append(chunk);
        const body = reader.next();
        if (body === null) return;
        done(null, { message: decodeBody(body), rest: reader.drain() });
      } catch (e) {
        done(e as Error);
      }
    };
    const onEnd = () => done(new AirlockError('transient', 'connection_closed', 'the other side closed the connection before its first message'));
    const onError = (e: Error) => done(e);
    const timer = setTimeout(() => done(new AirlockError('transient', 'timeout', `no first message within ${timeoutMs / 1000} s`)), timeoutMs);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.resume();
  });
}
