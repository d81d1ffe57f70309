/**
 * The one page `airlock fleet approve` serves on 127.0.0.1 for the passkey assertion: a browser
 * makes passkeys only for a page of an origin the hosts' [passkeys] origins list (by default
 * http://localhost:7443), and the terminal cannot. What keeps it small and safe
 * (docs/security.md, "The fleet approval page"):
 * - it listens on a loopback address only, answers only requests whose Host is localhost or
 *   127.0.0.1 at its port (a DNS-rebinding page of another site is not served), and every POST
 *   must come from the origin the hosts accept;
 * - a random one-time token, in the URL's fragment (never sent to any server, so no log or
 *   Referer carries it), must accompany the plan's request and the assertion;
 * - the headers of the console (strict CSP: its own script only, no inline code, no framing,
 *   nothing cached), its files only, each host's text set with textContent;
 * - at most one assertion accepted, a body of at most MAX_BODY bytes, at most MAX_PAGE_CONNECTIONS
 *   connections, and it closes when the assertion was answered or the deadline passed.
 * The page decides nothing: each host's daemon verifies the assertion for its own entry.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ASSET_DIR } from '../console/assets.js';
import { BodyError, readJson } from '../console/body.js';
import { secureHeaders, sendError, sendJson } from '../console/headers.js';
import { AirlockError } from '../protocol/errors.js';

/** A request to the page is whole within this: the person's browser needs far less, a slow client holds nothing longer. */
const PAGE_REQUEST_MS = 10_000;
/** One person's browser needs a few (the page, its script, the plan, the post); more is someone else. */
export const MAX_PAGE_CONNECTIONS = 16;

/** What the page shows of each host: the terminal shows the whole preview, the page names what is signed. */
export interface PageHost {
  host: string;
  tx: string;
  risk: string;
  match_code: string;
  summary: string;
}

export interface PagePlan {
  challenge: string;
  rp_id: string;
  hosts: PageHost[];
}

/** What the page shows once the hosts answered: one line per host. */
export interface PageAnswer {
  approved: number;
  hosts: Array<{ host: string; line: string }>;
}

export interface FleetPage {
  /** The URL to open, the token in its fragment. */
  url: string;
  /** The assertion the page posted, once (rejects when `deadline` passes first). */
  assertion: Promise<Record<string, unknown>>;
  /** Answers the page's POST with each host's answer (resolves once it is sent). */
  answer(a: PageAnswer): Promise<void>;
  close(): Promise<void>;
}

const FILES: Record<string, [file: string, type: string]> = {
  '/': ['fleet.html', 'text/html; charset=utf-8'],
  '/fleet.js': ['fleet.js', 'text/javascript; charset=utf-8'],
  '/webauthn.js': ['webauthn.js', 'text/javascript; charset=utf-8'],
};

