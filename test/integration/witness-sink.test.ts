/**
 * The witness sink against a real witness (src/witness, on a real port) through the real
 * client: a log simulated here (Merkle nodes in memory, heads signed with a test key)
 * advances and is cosigned with proofs from the last cosigned size; a daemon that forgot
 * that size recovers through the witness's 409; a fork and a cut log are refused loudly
 * and never reach onCosigned.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { signingKeyFromSeed } from '../../src/audit/keys.js';
import { consistencyProof, MerkleFrontier, rootAt, type NodeReader } from '../../src/audit/merkle.js';
import { cosignatureValid, formatVkey, signTreeHead, treeHeadLine } from '../../src/audit/note.js';
import { parseWitnessConfig } from '../../src/witness/config.js';
import { WitnessState } from '../../src/witness/state.js';
import { OriginLocks } from '../../src/witness/add-checkpoint.js';
import { createWitnessServer } from '../../src/witness/server.js';
import { submitToWitness } from '../../src/witness/client.js';
import { WitnessSink } from '../../src/daemon/sinks/witness.js';
import type { TreeHead } from '../../src/daemon/sinks/sink.js';

const origin = 'web1.example/airlock/0123456789abcdef';
const logKey = signingKeyFromSeed(Buffer.alloc(32, 21));
const witnessKey = signingKeyFromSeed(Buffer.alloc(32, 22));
const witnessName = 'witness.test/w1';
const dir = mkdtempSync(join(tmpdir(), 'airlock-wsink-'));
let server: Server;
let url = '';

/** A log kept in memory, its complete-subtree nodes as a store keeps them. */
class SimLog {
  private readonly nodes = new Map<string, Buffer>();
  private readonly frontier = MerkleFrontier.empty();
  constructor(private readonly tag: string) {}
  readonly read: NodeReader = async (ids) => ids.map(({ level, index }) => this.nodes.get(`${level}/${index}`) ?? assert.fail(`node ${level}/${index} missing`));
  async head(size: number): Promise<TreeHead> {
    while (this.frontier.size < size) {
      for (const n of this.frontier.append(Buffer.alloc(32, this.frontier.size + (this.tag === 'fork' ? 128 : 0)))) this.nodes.set(`${n.level}/${n.index}`, n.hash);
    }
    const root = await rootAt(size, this.read);
    const note = signTreeHead(logKey, origin, size, root, new Date());
    return { size, root: root.toString('hex'), note, line: treeHeadLine(note) };
  }
  proof = (from: number, to: number) => consistencyProof(from, to, this.read);
}
const real = new SimLog('real');
const fork = new SimLog('fork');

const cosigned: string[] = [];
const sinkFor = (log: SimLog, verifyKey = witnessKey.publicRaw) =>
  new WitnessSink({
    url,
    submit: submitToWitness,
    proof: log.proof,
    onCosigned: (n) => void cosigned.push(n),
    verifyCosigned: (n) => cosignatureValid(n, witnessName, verifyKey) !== null,
    timeoutMs: 5_000,
  });

before(async () => {
  const config = parseWitnessConfig(`name = "${witnessName}"\n[[log]]\norigin = "${origin}"\nkey = "${formatVkey(origin, logKey.publicRaw)}"\n`);
  server = createWitnessServer({ config, key: witnessKey, state: WitnessState.load(join(dir, 'state.json')), locks: new OriginLocks() });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

test('a growing log is cosigned at each head, with the proof from the size last cosigned; onCosigned gets note + cosignature', async () => {
  const sink = sinkFor(real);
  for (const size of [5, 12, 13, 40]) {
    const h = await real.head(size);
    await sink.publish(h);
    assert.equal(sink.lastCosignedSize, size);
    const last = cosigned.at(-1)!;
    assert.ok(last.startsWith(h.note), 'the note, unchanged, then the cosignature line');
    assert.match(last.slice(h.note.length), new RegExp(`^\u2014 ${witnessName} \\S+\\n$`));
    assert.ok(cosignatureValid(last, witnessName, witnessKey.publicRaw));
  }
});

test('a daemon that forgot the cosigned size (restart) takes the 409 size and retries once with a proof from there', async () => {
  const before = cosigned.length;
  const sink = sinkFor(real); // knows nothing: submits with old size 0
  await sink.publish(await real.head(50));
  assert.equal(sink.lastCosignedSize, 50);
  assert.equal(cosigned.length, before + 1);
});

test('a fork (same origin and key, another history) is refused and nothing is cosigned', async () => {
  const before = cosigned.length;
  const sink = sinkFor(fork);
  await assert.rejects(sink.publish(await fork.head(60)), /refused the head of size 60: HTTP 422/);
  assert.equal(cosigned.length, before);
});

test('a log shorter than what the witness cosigned (a cut tail) is named as such', async () => {
  const sink = sinkFor(real);
  await assert.rejects(sink.publish(await real.head(30)), /has cosigned a head of size 50, larger than this log's 30: the log was cut or forked/);
});

test("a cosignature that does not verify with the policy's witness key is not accepted", async () => {
  const before = cosigned.length;
  const sink = sinkFor(real, signingKeyFromSeed(Buffer.alloc(32, 99)).publicRaw);
  await assert.rejects(sink.publish(await real.head(51)), /does not verify with its configured key/);
  assert.equal(cosigned.length, before);
});

test('an unreachable witness fails the publish with the reason', async () => {
  const sink = new WitnessSink({ url: 'http://127.0.0.1:1/', submit: submitToWitness, proof: real.proof, onCosigned: () => {}, timeoutMs: 2_000 });
  await assert.rejects(sink.publish(await real.head(52)), /HTTP 0 witness unreachable/);
});
