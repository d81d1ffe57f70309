/**
 * Retention on a real daemon (issue 15): an agent user's loop of auto-approved reads, then the
 * policy's [store] periods shortened by a reload, and the daemon's own sweep compacts the
 * finished transactions (transaction.get says so, history still lists them), then removes them
 * (history no longer does), each batch with a signed entry; the log verifies against the
 * daemon's checkpoint file throughout. Prints the transactions table's bytes per lifecycle
 * before and after compaction (SQLite dbstat). Also: a read's output is never stored.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startWorld, type World } from '../support/world.js';
import { airlockAs } from '../support/cli.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { databaseSource, readSqliteLog } from '../../src/audit/log-file.js';
import { decodeRow, STORED_ROWS, txKey, type StoredLogRow } from '../../src/audit/sqlite-log.js';
import { decodeStored } from '../../src/audit/entry-encoding.js';
import type { Row } from '../../src/store/tx-row.js';
import { verifySource } from '../../src/audit/source.js';
import { parsePublicKey } from '../../src/audit/keys.js';
import { idsDigest } from '../../src/store/compaction.js';
import type { TransactionDetail, TransactionView } from '../../src/protocol/messages.js';
import { isCompactedPreview } from '../../src/protocol/compacted.js';

const LOOP = 50;
const LONG = '[store]\nkeep_details = "1h"\nkeep_history = "2h"\n';
const COMPACT = '[store]\nkeep_details = "1s"\nkeep_history = "1h"\n';
const SHORT = '[store]\nkeep_details = "1s"\nkeep_history = "3s"\n';

let w: World;
let agent: Principal;
let root: Principal;

before(async () => {
  // Sweeps every 0.3 s; a checkpoint at every append, so the checkpoint file covers the whole log.
  w = await startWorld(['--sweep-interval', '0.3', '--checkpoint-interval', '0'], 'overlay', { policy: LONG });
  agent = await w.as('agent', ['airlock-observer']);
  root = await w.root();
});
after(async () => {
  await w?.close();
});

/** The transactions table as SQLite stores it: rows, bytes in its pages, bytes of its records. */
function tableBytes(): { rows: number; pages: number; payload: number; text: number } {
  const db = new Database(w.d.files.db, { readonly: true });
  try {
    const s = db.prepare("SELECT sum(pgsize) AS pages, sum(payload) AS payload FROM dbstat WHERE name = 'transactions'").get() as { pages: number; payload: number };
    const rows = db.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
    // What the rows hold, as text: their values with the encoded JSON columns decoded (the store encodes them, src/audit/entry-encoding.ts).
    let text = 0;
    for (const r of db.prepare('SELECT * FROM transactions').all() as Record<string, unknown>[]) {
      for (const v of Object.values(r)) text += v === null ? 0 : Buffer.isBuffer(v) ? decodeStored(v).length : String(v).length;
    }
    return { rows, ...s, text };
  } finally {
    db.close();
  }
}

