/**
 * The witness's HTTP(S) service: POST /add-checkpoint (C2SP tlog-witness) and the monitors'
 * GET /<hex SHA-256 of origin>/checkpoint. Everything that comes in is bounded: connections,
 * header and request time, body bytes (413 before the body is read when Content-Length says
 * so, and as soon as the bytes read pass the bound when it lies or is absent).
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import { addCheckpoint, type Witness } from './add-checkpoint.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_CONNECTIONS = 256;
const REQUEST_TIMEOUT_MS = 10_000;
const HEADERS_TIMEOUT_MS = 5_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
const IDLE_MS = 5_000;
/** What an oversized request may still send (dropped) before its connection is cut. */
const DISCARD_BYTES = 8 * 1024 * 1024;
const DISCARD_MS = 2_000;

export interface ServerOptions {
  /** PEM certificate chain and key: HTTPS when given. */
  tls?: { cert: Buffer; key: Buffer };
  /** Called with one line per request that was refused or failed, for the operator's log. */
  log?: (line: string) => void;
}

export function createWitnessServer(w: Witness, o: ServerOptions = {}): Server {
  // Monitors name a log by the hex SHA-256 of its origin.
  const byHash = new Map([...w.config.logs.keys()].map((origin) => [createHash('sha256').update(origin, 'utf8').digest('hex'), origin]));
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    handle(w, byHash, req, res, o.log ?? (() => undefined)).catch((e: unknown) => {
      (o.log ?? (() => undefined))(`internal error: ${(e as Error).message}`);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error: nothing was cosigned\n');
      else res.destroy();
    });
  };
  const http = { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, connectionsCheckingInterval: 1000, maxHeaderSize: 16 * 1024 };
  const server = o.tls ? createHttpsServer({ ...http, handshakeTimeout: HEADERS_TIMEOUT_MS, cert: o.tls.cert, key: o.tls.key }, handler) : createHttpServer(http, handler);
  server.maxConnections = MAX_CONNECTIONS;
  server.maxHeadersCount = 64;
  server.maxRequestsPerSocket = 1000;
  // A socket silent for IDLE_MS is closed. Node's own headersTimeout did not cut a connection
  // that sent half a header (measured on Node 20.20), so the witness holds its own deadline:
  // each request's headers must be in within HEADERS_TIMEOUT_MS of the connection or of the
  // previous answer, its body within REQUEST_TIMEOUT_MS (readBody).
  server.setTimeout(IDLE_MS);
  server.on(o.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    socket.once('close', () => clearTimeout(headerDeadlines.get(socket)));
    armHeaderDeadline(socket);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    clearTimeout(headerDeadlines.get(req.socket));
    res.once('finish', () => armHeaderDeadline(req.socket));
  });
  return server;
}

const headerDeadlines = new WeakMap<Socket, NodeJS.Timeout>();
function armHeaderDeadline(socket: Socket): void {
  clearTimeout(headerDeadlines.get(socket));
  const t = setTimeout(() => socket.destroy(), HEADERS_TIMEOUT_MS);
  t.unref();
  headerDeadlines.set(socket, t);
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function handle(w: Witness, byHash: Map<string, string>, req: IncomingMessage, res: ServerResponse, log: (line: string) => void): Promise<void> {
  const url = req.url ?? '';
  const checkpointPath = /^\/([0-9a-f]{64})\/checkpoint$/.exec(url);
  if (req.method === 'GET' && checkpointPath) return void sendCheckpoint(w, byHash.get(checkpointPath[1]!), res);
  if (url !== '/add-checkpoint') return void send(res, 404, 'text/plain; charset=utf-8', 'not found: POST /add-checkpoint\n');
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return void send(res, 405, 'text/plain; charset=utf-8', 'add-checkpoint takes POST\n');
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  const body = declared > MAX_BODY_BYTES ? null : await readBody(req);
  if (body === null) return refuseOversized(req, res);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return void send(res, 400, 'text/plain; charset=utf-8', 'the body is not valid UTF-8\n');
  }
  const a = await addCheckpoint(w, text);
  if (a.status !== 200) log(`add-checkpoint from ${req.socket.remoteAddress}: ${a.status} ${a.body.trim().slice(0, 300)}`);
  send(res, a.status, a.contentType, a.body);
}

/**
 * 413 at once; the rest of the body is read and dropped, up to DISCARD_BYTES within DISCARD_MS,
 * then the connection is cut. Not cut at once: a reset makes the sender's kernel drop the 413
 * unread, and the client would see a broken connection instead of the reason.
 */
function refuseOversized(req: IncomingMessage, res: ServerResponse): void {
  let dropped = 0;
  const socket = req.socket;
  const done = setTimeout(() => socket.destroy(), DISCARD_MS);
  done.unref();
  req.on('data', (c: Buffer) => {
    dropped += c.length;
    if (dropped > DISCARD_BYTES) socket.destroy();
  });
  req.on('end', () => clearTimeout(done));
  socket.once('close', () => clearTimeout(done));
  req.resume();
  send(res, 413, 'text/plain; charset=utf-8', `body over ${MAX_BODY_BYTES} bytes\n`);
}

/** The body, or null when it passes MAX_BODY_BYTES (reading stops there). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    const deadline = setTimeout(() => {
      req.socket.destroy();
      reject(new Error(`the body did not arrive within ${REQUEST_TIMEOUT_MS} ms`));
    }, REQUEST_TIMEOUT_MS);
    deadline.unref();
    req.once('close', () => clearTimeout(deadline));
    const onData = (c: Buffer) => {
      n += c.length;
      if (n > MAX_BODY_BYTES) {
        req.off('data', onData);
        resolve(null);
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendCheckpoint(w: Witness, origin: string | undefined, res: ServerResponse): void {
  const s = origin === undefined ? undefined : w.state.get(origin);
  if (s) send(res, 200, 'text/plain; charset=utf-8', s.note);
  else send(res, 404, 'text/plain; charset=utf-8', 'no checkpoint cosigned for that log\n');
}
