/**
 * An attacker's review of archival (issue 15): someone who can write the database and the
 * archive directory, but does not hold the audit key, tries to make `airlock audit verify` say
 * intact for a log that lost entries. A real daemon archives segments of 40 entries; each attack
 * edits a copy (the database through SQLite, a segment through gzip) and runs the real CLI.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startArchivingWorld } from '../support/archiving-world.js';
import type { World } from '../support/world.js';
import { airlock } from '../support/cli.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { removeTree } from '../support/fs.js';
import { daemonSource } from '../../src/client/audit-source.js';
import { verifySource } from '../../src/audit/source.js';
import { parsePublicKey } from '../../src/audit/keys.js';
import type { AirlockClient } from '../../src/client/client.js';
import { bundleSource } from '../../src/audit/bundle.js';
import { leafHash, nodeHash } from '../../src/audit/merkle.js';
import { parseCheckpointBody, parseNote, readTreeHeadLines } from '../../src/audit/note.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { entryHash } from '../../src/audit/entry.js';

const SEGMENT = 40;
let w: World;
let agent: Principal;
let dir: string;
let archive: string;

before(async () => {
  ({ w, agent, archive, dir } = await startArchivingWorld(SEGMENT, 40));
});
after(async () => {
  await w?.close();
  if (dir) removeTree(dir);
});

const cli = (args: string[]) => airlock(['--socket', w.d.socket, ...args]);
const verify = async (extra: string[]) => {
  const r = await cli(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--json', ...extra]);
  return { code: r.code, report: JSON.parse(r.stdout || '{}') as { status: string; entries: number; archived?: number; reason?: string; first_broken?: { reason: string } }, stderr: r.stderr };
};
const segments = () => readdirSync(archive).filter((n) => n.endsWith('.jsonl.gz')).sort();

/** The signed heads of the host's checkpoint file, by size (the attacker can read them: they are public). */
function headsBySize(checkpoints: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const r of readTreeHeadLines(readFileSync(checkpoints, 'utf8'))) {
    if (!('note' in r)) continue;
    const note = parseNote(r.note);
    if (typeof note === 'string') continue;
    const body = parseCheckpointBody(note.body);
    if (typeof body !== 'string') out.set(body.size, r.note);
  }
  return out;
}

/** RFC 9162 MTH of a complete subtree of leaf hashes. */
function subtree(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 1) return leaves[0]!;
  const half = leaves.length / 2;
  return nodeHash(subtree(leaves.slice(0, half)), subtree(leaves.slice(half)));
}

/** The frontier at `size` as a LogBase holds it: the complete subtrees of size's binary decomposition, largest first. */
function frontierAt(leaves: readonly Buffer[], size: number): string[] {
  const out: string[] = [];
  let at = 0;
  for (let bit = 52; bit >= 0; bit--) {
    const n = 2 ** bit;
    if (size - at >= n) {
      out.push(subtree(leaves.slice(at, at + n)).toString('hex'));
      at += n;
    }
  }
  return out;
}

/**
 * A copy of the daemon's database, made through SQLite's backup (the WAL included), and of its
 * checkpoint file, taken first: the daemon appends a head only after its entries commit, so the
 * copy holds every entry the copied heads cover (it is still running and may write more).
 */
async function copyDb(name: string): Promise<{ path: string; checkpoints: string }> {
  const out = join(dir, name);
  const checkpoints = join(dir, `${name}.checkpoints`);
  writeFileSync(checkpoints, readFileSync(w.d.files.checkpoints));
  const db = new Database(w.d.files.db, { readonly: true, fileMustExist: true });
  try {
    await db.backup(out);
  } finally {
    db.close();
  }
  return { path: out, checkpoints };
}

