/**
 * One provider call with the session's retry rules: a rate limit (429) or a server error
 * (5xx, 529 overloaded) or a lost connection is tried again after an exponential backoff
 * with jitter, or after the provider's Retry-After when it gives one, up to maxRetries
 * times; an auth error (401/403) or any other refusal never is. No wait goes past the
 * session's deadline: a Retry-After longer than the time left ends the session at once.
 */
import { maskText } from '../../mask/mask.js';
import { escapeText } from '../../protocol/escape-text.js';
import type { ApiKey } from './api-key.js';
import { PlannerError } from './errors.js';

export interface RetryOptions {
  maxRetries: number;
  /** The first backoff; each retry doubles it, and a random jitter takes up to half off. */
  backoffBaseMs: number;
  /** The session's wall-clock signal: aborted at its deadline. */
  signal: AbortSignal;
  deadline: number;
  /** Redacted from every message the provider sends back. */
  apiKey: ApiKey | null;
  /** Called before each wait (the tests count retries and waits). */
  onRetry?: (attempt: number, waitMs: number, status: number | null) => void;
}

/** The longest backoff, whatever the attempt. */
export const MAX_BACKOFF_MS = 30_000;
const MAX_MESSAGE_CHARS = 300;

export async function withRetry<T>(call: (signal: AbortSignal) => Promise<T>, o: RetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    if (o.signal.aborted) throw wallClock();
    let failure: Failure;
    try {
      return await call(o.signal);
    } catch (e) {
      if (o.signal.aborted) throw wallClock();
      failure = failureOf(e, o.apiKey);
    }
    const retryable = failure.status === null || failure.status === 429 || failure.status >= 500;
    if (!retryable) throw final(failure);
    if (attempt >= o.maxRetries) throw final(failure, attempt);
    const wait = failure.retryAfterMs ?? backoff(attempt, o.backoffBaseMs);
    if (Date.now() + wait > o.deadline) throw final(failure, attempt, `it asked to wait ${Math.ceil(wait / 1000)} s, past the planner's time budget`);
    o.onRetry?.(attempt + 1, wait, failure.status);
    await sleep(wait, o.signal);
  }
}

/** base * 2^attempt, less a random part of up to half of it (so many clients do not retry in step). */
export function backoff(attempt: number, baseMs: number): number {
  const full = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** attempt);
  return Math.round(full / 2 + Math.random() * (full / 2));
}

interface Failure {
  status: number | null;
  retryAfterMs: number | null;
  message: string;
}

/** Both SDKs' APIError carry `status` and `headers` (a Fetch Headers); a connection error has no status. */
function failureOf(e: unknown, key: ApiKey | null): Failure {
  const err = e as { status?: unknown; headers?: unknown; message?: unknown };
  const status = typeof err?.status === 'number' ? err.status : null;
  const headers = err?.headers instanceof Headers ? err.headers : null;
  return { status, retryAfterMs: headers ? retryAfterMs(headers) : null, message: redact(String(err?.message ?? e), key) };
}

/** `retry-after-ms` (OpenAI's), else `Retry-After` in seconds or as an HTTP date; capped. */
export function retryAfterMs(h: Headers): number | null {
  const ms = Number(h.get('retry-after-ms'));
  if (h.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_BACKOFF_MS * 4);
  const v = h.get('retry-after');
  if (v === null) return null;
  const seconds = Number(v);
  if (v.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_BACKOFF_MS * 4);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.min(Math.max(0, at - Date.now()), MAX_BACKOFF_MS * 4);
}

/** The provider's words, safe to show: the key (and anything the masker sees as a secret) out, escaped, capped. */
export function redact(text: string, key: ApiKey | null): string {
  const k = key?.reveal();
  const without = k ? text.split(k).join('***') : text;
  const masked = escapeText(maskText(without).text);
  return masked.length > MAX_MESSAGE_CHARS ? `${masked.slice(0, MAX_MESSAGE_CHARS)}…` : masked;
}

function final(f: Failure, retries = 0, why?: string): PlannerError {
  const after = retries > 0 ? ` after ${retries} ${retries === 1 ? 'retry' : 'retries'}` : '';
  if (f.status === 401 || f.status === 403) {
    // The provider's message may quote part of the key: none of it here.
    return new PlannerError('provider_auth', `the LLM provider refused the API key (${f.status})`, 'check AIRLOCK_LLM_API_KEY (or the key your planner configuration names), or run without one: the offline planner');
  }
  if (f.status === 429) return new PlannerError('provider_rate_limited', `the LLM provider is rate limiting this key${after}${why ? `: ${why}` : ''}`, 'try again later, or raise the rate limit with the provider');
  if (f.status === null || f.status >= 500) {
    const what = f.status === null ? `could not be reached (${f.message})` : `failed (${f.status}: ${f.message})`;
    return new PlannerError('provider_unavailable', `the LLM provider ${what}${after}${why ? `: ${why}` : ''}`, 'try again later, or check AIRLOCK_LLM_BASE_URL');
  }
  return new PlannerError('provider_error', `the LLM provider refused the request (${f.status}: ${f.message})`, 'check AIRLOCK_LLM_MODEL and AIRLOCK_LLM_BASE_URL');
}

export const wallClock = (): PlannerError => new PlannerError('wall_clock', "the planner ran out of its time budget before it had a plan", 'try again, with a simpler intent');

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