/** Polls `check` until it holds (the daemon's sweep does the work), or fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const r = await check();
    if (r) return r;
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((ok) => setTimeout(ok, 200));
  }
}

function logEntries(): Array<{ kind: string; transaction_id: string | null; details: Record<string, unknown> }> {
  return [...readSqliteLog(w.d.files.db)].map((r) => JSON.parse(r.body));
}

async function logVerifies(): Promise<void> {
  const pub = parsePublicKey(readFileSync(w.d.files.publicKey, 'utf8'));
  const rep = await verifySource(databaseSource(w.d.files.db, 'airlock audit verify'), pub, { checkpointFiles: [{ path: w.d.files.checkpoints, named: true }], workers: 1 });
  assert.equal(rep.status, 'intact', JSON.stringify(rep.first_broken ?? rep.reason));
}

describe('store retention', () => {
  let readId: string;
  let readDigest: string;
  let outputLines: string[];

  test("a read's output is returned to its requester and never stored with its transaction", async () => {
    const p = await agent.call('preview', { action_name: 'Uptime', params: {} });
    assert.ok(p.auto_approval, 'the default reads lane approves it');
    const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: 'Uptime', params: p.params, receipt: p.auto_approval.receipt });
    assert.equal(r.state, 'Succeeded');
    outputLines = (r.output as string[]).filter((l) => l.trim().length >= 4);
    assert.ok(outputLines.length >= 2, `Uptime printed its two files: ${JSON.stringify(r.output)}`);
    readId = p.transaction_id;
    readDigest = p.preview_digest;
    const t: TransactionDetail = await agent.call('transaction.get', { transaction_id: readId });
    assert.equal(t.state, 'Succeeded');
    assert.equal((t.result as Record<string, unknown>).output, undefined);
    const stored = JSON.stringify(t);
    for (const line of outputLines) assert.ok(!stored.includes(line), `the stored transaction holds the output line ${JSON.stringify(line)}`);
    // Nor in the row itself, nor in its log entries (which count lines, never hold them).
    const db = new Database(w.d.files.db, { readonly: true });
    // The row's columns as stored, its preview and result JSON decoded (they are kept encoded).
    const raw = db.prepare('SELECT * FROM transactions WHERE id = ?').get(readId) as Row;
    const row = JSON.stringify({ ...raw, preview_json: decodeStored(raw.preview_json), result_json: raw.result_json === null ? null : decodeStored(raw.result_json) });
    const bodies = (db.prepare(`${STORED_ROWS} WHERE a.tx = ? ORDER BY a.seq`).all(txKey(readId)) as StoredLogRow[]).map((r) => decodeRow(r).body).join('\n');
    assert.ok(bodies.includes(readId), "the transaction's entries are found by their tx column");
    db.close();
    for (const line of outputLines) {
      assert.ok(!row.includes(line), `the row holds ${JSON.stringify(line)}`);
      assert.ok(!bodies.includes(line), `an entry holds ${JSON.stringify(line)}`);
    }
  });

  test('an agent loop of auto-approved reads is compacted, then removed, by the sweep once the policy says so; the log records each batch and verifies', async () => {
    const loop = await agent.op<{ done: number; refused: Record<string, number> }>('agentLoop', { action: 'Uptime', params: {}, count: LOOP, concurrency: 4, timeLimitMs: 60_000 });
    assert.equal(loop.done, LOOP, JSON.stringify(loop.refused));
    const ours = (await agent.call('history', { action: 'Uptime', limit: 1000 })) as TransactionView[];
    assert.equal(ours.length, LOOP + 1);
    assert.ok(ours.every((t) => t.state === 'Succeeded' && t.compacted_at === undefined));
    const whole = await agent.call('transaction.get', { transaction_id: ours[0]!.transaction_id });
    const before = tableBytes();
    // Kept an hour: several sweeps later, nothing is compacted yet.
    await new Promise((ok) => setTimeout(ok, 1_000));
    assert.equal(logEntries().filter((e) => e.kind === 'compacted').length, 0);

    const reload = async (text: string) => {
      writeFileSync(join(w.d.box.shared, 'policy.toml'), text);
      await w.reload();
    };
    await reload(COMPACT);

    const compacted: TransactionDetail = await until('the loop is compacted', async () => {
      const t = await agent.call('transaction.get', { transaction_id: ours[0]!.transaction_id });
      return t.compacted_at ? t : null;
    });
    assert.ok(isCompactedPreview(compacted.preview), 'a compacted preview in place of the preview');
    assert.equal(compacted.preview.preview_digest, whole.preview.preview_digest);
    assert.match(compacted.preview.statement, /no longer stored/);
    assert.deepEqual(compacted.result, { state: 'Succeeded', changed: false, needs_reboot: false, error: null });
    for (const k of ['action_name', 'risk', 'state', 'request_hash', 'requested_by', 'approved_by', 'created_at', 'updated_at', 'summary'] as const) assert.equal(compacted[k], whole[k], k);
    // History still answers, and says which are compacted.
    const listed = await until('history lists every one compacted', async () => {
      const h = (await agent.call('history', { action: 'Uptime', limit: 1000 })) as TransactionView[];
      return h.length === LOOP + 1 && h.every((t) => t.compacted_at) ? h : null;
    });
    assert.equal(listed.length, LOOP + 1);
    // Executing one again is refused for what it is, not as a damaged store.
    const again = await agent.call('execute', { transaction_id: readId, action_name: 'Uptime', params: {}, receipt: 'x' }).then(() => null, (e: { category?: string; code?: string }) => e);
    assert.deepEqual([again?.category, again?.code], ['stale_approval', 'transaction_compacted']);
    const afterCompaction = tableBytes();
    const per = (b: { rows: number; pages: number; payload: number }) => `${Math.round(b.pages / b.rows)} B of pages, ${Math.round(b.payload / b.rows)} B of records`;
    console.log(`transactions table per lifecycle (${before.rows} rows): before compaction ${per(before)}; after ${per(afterCompaction)} (${afterCompaction.rows} rows)`);
    // The row's JSON is stored encoded (src/audit/entry-encoding.ts), at under half the bytes of its text before
    // compaction, so compaction halves what a row holds (its text), and the records and pages still shrink.
    assert.ok(afterCompaction.text / afterCompaction.rows < before.text / before.rows / 2, `compaction at least halves what a lifecycle's row holds (${before.text / before.rows} -> ${afterCompaction.text / afterCompaction.rows} B of text)`);
    assert.ok(afterCompaction.payload / afterCompaction.rows < before.payload / before.rows, 'compaction shrinks the bytes a lifecycle keeps');
    // And the pages too: the table does not grow (its emptied pages go to the freelist, for new rows).
    assert.ok(afterCompaction.pages / afterCompaction.rows <= before.pages / before.rows, 'compaction does not grow the pages a lifecycle takes');

    // The command line says so too: show, history, and execute refused for what it is.
    const cli = (args: string[]) => airlockAs(agent.identity, w.d.socket, args);
    const shown = await cli(['show', readId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /compacted \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z: its preview, parameters and result messages are no longer stored/);
    assert.match(shown.stdout, new RegExp(`preview digest ${readDigest}`));
    assert.match(shown.stdout, /state Succeeded/);
    const hist = await cli(['history', '--action', 'Uptime', '--limit', '5']);
    assert.equal(hist.code, 0, hist.stderr);
    assert.equal(hist.stdout.split('\n').filter((l) => l.includes('(compacted)')).length, 5, hist.stdout);
    const ex = await cli(['execute', readId, '--receipt', 'x']);
    assert.notEqual(ex.code, 0);
    assert.match(ex.stderr, /stale_approval\/transaction_compacted/);

    // Then removed once keep_history has passed too: history no longer lists them, and transaction.get says there is none.
    await reload(SHORT);
    await until('history no longer lists them', async () => ((await agent.call('history', { action: 'Uptime', limit: 1000 })) as TransactionView[]).length === 0);
    const gone = await agent.call('transaction.get', { transaction_id: readId }).then(() => null, (e: { code?: string }) => e);
    assert.equal(gone?.code, 'no_such_transaction');

    // Every transaction compacted once and removed once, each batch with its signed entry.
    const entries = logEntries();
    const ids = ours.map((t) => t.transaction_id);
    for (const kind of ['compacted', 'history_pruned']) {
      const batches = entries.filter((e) => e.kind === kind);
      assert.ok(batches.length >= 1, kind);
      const total = batches.reduce((n, e) => n + (e.details.count as number), 0);
      assert.ok(total >= LOOP + 1, `${kind}: ${total}`);
      assert.ok(batches.every((e) => e.transaction_id === null && /^[0-9a-f]{64}$/.test(e.details.ids_sha256 as string) && !Number.isNaN(Date.parse(e.details.finished_before as string))));
      if (batches.length === 1 && total === LOOP + 1) assert.equal(batches[0]!.details.ids_sha256, idsDigest(ids));
    }
    // The entries of the removed transactions are all still there.
    assert.ok(ids.every((id) => entries.some((e) => e.transaction_id === id && e.kind === 'outcome')));
    assert.equal(tableBytes().rows, 0);
    await logVerifies();
  });
});
