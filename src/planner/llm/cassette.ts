/**
 * Record and replay of provider sessions, so a session recorded once from a real model
 * replays in CI with no network and no key. A cassette is a local node:http server the
 * SDK points to by base URL (both SDKs take one):
 *
 * - record: each request is forwarded to the real base URL, and the exchange written to
 *   the cassette file (mode 0600) as it happens. Request headers are never written (the
 *   key travels in them), and nothing the request's auth headers held may appear in the
 *   file: such text is cut out before it is written;
 * - replay: each request is answered from the file, strictly: its key (method, path and
 *   the canonical JSON of its body less VOLATILE fields, hashed) must match the next
 *   unused recorded exchange with that key, or the server answers 400 naming the key, and
 *   lists it in `misses`. The same request twice (a retry after a 429) replays the
 *   recorded answers in order.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFileSafely } from '../../protocol/safe-write.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalize } from '../../protocol/canonical.js';

export const CASSETTE_FORMAT = 'airlock-llm-cassette/1';
/** Body fields that differ between two runs of the same session (none of Airlock's own requests set them). */
export const VOLATILE = ['metadata', 'user', 'stream_options'] as const;
/** Response headers worth keeping: what the SDKs and the retry rules read. */
const KEPT_HEADERS = ['content-type', 'retry-after', 'retry-after-ms'] as const;
/** Request headers that carry a key: forwarded when recording, never written. */
const AUTH_HEADERS = ['authorization', 'x-api-key', 'api-key', 'proxy-authorization'] as const;
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
export const MAX_INTERACTIONS = 1000;

export interface Interaction {
  key: string;
  request: { method: string; path: string; body: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

export interface CassetteFile {
  format: typeof CASSETTE_FORMAT;
  interactions: Interaction[];
}

export interface Cassette {
  /** The server's origin and the upstream's path (`http://127.0.0.1:PORT/v1`): what the SDK's baseURL is set to. */
  baseURL: string;
  /** Keys of replayed requests that matched nothing recorded. */
  misses: string[];
  close(): Promise<void>;
}

/** A request's identity: its method, path, and canonical body less the volatile fields. */
export function requestKey(method: string, path: string, body: unknown): string {
  const stable = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.fromEntries(Object.entries(body).filter(([k]) => !(VOLATILE as readonly string[]).includes(k))) : body;
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonicalize(stable ?? null)}`).digest('hex');
  return `${method.toUpperCase()} ${path} #${hash.slice(0, 16)}`;
}

export function readCassette(file: string): CassetteFile {
  const c = JSON.parse(readFileSync(file, 'utf8')) as CassetteFile;
  if (c.format !== CASSETTE_FORMAT || !Array.isArray(c.interactions)) throw new Error(`${file} is not a cassette (format ${CASSETTE_FORMAT})`);
  return c;
}

/** Serves `file` strictly. `basePath` is the path the SDK's base URL holds (`/v1` for OpenAI, '' for Anthropic). */
export async function replayCassette(file: string, basePath = ''): Promise<Cassette> {
  const recorded = readCassette(file).interactions;
  const used = new Set<number>();
  const misses: string[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(
      (raw) => {
        const key = requestKey(req.method ?? 'GET', req.url ?? '/', parseJson(raw));
        const i = recorded.findIndex((x, n) => !used.has(n) && x.key === key);
        if (i < 0) {
          if (misses.length < MAX_INTERACTIONS) misses.push(key);
          return send(res, 400, { 'content-type': 'application/json' }, { type: 'error', error: { type: 'cassette_miss', message: `cassette miss: nothing recorded for ${key}` } });
        }
        used.add(i);
        const r = recorded[i]!.response;
        send(res, r.status, r.headers, r.body);
      },
      () => send(res, 413, { 'content-type': 'application/json' }, { error: { message: 'request too large for the cassette' } }),
    );
  });
  return { baseURL: await listen(server, basePath), misses, close: () => closeServer(server) };
}

/** Forwards to `upstream` (a base URL: `https://api.openai.com/v1`) and writes every exchange to `file`. */
export async function recordCassette(file: string, upstream: string): Promise<Cassette> {
  const up = new URL(upstream);
  const cassette: CassetteFile = { format: CASSETTE_FORMAT, interactions: [] };
  const secrets = new Set<string>();
  const server = createServer((req, res) => {
    void forward(req, up.origin, secrets).then(
      (x) => {
        if (cassette.interactions.length < MAX_INTERACTIONS) {
          cassette.interactions.push(x);
          save(file, cassette, secrets);
        }
        send(res, x.response.status, x.response.headers, x.response.body);
      },
      (e: Error) => send(res, 502, { 'content-type': 'application/json' }, { error: { message: `cassette: the upstream did not answer (${e.message})` } }),
    );
  });
  save(file, cassette, secrets);
  return { baseURL: await listen(server, up.pathname.replace(/\/$/, '')), misses: [], close: () => closeServer(server) };
}

async function forward(req: IncomingMessage, origin: string, secrets: Set<string>): Promise<Interaction> {
  const raw = await readBody(req);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || ['host', 'connection', 'content-length', 'accept-encoding'].includes(k)) continue;
    const value = Array.isArray(v) ? v.join(', ') : v;
    if ((AUTH_HEADERS as readonly string[]).includes(k)) for (const part of [value, value.replace(/^\s*bearer\s+/i, '')]) if (part.length >= 8) secrets.add(part);
    headers.set(k, value);
  }
  const method = req.method ?? 'GET';
  const path = req.url ?? '/';
  const r = await fetch(origin + path, { method, headers, body: raw.length > 0 ? new Uint8Array(raw) : undefined });
  const text = await r.text();
  const kept: Record<string, string> = {};
  for (const h of KEPT_HEADERS) {
    const v = r.headers.get(h);
    if (v !== null) kept[h] = v;
  }
  const body = parseJson(raw);
  return { key: requestKey(method, path, body), request: { method, path, body }, response: { status: r.status, headers: kept, body: parseJson(Buffer.from(text)) ?? text } };
}

/** Written whole each time (a crash keeps what was recorded), 0600, with any auth header text cut out. */
function save(file: string, c: CassetteFile, secrets: Set<string>): void {
  let text = JSON.stringify(c, null, 2) + '\n';
  for (const s of secrets) text = text.split(s).join('***');
  writeFileSafely(file, text, { mode: 0o600 });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        reject(new Error('too large'));
      } else parts.push(b);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function listen(server: Server, basePath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}${basePath}`));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
