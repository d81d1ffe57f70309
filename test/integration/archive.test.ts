/**
 * The log's oldest segments leave the live store for the archive, and nothing is lost: a real
 * daemon with small segments ([store] archive_segment_entries = 40) and a fast sweep, an agent
 * (a real Unix user) running auto-approved reads, and an auditor (olga, airlock-observer) running
 * the real CLI. Each archival is a signed `archived` entry naming its file and digest; the live
 * log verifies from where the archive ends (a signed tree head vouches for it); `--archive DIR`
 * verifies the whole history from entry 1, and each segment verifies on its own. A segment
 * removed from the archive is cannot_verify (exit 2); one edited is broken (exit 1). Proofs of
 * live entries still work; a size inside the archive is refused with `archived`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { startArchivingWorld } from '../support/archiving-world.js';
import { rejectsWith, type World } from '../support/world.js';
import { airlock, airlockAs } from '../support/cli.js';
import { removeTree } from '../support/fs.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { checkpointLineSize } from '../../src/audit/checkpoint-size.js';

const SEGMENT = 40;
let w: World;
let agent: Principal;
let olga: Principal;
let dir: string;
let archive: string;

before(async () => {
  // 40 lifecycles: 200 entries and more, so several segments are due.
  ({ w, agent, archive, dir } = await startArchivingWorld(SEGMENT, 40));
  olga = await w.as('olga', ['airlock-observer']);
});
after(async () => {
  await w?.close();
  if (dir) removeTree(dir);
});

/** The real CLI: as a real Unix user (olga), or as root (who reads the archive and the database). */
const run = (as: Principal | null, args: string[]) => (as ? airlockAs(as.identity, w.d.socket, args) : airlock(['--socket', w.d.socket, ...args]));
const pub = () => join(dir, 'audit.pub');
const segments = () => readdirSync(archive).filter((n) => n.endsWith('.jsonl.gz')).sort();
const verifyJson = async (as: Principal | null, extra: string[]) => {
  // The host's checkpoint file goes with the live log; a segment carries its own heads (and later heads are not about it).
  const checkpoints = extra.includes('--bundle') ? [] : ['--checkpoints', w.d.files.checkpoints];
  const r = await run(as, ['audit', 'verify', '--pubkey', pub(), ...checkpoints, '--json', ...extra]);
  return { code: r.code, report: JSON.parse(r.stdout || '{}') as { status: string; entries: number; archived?: number; reason?: string; first_broken?: { reason: string } }, stderr: r.stderr };
};

