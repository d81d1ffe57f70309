/**
 * submitToWitness against a real HTTP server on a real port that answers what a witness (or
 * something pretending to be one) might: every answer is bounded and only well-formed ones count.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { submitToWitness, MAX_RESPONSE_BYTES } from '../../src/witness/client.js';

let answer: (req: IncomingMessage, body: string, res: ServerResponse) => void = () => undefined;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => answer(req, Buffer.concat(chunks).toString('utf8'), res));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
after(() => server.close());

const note = 'o\n1\n' + Buffer.alloc(32).toString('base64') + '\n\n\u2014 o AAAAAAA=\n';
const line = '\u2014 witness.example/w1 ' + Buffer.alloc(76, 1).toString('base64') + '\n';

test('the request is the spec body, POSTed to <prefix>/add-checkpoint; a 200 of signature lines comes back as lines', async () => {
  let seen = '';
  answer = (req, body, res) => {
    seen = `${req.method} ${req.url}\n${body}`;
    res.end(line + line.replace('w1', 'w2'));
  };
  const proof = [Buffer.alloc(32, 7), Buffer.alloc(32, 8)];
  const r = await submitToWitness(url, note, 5, proof, { timeoutMs: 2000 });
  assert.deepEqual(r, { cosignatureLines: [line, line.replace('w1', 'w2')] });
  assert.equal(seen, `POST /add-checkpoint\nold 5\n${proof[0]!.toString('base64')}\n${proof[1]!.toString('base64')}\n\n${note}`);
});

test('409 with text/x.tlog.size is a conflict with the size; any other 409 is refused', async () => {
  answer = (_req, _body, res) => {
    res.writeHead(409, { 'content-type': 'text/x.tlog.size' });
    res.end('12\n');
  };
  assert.deepEqual(await submitToWitness(url, note, 5, [], { timeoutMs: 2000 }), { conflict: 12 });
  answer = (_req, _body, res) => {
    res.writeHead(409, { 'content-type': 'text/plain' });
    res.end('12\n');
  };
  assert.deepEqual(await submitToWitness(url, note, 5, [], { timeoutMs: 2000 }), { refused: 409, reason: 'a 409 without a text/x.tlog.size body' });
  answer = (_req, _body, res) => {
    res.writeHead(409, { 'content-type': 'text/x.tlog.size' });
    res.end('012\n');
  };
  assert.equal('refused' in (await submitToWitness(url, note, 5, [], { timeoutMs: 2000 })), true);
});

test('hostile answers: refusals are one printable line, a 200 of anything but signature lines is refused, size and time are bounded', async () => {
  answer = (_req, _body, res) => {
    res.writeHead(403);
    res.end('bad \x1b[31msignature\n');
  };
  assert.deepEqual(await submitToWitness(url, note, 0, [], { timeoutMs: 2000 }), { refused: 403, reason: 'bad  [31msignature' });
  answer = (_req, _body, res) => res.end(line + 'and a trailer\n');
  assert.match(((await submitToWitness(url, note, 0, [], { timeoutMs: 2000 })) as { reason: string }).reason, /not signature lines/);
  answer = (_req, _body, res) => res.end('');
  assert.match(((await submitToWitness(url, note, 0, [], { timeoutMs: 2000 })) as { reason: string }).reason, /no signature line/);
  answer = (_req, _body, res) => res.end(line.repeat(Math.ceil((MAX_RESPONSE_BYTES * 2) / line.length)));
  assert.match(((await submitToWitness(url, note, 0, [], { timeoutMs: 2000 })) as { reason: string }).reason, /over 65536 bytes/);
  answer = () => undefined; // never answers
  const t0 = Date.now();
  assert.match(((await submitToWitness(url, note, 0, [], { timeoutMs: 300 })) as { reason: string }).reason, /within 300 ms/);
  assert.ok(Date.now() - t0 < 2000);
});

test('bad inputs are refused before anything is sent', async () => {
  assert.match(((await submitToWitness('file:///etc/passwd', note, 0, [], { timeoutMs: 100 })) as { reason: string }).reason, /http: or https:/);
  assert.match(((await submitToWitness('not a url', note, 0, [], { timeoutMs: 100 })) as { reason: string }).reason, /not a URL/);
  assert.match(((await submitToWitness(url, note, -1, [], { timeoutMs: 100 })) as { reason: string }).reason, /not a tree size/);
  assert.match(((await submitToWitness(url, note, 1, Array(64).fill(Buffer.alloc(32)), { timeoutMs: 100 })) as { reason: string }).reason, /at most 63/);
  assert.match(((await submitToWitness('http://127.0.0.1:1/', note, 0, [], { timeoutMs: 2000 })) as { reason: string }).reason, /unreachable/);
});
