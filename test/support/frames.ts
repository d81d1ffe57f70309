/** Raw frames for tests that speak the wire protocol by hand: a 4-byte big-endian length, then the body. */
import { PROTOCOL } from '../../src/protocol/messages.js';

export const frame = (body: Buffer | string) => {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const h = Buffer.alloc(4);
  h.writeUInt32BE(b.length, 0);
  return Buffer.concat([h, b]);
};
export const hello = frame(JSON.stringify({ type: 'hello', protocol: PROTOCOL }));
