/**
 * A scripted LLM provider over real HTTP: a node:http server that speaks the OpenAI Chat
 * Completions (/v1/chat/completions) and Anthropic Messages (/v1/messages) wire formats,
 * answering each request with the next reply of its script and keeping every request it
 * received (headers and parsed body), so a test drives the real SDK clients and asserts
 * what reached the "model". A request past the end of the script gets a 400 that says so.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostContext } from '../../src/planner/contract.js';
import { catalogueMetadata } from '../../src/protocol/catalogue-metadata.js';

/** The key the tests' planners are configured with: every test asserts it shows up nowhere but the auth header. */
export const TEST_KEY = 'sk-airlock-test-Kq7Vx2Lm9Pw4Rt6Yz8Nb3Hc5';

/** A host running `id`, its catalogue the real one's actions for that distribution. */
export function hostFor(id: string, pretty: string): HostContext {
  return {
    distribution: { id, version_id: '12', pretty_name: pretty },
    actions: catalogueMetadata().actions.filter((a) => a.platforms.includes(id)).map((a) => ({ ...a, supported_here: true })),
  };
}
export const DEBIAN = hostFor('debian', 'Debian GNU/Linux 12 (bookworm)');

export type Wire = 'openai' | 'anthropic';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
  /** Answer only after this long (a slow provider). */
  delayMs?: number;
}

export interface LlmServer {
  /** The SDK's baseURL for this wire format (OpenAI's holds /v1, Anthropic's does not). */
  baseURL(wire: Wire): string;
  /** Origin only, for a cassette's upstream. */
  origin: string;
  received: Received[];
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;

export async function startLlmServer(script: (Reply | ((r: Received) => Reply))[]): Promise<LlmServer> {
  const received: Received[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= MAX_BODY) parts.push(b);
    });
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : null, at: Date.now() };
      received.push(r);
      const step = script[next++];
      const reply: Reply = step === undefined ? { status: 400, body: { error: { message: `the scripted server has no reply left (request ${next})` } } } : typeof step === 'function' ? step(r) : step;
      const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(body);
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseURL: (wire) => (wire === 'openai' ? `${origin}/v1` : origin),
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Call {
  name: string;
  /** An object, or a string sent as is (OpenAI's arguments are text: a malformed one is a string). */
  input: unknown;
}

let ids = 0;

/** The model's answer in a wire format: tool calls (maybe none), some text, token usage. */
export function modelReply(wire: Wire, calls: Call[], o: { text?: string; input_tokens?: number; output_tokens?: number } = {}): Reply {
  const usage = { input: o.input_tokens ?? 100, output: o.output_tokens ?? 20 };
  if (wire === 'openai') {
    return {
      body: {
        id: `chatcmpl-${++ids}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'scripted',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: o.text ?? null,
              ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ id: `call_${++ids}`, type: 'function', function: { name: c.name, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input) } })) } : {}),
            },
            finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
      },
    };
  }
  return {
    body: {
      id: `msg_${++ids}`,
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      content: [...(o.text ? [{ type: 'text', text: o.text }] : []), ...calls.map((c) => ({ type: 'tool_use', id: `toolu_${++ids}`, name: c.name, input: c.input }))],
      stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: usage.output },
    },
  };
}

/** A provider's error answer in a wire format. */
export function errorReply(wire: Wire, status: number, message: string, headers: Record<string, string> = {}): Reply {
  const type = status === 429 ? 'rate_limit_error' : status === 401 ? 'authentication_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return { status, headers, body: wire === 'openai' ? { error: { message, type, code: null } } : { type: 'error', error: { type, message } } };
}

/** The text of everything the model was sent in a request: system prompt, messages, tool results. */
export function sentText(r: Received): string {
  return JSON.stringify(r.body);
}

/** Tool results as each wire format carries them, in order: [content, is_error]. */
export function toolResults(wire: Wire, r: Received): { content: string; is_error: boolean }[] {
  if (wire === 'openai') return (r.body.messages as any[]).filter((m) => m.role === 'tool').map((m) => ({ content: String(m.content), is_error: String(m.content).startsWith('error:') }));
  return (r.body.messages as any[]).flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? m.content.filter((b: any) => b.type === 'tool_result').map((b: any) => ({ content: String(b.content), is_error: b.is_error === true })) : []));
}
