/**
 * The store stays bounded while an agent works (issue 15's soak test, bounded in time): a real
 * daemon with short lifetimes ([store] keep_details 1 s, keep_history 3 s, segments of 200
 * entries) and a fast sweep, an agent (a real Unix user) running rounds of auto-approved reads
 * on four connections, as a polling agent loop would. After each round the store's files are
 * measured as the disk sees them. The run crosses the retention and archival thresholds many
 * times over, and shows: the database levels off while the archive grows; the whole history
 * verifies across the archived segments and the live log (the real CLI, `--archive`); every
 * archival and retention batch is a signed entry in it; and history still answers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorld, type World } from '../support/world.js';
import { airlock } from '../support/cli.js';
import { removeTree, tempDir } from '../support/fs.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { archiveSource, listSegments } from '../../src/audit/archive-source.js';
import { databaseSource } from '../../src/audit/log-file.js';

const SEGMENT = 200;
const ROUNDS = 10;
const PER_ROUND = 80;
const POLICY = `[store]\nkeep_details = "1s"\nkeep_history = "3s"\narchive_segment_entries = ${SEGMENT}\n`;

let w: World;
let agent: Principal;
let dir: string;
const rounds: Array<{ lifecycles: number; dbBytes: number; liveEntries: number; transactions: number; archiveBytes: number; segments: number }> = [];

const size = (p: string) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};
const archiveDir = () => join(w.d.stateDir, 'archive');
const archiveBytes = () => readdirSync(archiveDir()).reduce((n, f) => n + size(join(archiveDir(), f)), 0);

before(async () => {
  w = await startWorld(['--sweep-interval', '0.2'], 'overlay', { policy: POLICY });
  agent = await w.as('agent', ['airlock-observer']);
  dir = tempDir('airlock-soak-');
  writeFileSync(join(dir, 'audit.pub'), readFileSync(w.d.files.publicKey, 'utf8'));
  let total = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const r = await agent.op<{ done: number; refused: Record<string, number> }>('agentLoop', { action: 'Uptime', params: {}, count: PER_ROUND, concurrency: 4, timeLimitMs: 60_000 });
    assert.deepEqual([r.done, r.refused], [PER_ROUND, {}], `round ${i}`);
    total += r.done;
    // A few sweeps: the round's segments archived, its transactions compacted (after 1 s) and older ones removed (after 3 s).
    await new Promise((res) => setTimeout(res, 1500));
    const live = [...readSqliteLog(w.d.files.db)];
    const history = await agent.call('history', { limit: 1000 });
    rounds.push({ lifecycles: total, dbBytes: size(w.d.files.db) + size(`${w.d.files.db}-wal`), liveEntries: live.length, transactions: history.length, archiveBytes: archiveBytes(), segments: readdirSync(archiveDir()).length });
  }
  console.log(rounds.map((r) => `after ${r.lifecycles} lifecycles: store ${(r.dbBytes / 1024).toFixed(0)} KiB (${r.liveEntries} live entries, ${r.transactions} transactions listed), archive ${(r.archiveBytes / 1024).toFixed(0)} KiB in ${r.segments} segments`).join('\n'));
});
after(async () => {
  await w?.close();
  if (dir) removeTree(dir);
});

const cli = (args: string[]) => airlock(['--socket', w.d.socket, ...args]);

describe('a store under an agent loop', () => {
  test('the database levels off while the archive grows; the live log stays within two segments and a round', () => {
    const second = rounds.slice(ROUNDS / 2);
    const plateau = Math.max(...rounds.slice(2, ROUNDS / 2).map((r) => r.dbBytes));
    for (const r of second) {
      assert.ok(r.dbBytes <= plateau * 1.15, `store ${r.dbBytes} B after ${r.lifecycles} lifecycles, past the plateau of ${plateau} B`);
      assert.ok(r.liveEntries <= 2 * SEGMENT + 5 * PER_ROUND + 10, `${r.liveEntries} live entries`);
    }
    assert.ok(rounds.at(-1)!.archiveBytes > rounds[ROUNDS / 2]!.archiveBytes, 'the archive grew');
    assert.ok(rounds.at(-1)!.segments >= (5 * ROUNDS * PER_ROUND) / SEGMENT - 3, `${rounds.at(-1)!.segments} segments`);
    // What each lifecycle leaves behind once the store has levelled off: in the archive, gzip'd.
    const a = rounds[ROUNDS / 2]!;
    const z = rounds.at(-1)!;
    const perLifecycle = (z.archiveBytes - a.archiveBytes) / (z.lifecycles - a.lifecycles);
    console.log(`levelled off: the store grew ${((z.dbBytes - a.dbBytes) / (z.lifecycles - a.lifecycles)).toFixed(0)} B per lifecycle over the last ${z.lifecycles - a.lifecycles}; the archive ${perLifecycle.toFixed(0)} B`);
    assert.ok(perLifecycle < 2048, `${perLifecycle} archive bytes per lifecycle`);
  });

  test('the whole history verifies across the archived segments and the live log, and holds every archival and retention entry', async () => {
    const r = await cli(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--checkpoints', w.d.files.checkpoints, '--archive', archiveDir(), '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as { status: string; entries: number };
    assert.ok(report.entries >= 5 * ROUNDS * PER_ROUND, `${report.entries} entries`);
    // The same walk, read here: the kinds of every entry from 1.
    const live = databaseSource(w.d.files.db, 'airlock audit verify');
    const base = (await live.start!())!.start.seq;
    const kinds = new Map<string, number>();
    for await (const row of archiveSource(archiveDir(), listSegments(archiveDir(), null), live, base).entries()) {
      const k = (JSON.parse(row.body) as { kind: string }).kind;
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
    assert.equal(kinds.get('outcome'), ROUNDS * PER_ROUND);
    assert.ok((kinds.get('archived') ?? 0) >= rounds.at(-1)!.segments, `${kinds.get('archived')} archived entries for ${rounds.at(-1)!.segments} segments`);
    assert.ok((kinds.get('compacted') ?? 0) > 0 && (kinds.get('history_pruned') ?? 0) > 0, JSON.stringify([...kinds]));
  });

  test('history still answers: recent transactions are listed and readable, long-finished ones are gone from the store', async () => {
    // Through every round, history listed the recent ones and not the thousands before them.
    for (const r of rounds) assert.ok(r.transactions > 0 && r.transactions <= 2 * PER_ROUND, `${r.transactions} listed after ${r.lifecycles}`);
    const more = await agent.op<{ done: number }>('agentLoop', { action: 'Uptime', params: {}, count: 5, concurrency: 1, timeLimitMs: 30_000 });
    assert.equal(more.done, 5);
    const h = await agent.call('history', { limit: 1000 });
    assert.ok(h.length >= 5 && h.length <= 2 * PER_ROUND + 5, `${h.length} listed`);
    const got = await agent.call('transaction.get', { transaction_id: h[0]!.transaction_id });
    assert.equal(got.state, 'Succeeded');
  });
});
