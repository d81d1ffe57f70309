/**
 * The console's HTTP server: the page's static files and the JSON API (api.ts), with the
 * security headers on every response (headers.ts). Bounded like everything else: connections,
 * header and request time, body size (body.ts), relays at once (relay.ts), sessions
 * (sessions.ts). Nothing it serves comes from the file system after start.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleApi, type ApiContext } from './api.js';
import { assetFor, loadAssets, type Asset } from './assets.js';
import { sendError, secureHeaders } from './headers.js';
import { Relay } from './relay.js';
import { Sessions } from './sessions.js';

export interface ConsoleOptions {
  host: string;
  port: number;
  /** The origin the page is served at, exactly as the browser sees it (http://localhost:7443, https://airlock.example.org). */
  origin: string;
  /** The daemon's socket. */
  socket: string;
  assetDir?: string;
  maxSessions?: number;
  maxRelays?: number;
}

const MAX_CONNECTIONS = 128;

export function consoleServer(o: ConsoleOptions): Server {
  const assets = loadAssets(o.assetDir);
  const ctx: ApiContext = { origin: o.origin, secure: o.origin.startsWith('https:'), sessions: new Sessions(o.maxSessions ?? 256), relay: new Relay(o.socket, o.maxRelays ?? 16) };
  const server = createServer((req, res) => {
    handle(ctx, assets, req, res).catch((e) => {
      process.stderr.write(`airlock console: ${(e as Error).stack ?? e}\n`);
      if (!res.headersSent) sendError(res, 500, 'console_error', 'the console failed on this request');
      else res.destroy();
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 64;
  return server;
}

async function handle(ctx: ApiContext, assets: Map<string, Asset>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  if (url.length > 2048) return sendError(res, 414, 'uri_too_long', 'the URL is too long');
  const path = url.split('?')[0]!;
  if (path.startsWith('/api/')) return handleApi(ctx, req, res, path);
  const asset = assetFor(assets, path);
  if (!asset) return sendError(res, 404, 'not_found', `nothing at ${path}`, 'open the console at /');
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'method_not_allowed', 'the pages are read with GET');
  secureHeaders(res);
  res.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': asset.body.length });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}