describe('archival under attack (write access to the store and the archive, no audit key)', () => {
  test('a forged base that drops live entries (no archived entry names it) is not intact', async () => {
    const { path, checkpoints } = await copyDb('forged-base.db');
    const db = new Database(path);
    const base = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'log_base'").pluck().get() as string) as { seq: number };
    const live = [...readSqliteLog(path)].map((r) => ({ ...r, hash: entryHash(r.body) }));
    const size = live.at(-1)!.seq;
    // A signed head of the host's, inside the live log, well before its end: the new base.
    const heads = headsBySize(checkpoints);
    const k = [...heads.keys()].filter((s) => s >= base.seq + 5 && s <= size - 5).sort((a, b) => a - b)[0];
    assert.ok(k !== undefined, `a head inside the live log ${base.seq + 1}-${size}: ${[...heads.keys()].join(',')}`);
    // Every leaf up to k: the archive's segments, then the live rows (all public to an auditor).
    const bodies: string[] = [];
    for (const name of segments()) for await (const r of bundleSource(join(archive, name)).entries()) if (r.seq <= base.seq) bodies.push(r.body);
    for (const r of live) if (r.seq <= k) bodies.push(r.body);
    assert.equal(bodies.length, k);
    const forged = { seq: k, hash: live.find((r) => r.seq === k)!.hash, frontier: frontierAt(bodies.map((b) => leafHash(b)), k), tree_head: heads.get(k)! };
    db.prepare('DELETE FROM audit_log WHERE seq <= ?').run(k);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'log_base'").run(JSON.stringify(forged));
    db.close();
    // The entries base+1..k are gone, and no signed entry says so: the host's own checkpoint file is given.
    const r = await verify(['--db', path, '--checkpoints', checkpoints]);
    assert.notEqual(r.report.status, 'intact', `entries ${base.seq + 1} to ${k} were deleted, and verify says ${JSON.stringify(r.report)}`);
    assert.notEqual(r.code, 0);
  });

  // The header's segment range sets later heads aside, so it is signed by the log's key: a segment
  // cut to a size some head covers, relabelled, is not the segment archived.
  test('a segment cut short, its header and end record rewritten to the shorter range, is not intact on its own', async () => {
    const names = segments();
    const name = names[1]!;
    const lines = gunzipSync(readFileSync(join(archive, name))).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const header = lines[0] as { segment: { first_seq: number; last_seq: number } };
    // Drop the segment's last 10 entries, and say so everywhere the file is only its own word.
    const cut = header.segment.last_seq - 10;
    const kept = lines.filter((r) => r.type !== 'entry' || (r.seq as number) <= cut);
    header.segment.last_seq = cut;
    const end = kept.at(-1)!;
    end.entries = kept.filter((r) => r.type === 'entry').length;
    const forged = join(dir, name);
    writeFileSync(forged, gzipSync(kept.map((r) => JSON.stringify(r)).join('\n') + '\n'));
    // The host's checkpoint file holds heads of every size up to the segment's real end.
    const r = await verify(['--bundle', forged, '--checkpoints', w.d.files.checkpoints]);
    assert.notEqual(r.report.status, 'intact', `entries ${cut + 1} to ${cut + 10} were cut from ${name}, and verify says ${JSON.stringify(r.report)}`);
  });

  test('a segment cut short to a size no signed head covers is broken on its own (its signed range no longer matches); untouched, with the host\'s later heads, it is intact', async () => {
    const name = segments()[1]!;
    const lines = gunzipSync(readFileSync(join(archive, name))).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const header = lines[0] as { segment: { first_seq: number; last_seq: number } };
    const realEnd = header.segment.last_seq;
    const cut = realEnd - 10;
    // The entries past the cut go, and every head and checkpoint line but the start's (the head of size first_seq - 1).
    const startSize = String(header.segment.first_seq - 1);
    const kept = lines.filter((r) => !(r.type === 'entry' && (r.seq as number) > cut) && r.type !== 'checkpoint' && !(r.type === 'tree_head' && (r.note as string).split('\n')[1] !== startSize));
    assert.ok(realEnd > cut);
    header.segment.last_seq = cut;
    const end = kept.at(-1)!;
    end.entries = kept.filter((r) => r.type === 'entry').length;
    end.tree_heads = kept.filter((r) => r.type === 'tree_head').length;
    end.checkpoints = 0;
    const forged = join(dir, `alone-${name}`);
    writeFileSync(forged, gzipSync(kept.map((r) => JSON.stringify(r)).join('\n') + '\n'));
    const alone = await verify(['--bundle', forged]);
    assert.equal(alone.report.status, 'broken', JSON.stringify(alone.report));
    assert.match(alone.report.first_broken!.reason, /range \(entries \d+ to \d+\) is not signed by the log's key/);
    // The untouched segment with the host's later heads: intact, those heads set aside as about later entries.
    const whole = await cli(['audit', 'verify', '--pubkey', join(dir, 'audit.pub'), '--json', '--bundle', join(archive, name), '--checkpoints', w.d.files.checkpoints]);
    assert.equal(whole.code, 0, whole.stdout);
    assert.ok((JSON.parse(whole.stdout) as { warnings: string[] }).warnings.some((x) => /set aside/.test(x)), whole.stdout);
  });

  test('an archival while the daemon\'s log is being read is not reported as entries deleted', async () => {
    // The auditor's reader (the real daemonSource, over a real user's connection) learns the base...
    const src = daemonSource(agent as unknown as AirlockClient, w.d.socket);
    const started = await src.start!();
    assert.ok(started);
    // ...and before its pages come, the sweep archives the next segment (as it may at any time).
    const r = await agent.op<{ done: number }>('agentLoop', { action: 'Uptime', params: {}, count: 20, concurrency: 4, timeLimitMs: 60_000 });
    assert.equal(r.done, 20);
    const deadline = Date.now() + 30_000;
    const watcher = daemonSource(agent as unknown as AirlockClient, w.d.socket);
    while (((await watcher.start!())?.start.seq ?? 0) === started.start.seq) {
      if (Date.now() > deadline) throw new Error('no archival came');
      await new Promise((r) => setTimeout(r, 100));
    }
    const pub = parsePublicKey(readFileSync(w.d.files.publicKey, 'utf8'));
    const outcome = await verifySource({ ...src, start: async () => started }, pub, { workers: 1 }).then(
      (rep) => rep.status,
      (e: { category?: string; code?: string }) => `${e.category}/${e.code}`,
    );
    // Nothing was deleted: a reader that saw the log move on says so (run again), it does not cry tampering.
    assert.equal(outcome, 'transient/log_archived');
  });

  // Last: it changes the policy in force.
  test('an archive_dir whose parent a user owns: the link they plant there is not followed (no chmod, no segment written through it)', async () => {
    // A stand-in for /etc: a root-owned directory the daemon must leave alone.
    const target = join(w.d.box.shared, 'not-the-archive');
    mkdirSync(target, { mode: 0o755 });
    chmodSync(target, 0o755);
    // The policy names a directory under one the agent's user owns; the user replaces it with a link.
    const theirs = join(w.d.box.shared, 'agent-owned');
    mkdirSync(theirs, { mode: 0o755 });
    chownSync(theirs, agent.identity.uid, agent.identity.gid);
    symlinkSync(target, join(theirs, 'archive'));
    writeFileSync(join(w.d.box.shared, 'policy.toml'), `[store]\narchive_segment_entries = ${SEGMENT}\narchive_dir = "${join(theirs, 'archive')}"\n`);
    await w.reload();
    const r = await agent.op<{ done: number }>('agentLoop', { action: 'Uptime', params: {}, count: 40, concurrency: 4, timeLimitMs: 60_000 });
    assert.equal(r.done, 40);
    // Several sweeps at 0.2 s: an archival is due (the live log holds two segments and more).
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(lstatSync(join(theirs, 'archive')).isSymbolicLink(), true);
    assert.equal(statSync(target).mode & 0o7777, 0o755, 'the daemon changed the mode of the directory the link points to');
    assert.deepEqual(readdirSync(target), [], 'the daemon wrote segments through a link a user planted');
    assert.ok(w.d.logs.some((l) => /archival failed.*refusing .*agent-owned\/archive/.test(l)), `the daemon says why it did not archive:\n${w.d.logs.filter((l) => /archiv/.test(l)).slice(-5).join('\n')}`);
  });
});
