/**
 * The console's JSON API under /api/: each route is one relay to the daemon, as the signed-in
 * person (console.call with their daemon session), or a step of sign-in or of a passkey
 * registration. The console checks only what keeps a browser session its own (cookie, Origin,
 * CSRF token, sizes); who may see or approve what is the daemon's to say.
 *
 *   GET  /api/me                          {signed_in, approver?, user?, expires_at?, csrf}
 *   POST /api/sign-in/options             {challenge_id, options}
 *   POST /api/sign-in {challenge_id, assertion}
 *   POST /api/sign-out
 *   GET  /api/inbox                       what waits for approval (history, Previewed, not expired)
 *   GET  /api/tx/ID                       the preview as the CLI renders it, the match code
 *   GET  /api/tx/ID/approval-options[?session_minutes=N]   passkey.approval_options
 *   POST /api/tx/ID/approve {preview_digest, assertion, session_minutes?}
 *   GET  /api/sessions                    session.list: the session grants in force
 *   POST /api/sessions/ID/revoke          session.revoke
 *   POST /api/tx/ID/deny {reason}
 *   GET  /api/grants                      the grants for configuration edits (ListConfigGrants), the checkers
 *   POST /api/grants {name, account, folder, checker, follow_up?, unit?, for}   requests GrantConfigEdits
 *   POST /api/grants/NAME/revoke          requests RevokeConfigGrant
 *   POST /api/tx/ID/run                   runs the person's own approved request (one the console may request)
 *   GET  /api/registration/ID             the options of a registration begun at a terminal
 *   POST /api/registration/ID {response | existing_assertion, assertion?}
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CHECKERS } from '../catalogue/lib/config-checkers.js';
import { GRANT_NAME, grantsListed } from '../catalogue/families/files/grant-record.js';
import { expiresAt } from '../client/grant-expiry.js';
import { AirlockError } from '../protocol/errors.js';
import type { PreviewEnvelope, ResultEnvelope } from '../protocol/messages.js';
import { isCompactedPreview } from '../protocol/compacted.js';
import { SESSION_GRANT_ID } from '../protocol/wire/session.js';
import type { TransactionDetail } from '../protocol/wire/transaction.js';
import { BodyError, readJson } from './body.js';
import { clearCookie, sessionCookie, setCookie } from './cookies.js';
import { isSessionGone, statusOf } from './errors.js';
import { forgedReason } from './guard.js';
import { sendError, sendJson } from './headers.js';
import { transactionPage } from './preview-view.js';
import type { Relay } from './relay.js';
import type { BrowserSession, Sessions } from './sessions.js';

export interface ApiContext {
  origin: string;
  secure: boolean;
  sessions: Sessions;
  relay: Relay;
}

const TX = /^tx_[0-9a-f]{24}$/;
/** The waiting list's length: the newest first; older ones are still reached by their link. */
const INBOX_LIMIT = 100;
/** The daemon's opaque ids (registration ids among them): base64url, 16 to 64 characters. */
const REGISTRATION = /^[A-Za-z0-9_-]{16,64}$/;
/** How long a grant made at the console lasts: the page's choices (the daemon refuses over 30 days). */
const GRANT_LENGTHS = ['1h', '8h', '1d', '7d', '30d'] as const;

type Route = { method: 'GET' | 'POST'; path: RegExp; signedIn: boolean; run: (c: Call) => Promise<unknown> };
interface Call {
  ctx: ApiContext;
  req: IncomingMessage;
  res: ServerResponse;
  session: BrowserSession | null;
  match: RegExpExecArray;
  body: Record<string, unknown>;
}

/** console.call as the signed-in person. */
const asPerson = (c: Call, method: string, params: Record<string, unknown>) => c.ctx.relay.call('console.call', { session: c.session!.daemon!.token, method, params });
const optionalString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/**
 * A request made at the console: previewed as the person (the daemon relays only the actions that
 * declare requestedAtConsole). The page then opens the transaction, where the person approves it
 * with their passkey as any other, and runs it (POST /api/tx/ID/run).
 */
async function requestHere(c: Call, action_name: string, params: Record<string, unknown>): Promise<{ transaction_id: string; no_change: boolean }> {
  const p = (await asPerson(c, 'preview', { action_name, params })) as PreviewEnvelope;
  return { transaction_id: p.transaction_id, no_change: p.no_change === true };
}

/** The grant form's fields as GrantConfigEdits takes them; a field of the wrong type goes as it came, for the daemon to refuse. */
function grantFromForm(b: Record<string, unknown>): Record<string, unknown> {
  const length = GRANT_LENGTHS.find((l) => l === b.for);
  if (!length) throw new AirlockError('validation', 'bad_duration', `a grant made here lasts ${GRANT_LENGTHS.join(', ')}`, 'choose one of the lengths the form offers; `airlock grant --until` sets any time up to 30 days');
  const unit = optionalString(b.unit)?.trim();
  const followUp = b.follow_up === 'restart' ? 'restart' : 'reload';
  return { name: b.name, account: b.account, folder: b.folder, checker: b.checker, ...(unit ? { unit, follow_up: followUp } : {}), expires_at: expiresAt({ for: length }) };
}

