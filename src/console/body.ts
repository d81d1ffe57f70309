/**
 * A request body read whole, at most 64 KiB (an assertion or a registration response is a few
 * KiB), and parsed as one JSON object. Anything else is refused before it is relayed.
 */
import type { IncomingMessage } from 'node:http';

export const MAX_BODY = 64 * 1024;

export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json(\s*;|$)/i.test(type)) throw new BodyError(415, 'json_only', 'send the request as application/json');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY) throw new BodyError(413, 'body_too_large', `the body is larger than ${MAX_BODY} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) {
      req.destroy();
      throw new BodyError(413, 'body_too_large', `the body is larger than ${MAX_BODY} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  let v: unknown;
  try {
    v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BodyError(400, 'bad_json', 'the body is not JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new BodyError(400, 'bad_json', 'the body must be a JSON object');
  return v as Record<string, unknown>;
}