/** Serves the page on `listen` until it is closed or `deadline` (ms) passes; the origin is http://localhost:PORT. */
export async function serveFleetPage(listen: { host: string; port: number }, plan: PagePlan, deadline: number): Promise<FleetPage> {
  const files = new Map(Object.entries(FILES).map(([path, [file, type]]) => [path, { type, body: readFileSync(join(ASSET_DIR, file)) }]));
  const token = randomBytes(32).toString('base64url');
  const origin = `http://localhost:${listen.port}`;
  const hostsAccepted = new Set([`localhost:${listen.port}`, `127.0.0.1:${listen.port}`]);
  let taken = false;
  let posted: ServerResponse | null = null;
  let give!: (a: Record<string, unknown>) => void;
  let refuse!: (e: Error) => void;
  const assertion = new Promise<Record<string, unknown>>((resolve, reject) => ((give = resolve), (refuse = reject)));

  const tokenOk = (t: unknown) => typeof t === 'string' && t.length === token.length && timingSafeEqual(Buffer.from(t), Buffer.from(token));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!hostsAccepted.has(req.headers.host ?? '')) return sendError(res, 421, 'wrong_host', `this page answers only at ${origin}`);
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && files.has(path)) {
      const f = files.get(path)!;
      secureHeaders(res);
      res.writeHead(200, { 'Content-Type': f.type, 'Content-Length': f.body.length });
      return void res.end(f.body);
    }
    if (req.method === 'GET' && path === '/plan') {
      if (!tokenOk(req.headers['x-airlock-token'])) return sendError(res, 403, 'bad_token', 'this is not the link the terminal printed', 'open the link `airlock fleet approve` printed, whole');
      return sendJson(res, 200, plan);
    }
    if (req.method === 'POST' && path === '/assertion') {
      if (req.headers.origin !== origin) return sendError(res, 403, 'wrong_origin', `a request from ${String(req.headers.origin)} is not this page's`);
      const body = await readJson(req);
      if (!tokenOk(body.token)) return sendError(res, 403, 'bad_token', 'this is not the link the terminal printed', 'open the link `airlock fleet approve` printed, whole');
      if (taken) return sendError(res, 409, 'already_used', 'this page took an assertion already', 'run `airlock fleet approve` again for a new one');
      const a = body.assertion;
      if (a === null || typeof a !== 'object' || Array.isArray(a)) return sendError(res, 400, 'bad_assertion', 'the body carries no assertion');
      taken = true;
      posted = res;
      return give(a as Record<string, unknown>);
    }
    sendError(res, 404, 'not_found', 'nothing here');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (e instanceof BodyError) sendError(res, e.status, e.code, e.message);
      else sendError(res, 500, 'internal', 'the terminal could not answer');
    });
  });
  server.maxConnections = MAX_PAGE_CONNECTIONS;
  // A request must be whole within seconds: slow connections cannot hold the page from the person.
  server.headersTimeout = PAGE_REQUEST_MS;
  server.requestTimeout = PAGE_REQUEST_MS;
  const listenOn = (srv: Server, host: string) =>
    new Promise<void>((resolve, reject) => {
      srv.once('error', (e: NodeJS.ErrnoException) => reject(Object.assign(new AirlockError('conflict', 'listen_failed', `cannot listen on ${host}:${listen.port} (${e.code ?? e.message})`, 'choose another port with --listen 127.0.0.1:PORT, one of the hosts\' [passkeys] origins'), { errno: e.code })));
      srv.listen(listen.port, host, resolve);
    });
  await listenOn(server, listen.host);
  // The browser's "localhost" may be ::1 before 127.0.0.1: whoever held [::1]:PORT would serve the
  // person a page of its own at the same origin and have them sign another list. So the page holds
  // ::1 at that port too (answering as on 127.0.0.1), and refuses to go on when someone else does.
  const v6 = createServer((req, res) => server.emit('request', req, res));
  v6.maxConnections = MAX_PAGE_CONNECTIONS;
  v6.headersTimeout = PAGE_REQUEST_MS;
  v6.requestTimeout = PAGE_REQUEST_MS;
  try {
    await listenOn(v6, '::1');
  } catch (e) {
    const code = (e as { errno?: string }).errno;
    // No IPv6 on this loopback: nobody can hold ::1 either.
    if (code !== 'EADDRNOTAVAIL' && code !== 'EAFNOSUPPORT') {
      server.close();
      throw e;
    }
  }
  const timer = setTimeout(() => refuse(new AirlockError('stale_approval', 'preview_expired', 'no passkey assertion came before the first host\'s approval deadline', 'preview again on the hosts and run `airlock fleet approve` with the new transactions')), Math.max(0, deadline - Date.now()));
  timer.unref();
  return {
    url: `${origin}/#${token}`,
    assertion,
    answer: (a) =>
      new Promise<void>((resolve) => {
        if (!posted) return resolve();
        posted.once('finish', resolve).once('close', resolve);
        sendJson(posted, 200, a);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        clearTimeout(timer);
        v6.close();
        v6.closeAllConnections();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
