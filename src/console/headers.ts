/**
 * The headers every console response carries, whatever it is (a page, a script, JSON, an
 * error): the page runs only the console's own script and style files (no inline script or
 * style, so text a host or an agent wrote cannot become code even if it reached the markup),
 * it is never framed (clickjacking an Approve button), it leaks no URL to another site, and
 * nothing is cached (a preview is the host's state now, and a shared browser keeps no copy).
 */
import type { ServerResponse } from 'node:http';

export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function secureHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

/** A JSON answer, with the headers above. */
export function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(body);
  secureHeaders(res);
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** An error the page shows as text: what failed and what to do next. */
export function sendError(res: ServerResponse, status: number, code: string, message: string, hint?: string, extra: Record<string, string | string[]> = {}): void {
  sendJson(res, status, { error: { code, message, ...(hint ? { hint } : {}) } }, extra);
}