describe('archived segments', () => {
  test('segments of the configured size left the store, each with a signed archived entry naming its file and digest', async () => {
    const names = segments();
    assert.ok(names.length >= 3, `segments: ${names.join(', ')}`);
    const live = [...readSqliteLog(w.d.files.db)];
    const base = live[0]!.seq - 1;
    assert.equal(base, names.length * SEGMENT, 'the live log starts where the last segment ends');
    const archived = live.map((r) => JSON.parse(r.body)).filter((e) => e.kind === 'archived');
    // The last archival's entry is live; the earlier ones went into later segments.
    const last = archived.at(-1)!;
    assert.deepEqual([last.details.first_seq, last.details.last_seq, last.details.file], [base - SEGMENT + 1, base, names.at(-1)]);
    const file = readFileSync(join(archive, names.at(-1)!));
    assert.equal(last.details.sha256, (await import('node:crypto')).createHash('sha256').update(file).digest('hex'));
    assert.equal(last.details.bytes, file.length);
    // The host's checkpoint file went with the segments: it holds the head of the base and later ones only.
    const sizes = readFileSync(w.d.files.checkpoints, 'utf8').trim().split('\n').map(checkpointLineSize);
    assert.ok(sizes.length > 0 && sizes.every((n) => n !== null && n >= base), `sizes in the checkpoint file: ${sizes.slice(0, 5).join(', ')}...`);
    // ...and each segment carries the heads of its two ends (no witness cosigned any here: the host's
    // own heads in between say nothing its end head does not).
    const heads = gunzipSync(readFileSync(join(archive, names[1]!))).toString('utf8').split('\n').filter((l) => l.includes('"type":"tree_head"'));
    assert.equal(heads.length, 2, `${heads.length} tree heads in the second segment`);
  });

  test('the live log verifies from the archived base (as anyone, through the daemon), and the whole history with --archive', async () => {
    const live = await verifyJson(olga, []);
    assert.equal(live.code, 0, JSON.stringify(live));
    assert.equal(live.report.archived, segments().length * SEGMENT);
    const whole = await verifyJson(null, ['--archive', archive]);
    assert.equal(whole.code, 0, JSON.stringify(whole));
    assert.equal(whole.report.archived, undefined, 'walked from entry 1');
    assert.equal(whole.report.entries, live.report.entries);
    // And straight from the database (root), the same.
    const db = await verifyJson(null, ['--db', w.d.files.db, '--archive', archive]);
    assert.equal(db.code, 0, JSON.stringify(db));
  });

  test('every segment verifies on its own, with the public key alone', async () => {
    for (const name of segments()) {
      const r = await verifyJson(null, ['--bundle', join(archive, name)]);
      assert.equal(r.code, 0, `${name}: ${JSON.stringify(r)}`);
      // With the host's checkpoint file too: its later heads are about later entries, not a cut tail of the segment.
      const withHost = await run(null, ['audit', 'verify', '--pubkey', pub(), '--bundle', join(archive, name), '--checkpoints', w.d.files.checkpoints]);
      assert.equal(withHost.code, 0, `${name} with the host's checkpoints: ${withHost.stdout}`);
    }
  });

  test('a segment missing from the archive is cannot_verify; one edited is broken', async () => {
    const copy = join(dir, 'archive');
    cpSync(archive, copy, { recursive: true });
    const names = segments();
    renameSync(join(copy, names[1]!), join(dir, 'moved.jsonl.gz'));
    const missing = await verifyJson(null, ['--archive', copy]);
    assert.equal(missing.code, 2, JSON.stringify(missing));
    assert.match(missing.report.reason!, new RegExp(`entries ${SEGMENT + 1} to ${2 * SEGMENT} are in no segment`));
    renameSync(join(dir, 'moved.jsonl.gz'), join(copy, names[1]!));
    // An entry's body edited inside the second segment (re-compressed, so only the content differs).
    const text = gunzipSync(readFileSync(join(copy, names[1]!))).toString('utf8');
    const edited = text.replace('Uptime', 'Uptimf'); // the first is inside an entry's signed body
    assert.notEqual(edited, text);
    writeFileSync(join(copy, names[1]!), gzipSync(edited));
    const broken = await verifyJson(null, ['--archive', copy]);
    assert.equal(broken.code, 1, JSON.stringify(broken));
    const alone = await verifyJson(null, ['--bundle', join(copy, names[1]!)]);
    assert.equal(alone.code, 1, JSON.stringify(alone));
  });

  test('proofs of live entries still verify; a size inside the archive is refused with archived', async () => {
    const live = [...readSqliteLog(w.d.files.db)];
    const recent = live.map((r) => JSON.parse(r.body)).find((e) => e.kind === 'outcome' && e.seq > live[0]!.seq + 5);
    const proof = await run(olga, ['audit', 'prove', recent.transaction_id, '--pubkey', pub()]);
    assert.equal(proof.code, 0, proof.stderr);
    const base = live[0]!.seq - 1;
    const cons = await run(olga, ['audit', 'consistency', String(base), '--pubkey', pub()]);
    assert.equal(cons.code, 0, cons.stderr);
    const e = await rejectsWith(olga.call('audit.consistency', { old_size: 3 }), 'validation', 'archived');
    assert.match(e.message, /archived/);
    // A transaction whose entries all left for the archive is archived, not unknown: its own code, and where to look.
    const liveIds = new Set(live.map((r) => JSON.parse(r.body).transaction_id));
    const first = gunzipSync(readFileSync(join(archive, segments()[0]!))).toString('utf8');
    const archivedId = [...first.matchAll(/tx_[0-9a-f]{24}/g)].map((m) => m[0]).find((id) => !liveIds.has(id))!;
    assert.ok(archivedId, 'the first segment holds a transaction with no live entry');
    const gone = await rejectsWith(olga.call('audit.prove', { transaction_id: archivedId }), 'validation', 'archived');
    assert.match(gone.message, new RegExp(`every entry of ${archivedId} is in the archived part of the log \\(entries 1 to ${base}\\)`));
    assert.match((gone as { hint?: string }).hint ?? '', /airlock audit verify --archive DIR/);
    await rejectsWith(olga.call('audit.prove', { transaction_id: 'tx_' + '0'.repeat(24) }), 'validation', 'no_such_transaction');
  });
});