/** A session's length as the page sent it (a query's digits are a number); anything else goes as it came, for the daemon to refuse. */
const sessionMinutes = (v: unknown): { session_minutes?: unknown } => (v === undefined || v === null || v === '' ? {} : { session_minutes: typeof v === 'string' && /^\d{1,4}$/.test(v) ? Number(v) : v });

const ROUTES: Route[] = [
  {
    method: 'POST',
    path: /^\/api\/sign-in\/options$/,
    signedIn: false,
    // Discoverable credentials: the authenticator offers the person's own passkeys, and the daemon finds whose signed.
    run: (c) => c.ctx.relay.call('console.sign_in_options', {}),
  },
  {
    method: 'POST',
    path: /^\/api\/sign-in$/,
    signedIn: false,
    run: async (c) => {
      const r = (await c.ctx.relay.call('console.sign_in', { challenge_id: c.body.challenge_id, assertion: c.body.assertion })) as { session: string; approver: string; user: string; expires_at: string };
      const s = c.ctx.sessions.signIn(c.session?.id ?? null, { token: r.session, approver: r.approver, user: r.user, expiresAt: Date.parse(r.expires_at) });
      c.res.setHeader('Set-Cookie', setCookie(s.id, c.ctx.sessions.maxAge(s), c.ctx.secure));
      return { signed_in: true, approver: r.approver, user: r.user, expires_at: r.expires_at, csrf: s.csrf };
    },
  },
  {
    method: 'POST',
    path: /^\/api\/sign-out$/,
    signedIn: false,
    run: async (c) => {
      const s = c.session!;
      c.ctx.sessions.drop(s.id);
      c.res.setHeader('Set-Cookie', clearCookie(c.ctx.secure));
      // The browser's session ends whatever the daemon says; the daemon's is ended too when it still is one.
      if (s.daemon) await c.ctx.relay.call('console.sign_out', { session: s.daemon.token }).catch(() => undefined);
      return { signed_out: true };
    },
  },
  {
    method: 'GET',
    path: /^\/api\/inbox$/,
    signedIn: true,
    // What waits for a person: the transactions still Previewed (newest first) that have not expired; the daemon shows only what the person's role may see.
    run: async (c) => {
      const rows = (await asPerson(c, 'history', { state: 'Previewed', limit: INBOX_LIMIT })) as Array<{ expires_at: string }>;
      const now = Date.now();
      return rows.filter((t) => Date.parse(t.expires_at) > now);
    },
  },
  {
    method: 'GET',
    path: /^\/api\/tx\/([^/]+)$/,
    signedIn: true,
    run: async (c) => transactionPage((await asPerson(c, 'transaction.get', { transaction_id: c.match[1] })) as TransactionDetail),
  },
  {
    method: 'GET',
    path: /^\/api\/tx\/([^/]+)\/approval-options$/,
    signedIn: true,
    run: (c) => asPerson(c, 'passkey.approval_options', { transaction_id: c.match[1], ...sessionMinutes(new URL(c.req.url ?? '/', 'http://console').searchParams.get('session_minutes')) }),
  },
  {
    method: 'POST',
    path: /^\/api\/tx\/([^/]+)\/approve$/,
    signedIn: true,
    // Only the assertion goes: the console never relays a TOTP code (the daemon refuses one from here too).
    run: (c) => asPerson(c, 'approve', { transaction_id: c.match[1], preview_digest: c.body.preview_digest, assertion: c.body.assertion, ...sessionMinutes(c.body.session_minutes) }),
  },
  { method: 'GET', path: /^\/api\/sessions$/, signedIn: true, run: (c) => asPerson(c, 'session.list', {}) },
  { method: 'POST', path: /^\/api\/sessions\/([^/]+)\/revoke$/, signedIn: true, run: (c) => asPerson(c, 'session.revoke', { grant_id: c.match[1] }) },
  {
    method: 'POST',
    path: /^\/api\/tx\/([^/]+)\/deny$/,
    signedIn: true,
    run: (c) => {
      const reason = optionalString(c.body.reason)?.trim();
      return asPerson(c, 'deny', { transaction_id: c.match[1], ...(reason ? { reason } : {}) });
    },
  },
  {
    method: 'GET',
    path: /^\/api\/grants$/,
    signedIn: true,
    // ListConfigGrants, a read the policy's reads rule approves; where a person must approve it, the list says so.
    run: async (c) => {
      const p = (await asPerson(c, 'preview', { action_name: 'ListConfigGrants', params: {} })) as PreviewEnvelope & { auto_approval?: { receipt: string } };
      if (!p.auto_approval) return { grants: null, waiting: p.transaction_id, checkers: CHECKERS, lengths: GRANT_LENGTHS };
      const r = (await asPerson(c, 'execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: p.auto_approval.receipt })) as ResultEnvelope;
      return { grants: grantsListed(r.output, Date.now()), checkers: CHECKERS, lengths: GRANT_LENGTHS };
    },
  },
  { method: 'POST', path: /^\/api\/grants$/, signedIn: true, run: (c) => requestHere(c, 'GrantConfigEdits', grantFromForm(c.body)) },
  { method: 'POST', path: /^\/api\/grants\/([^/]+)\/revoke$/, signedIn: true, run: (c) => requestHere(c, 'RevokeConfigGrant', { name: c.match[1] }) },
  {
    method: 'POST',
    path: /^\/api\/tx\/([^/]+)\/run$/,
    signedIn: true,
    // The receipt is the one transaction.get hands the requester once the transaction is approved; the daemon rebuilds the change and runs it only if it is the one approved.
    run: async (c) => {
      const t = (await asPerson(c, 'transaction.get', { transaction_id: c.match[1] })) as TransactionDetail;
      if (!t.receipt || isCompactedPreview(t.preview)) throw new AirlockError('conflict', 'not_runnable', `${t.transaction_id} is ${t.state}: only your own approved request runs from here`, 'approve it first; a request made elsewhere runs where it was made');
      return asPerson(c, 'execute', { transaction_id: t.transaction_id, action_name: t.action_name, params: t.preview.params, receipt: t.receipt });
    },
  },
  { method: 'GET', path: /^\/api\/registration\/([^/]+)$/, signedIn: false, run: (c) => c.ctx.relay.call('console.registration_options', { registration_id: c.match[1] }) },
  {
    method: 'POST',
    path: /^\/api\/registration\/([^/]+)$/,
    signedIn: false,
    // The body (64 KiB at most, body.ts) carries a new credential (`response`) or, for a passkey from another host, its assertion (`existing_assertion`); the daemon checks which the registration takes.
    run: (c) =>
      c.ctx.relay.call('console.registration_response', {
        registration_id: c.match[1],
        ...(c.body.response !== undefined ? { response: c.body.response } : {}),
        ...(c.body.existing_assertion !== undefined ? { existing_assertion: c.body.existing_assertion } : {}),
        ...(c.body.assertion !== undefined ? { assertion: c.body.assertion } : {}),
      }),
  },
];

export async function handleApi(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  let session = ctx.sessions.get(sessionCookie(req));
  if (path === '/api/me') {
    if (req.method !== 'GET') return sendError(res, 405, 'method_not_allowed', 'GET /api/me');
    return me(ctx, res, session);
  }
  const routes = ROUTES.filter((r) => r.path.test(path));
  if (!routes.length) return sendError(res, 404, 'not_found', `no such console API: ${path}`);
  const route = routes.find((r) => r.method === req.method);
  if (!route) {
    const allowed = routes.map((r) => r.method).join(', ');
    return sendError(res, 405, 'method_not_allowed', `use ${allowed} for ${path}`, undefined, { Allow: allowed });
  }
  const match = route.path.exec(path)!;
  const id = match[1];
  const idForm = path.startsWith('/api/tx/') ? TX : path.startsWith('/api/sessions/') ? SESSION_GRANT_ID : path.startsWith('/api/grants/') ? GRANT_NAME : REGISTRATION;
  if (id !== undefined && !idForm.test(id)) return sendError(res, 400, 'bad_id', 'that is not an id the console knows the form of', 'open the link again, as it was given');
  if (route.method === 'POST') {
    const forged = forgedReason(req, ctx.origin, session);
    if (forged) return sendError(res, 403, 'forged_request', forged, 'use the console page itself');
  }
  if (route.signedIn && !session?.daemon) return sendError(res, 401, 'not_signed_in', 'sign in with your passkey first', undefined, session ? {} : { 'Set-Cookie': clearCookie(ctx.secure) });
  let body: Record<string, unknown> = {};
  try {
    if (route.method === 'POST') body = await readJson(req);
    const result = await route.run({ ctx, req, res, session, match, body });
    return sendJson(res, 200, result);
  } catch (e) {
    if (e instanceof BodyError) return sendError(res, e.status, e.code, e.message);
    if (e instanceof AirlockError) {
      if (isSessionGone(e) && session) {
        ctx.sessions.drop(session.id);
        session = null;
        res.setHeader('Set-Cookie', clearCookie(ctx.secure));
      }
      return sendJson(res, statusOf(e), { error: { category: e.category, code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } });
    }
    process.stderr.write(`airlock console: ${req.method} ${path}: ${(e as Error).stack ?? e}\n`);
    return sendError(res, 500, 'console_error', 'the console failed on this request (its log says why)', 'try again; if it persists, look at `journalctl -u airlock-console`');
  }
}

/** Who is signed in, and the CSRF token of this browser's session (a new anonymous one when it has none). */
function me(ctx: ApiContext, res: ServerResponse, session: BrowserSession | null): void {
  if (!session) {
    const s = ctx.sessions.anonymousSession();
    return sendJson(res, 200, { signed_in: false, csrf: s.csrf }, { 'Set-Cookie': setCookie(s.id, ctx.sessions.maxAge(s), ctx.secure) });
  }
  const d = session.daemon;
  return sendJson(res, 200, d ? { signed_in: true, approver: d.approver, user: d.user, expires_at: new Date(d.expiresAt).toISOString(), csrf: session.csrf } : { signed_in: false, csrf: session.csrf });
}
