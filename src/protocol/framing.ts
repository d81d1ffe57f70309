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

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  if (body.length > MAX_FRAME) throw new AirlockError('validation', 'frame_too_large', `message of ${body.length} bytes exceeds ${MAX_FRAME}`);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
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

/** Accumulates stream chunks and yields whole frame bodies. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  constructor(private readonly maxFrame = MAX_FRAME) {}

  /** Returns complete frame bodies; throws on an oversized or empty frame header. */
  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Buffer[] = [];
    while (this.buf.length >= 4) {
      const len = this.buf.readUInt32BE(0);
      if (len === 0) throw new AirlockError('validation', 'empty_frame', 'a frame must carry at least one byte');
      if (len > this.maxFrame) throw new AirlockError('validation', 'frame_too_large', `frame length ${len} is over the ${this.maxFrame}-byte limit`);
      if (this.buf.length < 4 + len) break;
      out.push(this.buf.subarray(4, 4 + len));
      this.buf = this.buf.subarray(4 + len);
    }
    return out;
  }

  get pending(): number {
    return this.buf.length;
  }
}
