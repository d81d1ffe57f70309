/**
 * The PostgreSQL store's own consistency check (`store.check`). PostgreSQL has no
 * quick_check, and amcheck is not installed on the project's machines, so this checks what
 * the store itself promises about one log, in SQL, at most `max` findings:
 *   - the log's row exists (the row every write locks);
 *   - seqs run 1..N with no gap (the primary key rules out duplicates);
 *   - each stored hash is SHA-256 of its body, each body's seq is its row's seq, and each
 *     body's prev_hash is the hash of the entry before it (genesis for the first);
 *   - the database's head is not behind (nor different from) what this store last committed;
 *   - every transaction's state is one of the known states;
 *   - the Merkle tree has one leaf per entry, each leaf node the RFC 9162 leaf hash of its body
 *     (the inner nodes are checked by every proof and by `airlock audit verify`).
 * Signatures are not checked here: that is `airlock audit verify`, with the public key.
 */
import type pg from 'pg';
import { GENESIS_HASH } from '../audit/entry.js';
import { JOB_STATES } from '../protocol/risk.js';
import type { LogBase, LogHead } from './store.js';

const STATES = ['Previewed', ...JOB_STATES];

export async function pgIntegrityCheck(pool: pg.Pool, logId: string, head: LogHead, max: number, base: Pick<LogBase, 'seq' | 'hash'>): Promise<string[]> {
  const out: string[] = [];
  const room = () => max - out.length;
  const logRow = await pool.query('SELECT 1 FROM logs WHERE log_id = $1', [logId]);
  if (logRow.rowCount !== 1) out.push(`the log ${logId} has no row in the logs table`);

  const span = (await pool.query<{ n: number; lo: number | null; hi: number | null }>('SELECT COUNT(*)::bigint AS n, MIN(seq) AS lo, MAX(seq) AS hi FROM audit_log WHERE log_id = $1', [logId])).rows[0]!;
  // Entries up to the base were archived (store.ts LogBase): the live log starts after it.
  if (span.n > 0 && span.lo !== base.seq + 1) out.push(`the log ${logId} starts at seq ${span.lo}, not ${base.seq + 1}${base.seq > 0 ? ` (entries 1 to ${base.seq} are archived)` : ''}`);
  if (span.n > 0 && room() > 0 && span.hi !== (span.lo ?? 1) + span.n - 1) {
    // Not contiguous: name the missing ranges.
    const gaps = await pool.query<{ a: number; b: number }>(
      'SELECT seq + 1 AS a, next - 1 AS b FROM (SELECT seq, lead(seq) OVER (ORDER BY seq) AS next FROM audit_log WHERE log_id = $1) s WHERE next > seq + 1 ORDER BY seq LIMIT $2',
      [logId, room()],
    );
    for (const g of gaps.rows) out.push(g.a === g.b ? `entry ${g.a} of log ${logId} is missing` : `entries ${g.a} to ${g.b} of log ${logId} are missing`);
  }
  if (span.hi !== null && span.hi < head.size) out.push(`the log ${logId} ends at ${span.hi}, but this daemon wrote up to ${head.size}`);
  if (span.hi !== null && span.hi === head.size) {
    const last = await pool.query<{ hash: string }>('SELECT hash FROM audit_log WHERE log_id = $1 AND seq = $2', [logId, head.size]);
    if (last.rows[0]?.hash !== head.hash) out.push(`entry ${head.size} of log ${logId} is not the one this daemon wrote`);
  }
  if (span.hi === null && head.size > 0) out.push(`the log ${logId} is empty, but this daemon wrote up to ${head.size}`);

  if (room() > 0) {
    const bad = await pool.query<{ seq: number }>("SELECT seq FROM audit_log WHERE log_id = $1 AND hash <> encode(sha256(convert_to(body, 'UTF8')), 'hex') ORDER BY seq LIMIT $2", [logId, room()]);
    for (const r of bad.rows) out.push(`entry ${r.seq} of log ${logId}: its stored hash is not the hash of its body`);
  }
  if (room() > 0) {
    try {
      const chain = await pool.query<{ seq: number }>(
        `SELECT seq FROM (SELECT seq, body::jsonb AS b, lag(hash) OVER (ORDER BY seq) AS prev FROM audit_log WHERE log_id = $1) s
          WHERE (b->>'seq') IS DISTINCT FROM seq::text OR (b->>'prev_hash') IS DISTINCT FROM COALESCE(prev, $2) ORDER BY seq LIMIT $3`,
        [logId, base.seq > 0 ? base.hash : GENESIS_HASH, room()],
      );
      for (const r of chain.rows) out.push(`entry ${r.seq} of log ${logId}: its seq or prev_hash does not follow the entry before it`);
    } catch (e) {
      out.push(`an entry of log ${logId} is not JSON: ${(e as Error).message}`);
    }
  }
  if (room() > 0) {
    const leaves = (await pool.query<{ n: number }>('SELECT COUNT(*)::bigint AS n FROM merkle_nodes WHERE log_id = $1 AND level = 0 AND idx >= $2', [logId, base.seq])).rows[0]!.n;
    if (leaves !== span.n) out.push(`the Merkle tree of log ${logId} has ${leaves} leaves for ${span.n} entries`);
  }
  if (room() > 0) {
    const bad = await pool.query<{ seq: number }>(
      `SELECT a.seq FROM audit_log a JOIN merkle_nodes m ON m.log_id = a.log_id AND m.level = 0 AND m.idx = a.seq - 1
        WHERE a.log_id = $1 AND m.hash <> sha256('\\x00'::bytea || convert_to(a.body, 'UTF8')) ORDER BY a.seq LIMIT $2`,
      [logId, room()],
    );
    for (const r of bad.rows) out.push(`entry ${r.seq} of log ${logId}: its Merkle leaf is not the hash of its body`);
  }
  if (room() > 0) {
    const states = await pool.query<{ id: string; state: string }>('SELECT id, state FROM transactions WHERE log_id = $1 AND NOT (state = ANY($2::text[])) ORDER BY ord LIMIT $3', [logId, STATES, room()]);
    for (const r of states.rows) out.push(`transaction ${r.id} of log ${logId} has the unknown state ${JSON.stringify(r.state.slice(0, 40))}`);
  }
  return out.length ? out.slice(0, max) : ['ok'];
}
