/**
 * What a read's lifecycle costs the store, for `npm run bench` (issue 15): a real daemon in a
 * throwaway overlay, an agent user running auto-approved reads of several kinds, and SQLite's
 * own page accounting (dbstat) read between phases:
 *
 *   1. as run: each kind's lifecycles with nothing compacted or archived yet: the transaction's
 *      row (preview, parameters, result) and its five signed entries with their Merkle nodes;
 *   2. after compaction (the policy reloaded with keep_details = 1s): what a finished read keeps
 *      in the store for history and audits: its compacted row. The limit shown is that row's
 *      record bytes (what SQLite's pages hold of it, page overhead and indexes aside);
 *   3. after archival (segments of ARCHIVE_SEGMENT entries): the store's files, levelled, and the
 *      archive's gzip bytes per lifecycle, which leave the store (and belong off the host).
 */
import { statSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startSandboxDaemon, type SandboxDaemon } from '../src/sandbox/daemon.js';
import { Authenticator } from '../src/sandbox/authenticator.js';
import { Principal } from '../src/sandbox/principal.js';
import { progress } from './measure.js';

/** Reads of different shapes: fixed file reads, a program's table, a program's long output. */
const KINDS: Array<[string, Record<string, unknown>]> = [
  ['Uptime', {}],
  ['MemoryInfo', {}],
  ['DiskUsage', {}],
  ['ListMounts', {}],
];
const PER_KIND = 300;
const ARCHIVE_SEGMENT = 500;
const LONG = '[store]\nkeep_details = "1h"\nkeep_history = "90d"\n';
const COMPACT = '[store]\nkeep_details = "1s"\nkeep_history = "90d"\n';
const ARCHIVE = `[store]\nkeep_details = "1s"\nkeep_history = "90d"\narchive_segment_entries = ${ARCHIVE_SEGMENT}\n`;

/** The transactions table, its primary key's index, and its indexes (all named tx_...). */
const isTxTable = (name: string) => name === 'transactions' || name === 'sqlite_autoindex_transactions_1' || name.startsWith('tx_');

export interface StoreBench {
  kinds: Array<{ action: string; asRun: number; transactionAsRun: number; logAsRun: number }>;
  /** Bytes a compacted read keeps in the store (its row and index entries), and that row's record bytes. */
  compacted: number;
  compactedRecord: number;
  lifecycles: number;
  /** The store's files (database and WAL) after all of it, levelled by compaction and archival. */
  storeBytes: number;
  /** Of the database file, the pages in use (not on SQLite's free list, which new rows reuse first). */
  storeInUse: number;
  storeBytesBeforeArchival: number;
  liveEntries: number;
  archiveBytesPerLifecycle: number;
}

/** Bytes in SQLite's pages per table group: the transactions (with their indexes), and the rest (the log, its index, its Merkle nodes). */
function pages(db: string): { tx: number; log: number } {
  const d = new Database(db, { readonly: true });
  try {
    const rows = d.prepare('SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name').all() as { name: string; b: number }[];
    let tx = 0;
    let log = 0;
    for (const r of rows) {
      if (isTxTable(r.name)) tx += r.b;
      else if (r.name.startsWith('audit_log') || r.name === 'merkle_nodes') log += r.b;
    }
    return { tx, log };
  } finally {
    d.close();
  }
}

function scalar(db: string, sql: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return Number(d.prepare(sql).pluck().get() ?? 0);
  } finally {
    d.close();
  }
}

/** Entries archived so far: the live log's base (0 when none). */
function baseSeq(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    const json = d.prepare("SELECT value FROM meta WHERE key = 'log_base'").pluck().get() as string | undefined;
    return json ? (JSON.parse(json) as { seq: number }).seq : 0;
  } finally {
    d.close();
  }
}

const size = (p: string) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`bench: timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function storeBench(cleanups: Array<() => unknown>): Promise<StoreBench> {
  progress('store: a daemon in a throwaway overlay, an agent running auto-approved reads...');
  const d: SandboxDaemon = await startSandboxDaemon({ policy: LONG, daemonArgs: ['--sweep-interval', '0.2'] });
  cleanups.push(() => d.stop());
  const agent = Principal.spawn(await d.addUser('bench-store-agent', ['airlock-observer']), d.socket);
  // The policy is reloaded as for real: an admin approver, root in their login session (login uid), with their code.
  const keeperId = await d.addUser('bench-store-keeper', ['airlock-admin', 'airlock-approvers']);
  const root = Principal.spawnRootInSessionOf(keeperId.uid, d.socket);
  // The host's first factor is enrolled through sudo in the person's own login session (issue 22).
  const phone = new Authenticator();
  phone.add('keeper', (await root.call('totp.enroll', {})).secret);
  await root.call('totp.confirm', { code: await phone.code('keeper') });
  cleanups.push(() => (agent.close(), root.close()));
  const db = d.files.db;
  const reload = async (text: string) => {
    writeFileSync(join(d.box.shared, 'policy.toml'), text);
    await root.call('policy.reload', { totp_code: await phone.code('keeper') });
  };
  const kinds: StoreBench['kinds'] = [];
  for (const [action, params] of KINDS) {
    const before = pages(db);
    const r = await agent.op<{ done: number; refused: Record<string, number> }>('agentLoop', { action, params, count: PER_KIND, concurrency: 4, timeLimitMs: 120_000 });
    if (r.done !== PER_KIND) throw new Error(`bench: ${action}: ${r.done} of ${PER_KIND} lifecycles (${JSON.stringify(r.refused)})`);
    const after = pages(db);
    kinds.push({ action, transactionAsRun: (after.tx - before.tx) / PER_KIND, logAsRun: (after.log - before.log) / PER_KIND, asRun: (after.tx - before.tx + after.log - before.log) / PER_KIND });
    progress(`store: ${action}: ${PER_KIND} lifecycles, ${Math.round(kinds.at(-1)!.asRun)} B each as run`);
  }
  const lifecycles = KINDS.length * PER_KIND;
  progress('store: compaction (keep_details = 1s)...');
  await reload(COMPACT);
  await until('every finished transaction is compacted', () => scalar(db, 'SELECT count(*) FROM transactions WHERE compacted_at IS NULL') === 0);
  const compacted = pages(db).tx / scalar(db, 'SELECT count(*) FROM transactions');
  const compactedRecord = scalar(db, "SELECT sum(payload) FROM dbstat WHERE name = 'transactions'") / scalar(db, 'SELECT count(*) FROM transactions');
  const storeBytesBeforeArchival = size(db) + size(`${db}-wal`);
  progress(`store: archival (segments of ${ARCHIVE_SEGMENT} entries)...`);
  await reload(ARCHIVE);
  await until('the live log holds under two segments', () => scalar(db, 'SELECT count(*) FROM audit_log') < 2 * ARCHIVE_SEGMENT);
  const archive = join(d.stateDir, 'archive');
  const archived = readdirSync(archive).reduce((n, f) => n + size(join(archive, f)), 0);
  const archivedEntries = baseSeq(db);
  return {
    kinds,
    compacted,
    compactedRecord,
    lifecycles,
    storeBytes: size(db) + size(`${db}-wal`),
    storeInUse: scalar(db, 'SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()'),
    storeBytesBeforeArchival,
    liveEntries: scalar(db, 'SELECT count(*) FROM audit_log'),
    // Five entries a lifecycle: the archive's bytes per archived entry, times five.
    archiveBytesPerLifecycle: archivedEntries > 0 ? (5 * archived) / archivedEntries : 0,
  };
}
