/**
 * The log's side of C2SP tlog-witness: submit a tree head with the consistency proof from the
 * size the witness last cosigned, get its cosignature line(s) back. The answer is text from
 * another machine: it is bounded (MAX_RESPONSE_BYTES, a deadline), and only its form is checked
 * here. Whether a line is a valid cosignature of a trusted witness is for cosignatureValid
 * (src/audit/note.ts), with the witness's key.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseSignatureLine, strictDecimal } from '../audit/note.js';

export const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_PROOF = 63;

export type WitnessResult =
  /** Each line ends in its newline, so `note + cosignatureLines.join('')` is the cosigned note. */
  | { cosignatureLines: string[] }
  /** 409: the witness last cosigned this size; submit again with it as the old size. */
  | { conflict: number }
  /** Any other answer; status 0 when there was none (unreachable, timeout, bad URL, too large). */
  | { refused: number; reason: string };

export interface SubmitOptions {
  timeoutMs: number;
  /** PEM CA certificate(s) an https witness's certificate must chain to (default: the system's). */
  ca?: string | Buffer;
}

/** `url` is the witness's submission prefix (e.g. https://witness.example/); add-checkpoint is appended. */
export function submitToWitness(url: string, note: string, oldSize: number, proof: readonly Buffer[], opts: SubmitOptions): Promise<WitnessResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ refused: 0, reason: `not a URL: ${JSON.stringify(url.slice(0, 200))}` });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.resolve({ refused: 0, reason: `a witness URL is http: or https:, not ${target.protocol}` });
  if (!target.pathname.endsWith('/add-checkpoint')) target.pathname = target.pathname.replace(/\/?$/, '/add-checkpoint');
  if (!Number.isSafeInteger(oldSize) || oldSize < 0) return Promise.resolve({ refused: 0, reason: `old size ${oldSize} is not a tree size` });
  if (proof.length > MAX_PROOF || proof.some((h) => h.length !== 32)) return Promise.resolve({ refused: 0, reason: `a consistency proof is at most ${MAX_PROOF} hashes of 32 bytes` });
  const body = Buffer.from(`old ${oldSize}\n${proof.map((h) => h.toString('base64') + '\n').join('')}\n${note}`, 'utf8');

  return new Promise((resolve) => {
    let done = false;
    const finish = (r: WitnessResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length },
      ...(opts.ca !== undefined && target.protocol === 'https:' ? { ca: opts.ca } : {}),
    });
    // One deadline for the whole exchange: connect, send, and the answer.
    const timer = setTimeout(() => finish({ refused: 0, reason: `no answer from the witness within ${opts.timeoutMs} ms` }), opts.timeoutMs);
    req.on('error', (e) => finish({ refused: 0, reason: `witness unreachable: ${e.message}` }));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
        if (n > MAX_RESPONSE_BYTES) return finish({ refused: 0, reason: `the witness's answer is over ${MAX_RESPONSE_BYTES} bytes` });
        chunks.push(c);
      });
      res.on('error', (e) => finish({ refused: 0, reason: `the witness's answer broke off: ${e.message}` }));
      res.on('end', () => finish(interpret(res.statusCode ?? 0, String(res.headers['content-type'] ?? ''), Buffer.concat(chunks))));
    });
    req.end(body);
  });
}

function interpret(status: number, contentType: string, raw: Buffer): WitnessResult {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return { refused: status, reason: 'the answer is not UTF-8' };
  }
  if (status === 409) {
    const size = contentType.split(';')[0]!.trim() === 'text/x.tlog.size' && text.endsWith('\n') ? strictDecimal(text.slice(0, -1)) : null;
    return size === null ? { refused: 409, reason: 'a 409 without a text/x.tlog.size body' } : { conflict: size };
  }
  if (status !== 200) return { refused: status, reason: printable(text) };
  if (!text.endsWith('\n') || text.length < 2) return { refused: 200, reason: 'a 200 with no signature line' };
  const lines = text.slice(0, -1).split('\n');
  for (const l of lines) if (typeof parseSignatureLine(l) === 'string') return { refused: 200, reason: `a 200 whose answer is not signature lines: ${printable(l)}` };
  return { cosignatureLines: lines.map((l) => l + '\n') };
}

/** A witness's words, shown to a person: one line, printable ASCII only, short. */
const printable = (s: string): string => s.replace(/[^\x20-\x7e]+/g, ' ').trim().slice(0, 300);
