/** The witness's parts without a process: its config, the add-checkpoint body, its state file, its locks, its decision. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { formatVkey, formatWitnessVkey, signTreeHead } from '../../src/audit/note.js';
import { EMPTY_ROOT, leafHash, nodeHash } from '../../src/audit/merkle.js';
import { parseWitnessConfig } from '../../src/witness/config.js';
import { WitnessState } from '../../src/witness/state.js';
import { addCheckpoint, OriginLocks, parseAddCheckpoint } from '../../src/witness/add-checkpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'airlock-witness-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const logKey = signingKeyFromSeed(Buffer.alloc(32, 21));
const witnessKey = signingKeyFromSeed(Buffer.alloc(32, 22));
const origin = 'h.example/airlock/00';
const configText = `name = "w.example/1"\n[[log]]\norigin = "${origin}"\nkey = "${formatVkey(origin, logKey.publicRaw)}"\n`;

test('config: the allowlist of logs, each key named after its origin; anything else refused with the reason', () => {
  const c = parseWitnessConfig(configText);
  assert.equal(c.name, 'w.example/1');
  assert.ok(c.logs.get(origin)!.keys[0]!.equals(logKey.publicRaw));
  const rotated = parseWitnessConfig(`name = "w"\n[[log]]\norigin = "${origin}"\nkeys = ["${formatVkey(origin, logKey.publicRaw)}", "${formatVkey(origin, witnessKey.publicRaw)}"]\n`);
  assert.equal(rotated.logs.get(origin)!.keys.length, 2);
  const refuse = (text: string, re: RegExp) => assert.throws(() => parseWitnessConfig(text), re);
  refuse('[[log]]\n', /name = /);
  refuse('name = "a b"\n', /name = /);
  refuse(`name = "w"\nextra = 1\n`, /unknown setting "extra"/);
  refuse(`name = "w"\n[[log]]\norigin = "other"\nkey = "${formatVkey(origin, logKey.publicRaw)}"\n`, /not named after the origin/);
  refuse(`name = "w"\n[[log]]\norigin = "${origin}"\nkey = "${formatWitnessVkey(origin, logKey.publicRaw)}"\n`, /signature type 0x04/);
  refuse(`name = "w"\n[[log]]\norigin = "${origin}"\n`, /key = /);
  refuse(configText + `[[log]]\norigin = "${origin}"\nkey = "${formatVkey(origin, logKey.publicRaw)}"\n`, /listed twice/);
  refuse('name = ', /not TOML/);
});

test('add-checkpoint body: old size, at most 63 proof hashes, blank line, the note', () => {
  const h = Buffer.alloc(32, 1).toString('base64');
  assert.deepEqual(parseAddCheckpoint(`old 7\n${h}\n\nNOTE`), { oldSize: 7, proof: [Buffer.alloc(32, 1)], note: 'NOTE' });
  assert.deepEqual(parseAddCheckpoint('old 0\n\nN'), { oldSize: 0, proof: [], note: 'N' });
  for (const bad of ['', 'old 7', 'old 07\n\n', 'old -1\n\n', 'old 7 \n\n', 'old 99999999999999999\n\n', 'Old 7\n\n', `old 7\n${h}\n`, `old 7\n${h.slice(0, -1)}\n\n`, `old 7\n${Buffer.alloc(31).toString('base64')}\n\n`, `old 7\n${`${h}\n`.repeat(64)}\n`]) {
    assert.equal(typeof parseAddCheckpoint(bad), 'string', JSON.stringify(bad));
  }
  assert.equal(typeof parseAddCheckpoint(`old 7\n${`${h}\n`.repeat(63)}\nN`), 'object');
});

test('state: survives a reload, writes atomically (no temp file left), refuses a corrupt file instead of starting empty', async () => {
  const path = join(dir, 'state.json');
  const s = WitnessState.load(path);
  assert.equal(s.get(origin), undefined);
  await Promise.all([s.commit('a', { size: 1, root: leafHash('x'), note: 'n1' }), s.commit('b', { size: 2, root: leafHash('y'), note: 'n2' })]);
  const again = WitnessState.load(path);
  assert.equal(again.get('a')!.size, 1, 'both concurrent commits of two logs are on disk');
  assert.equal(again.get('b')!.size, 2);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('tmp')), []);
  for (const corrupt of ['', '{', '{"version":2,"logs":{}}', '{"version":1,"logs":{"a":{"size":1.5,"root":"","note":""}}}', `{"version":1,"logs":{"a":{"size":1,"root":"${Buffer.alloc(31).toString('base64')}","note":""}}}`]) {
    writeFileSync(path, corrupt);
    assert.throws(() => WitnessState.load(path), /corrupt/, corrupt);
  }
});

test('locks: one origin runs one at a time, others in parallel, and a failure does not jam the queue', async () => {
  const locks = new OriginLocks();
  const order: string[] = [];
  const slow = (tag: string, ms: number) => () => new Promise<string>((r) => setTimeout(() => (order.push(tag), r(tag)), ms));
  await Promise.all([locks.run('x', slow('x1', 30)), locks.run('x', slow('x2', 1)), locks.run('y', slow('y1', 5))]);
  assert.deepEqual(order, ['y1', 'x1', 'x2']);
  await assert.rejects(locks.run('x', async () => Promise.reject(new Error('boom'))));
  assert.equal(await locks.run('x', async () => 'after'), 'after');
});

test('persist before answer: when the state cannot be written, nothing is cosigned and the head is not remembered', async () => {
  const w = { config: parseWitnessConfig(configText), key: witnessKey, state: WitnessState.load(join(dir, 'no-such-dir', 'state.json')), locks: new OriginLocks() };
  const root = nodeHash(leafHash('a'), leafHash('b'));
  await assert.rejects(addCheckpoint(w, `old 0\n\n${signTreeHead(logKey, origin, 2, root, new Date())}`), /no-such-dir does not exist/);
  assert.equal(w.state.get(origin), undefined);
  // And the decision on a good state: size 0 must be the empty root.
  const ok = { ...w, state: WitnessState.load(join(dir, 'state-2.json')) };
  assert.equal((await addCheckpoint(ok, `old 0\n\n${signTreeHead(logKey, origin, 0, leafHash('x'), new Date())}`)).status, 422);
  assert.equal((await addCheckpoint(ok, `old 0\n\n${signTreeHead(logKey, origin, 0, EMPTY_ROOT, new Date())}`)).status, 200);
  assert.equal((await addCheckpoint(ok, `old 0\n${root.toString('base64')}\n\n${signTreeHead(logKey, origin, 2, root, new Date())}`)).status, 422, 'old 0 takes no proof');
  const a = await addCheckpoint(ok, `old 0\n\n${signTreeHead(logKey, origin, 2, root, new Date())}`);
  assert.equal(a.status, 200);
  assert.match(readFileSync(join(dir, 'state-2.json'), 'utf8'), new RegExp(`"size": 2`));
});
