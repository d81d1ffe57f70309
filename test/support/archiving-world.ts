/**
 * A real daemon that archives small segments ([store] archive_segment_entries), with a fast sweep
 * and a head after every append, after an agent (a real Unix user, airlock-observer) ran
 * auto-approved reads enough for several segments; returned once no segment is due any more and
 * the last archival's trim of the checkpoint file is done. Also a directory holding the public key,
 * for auditors' commands. For the archive's tests (archive.test.ts, archive-attacks.test.ts).
 */
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorld, type World } from './world.js';
import { tempDir } from './fs.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import type { Principal } from '../../src/sandbox/principal.js';

export interface ArchivingWorld {
  w: World;
  agent: Principal;
  /** The daemon's archive directory. */
  archive: string;
  /** A directory (mode 0777) holding audit.pub; remove it with removeTree. */
  dir: string;
}

export async function startArchivingWorld(segment: number, lifecycles: number): Promise<ArchivingWorld> {
  const w = await startWorld(['--sweep-interval', '0.2', '--checkpoint-interval', '0'], 'overlay', { policy: `[store]\narchive_segment_entries = ${segment}\n` });
  const agent = await w.as('agent', ['airlock-observer']);
  const r = await agent.op<{ done: number; refused: Record<string, number> }>('agentLoop', { action: 'Uptime', params: {}, count: lifecycles, concurrency: 4, timeLimitMs: 60_000 });
  assert.deepEqual([r.done, r.refused], [lifecycles, {}]);
  // The sweep archives one segment at a time: wait until the live log holds under two segments.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const live = [...readSqliteLog(w.d.files.db)].length;
    if (live < 2 * segment) break; // no segment is due any more
    if (Date.now() > deadline) throw new Error(`still ${live} live entries`);
    await new Promise((res) => setTimeout(res, 200));
  }
  await new Promise((res) => setTimeout(res, 1000)); // the last archival's trim of the checkpoint file follows its commit
  const dir = tempDir('airlock-archive-');
  chmodSync(dir, 0o777);
  writeFileSync(join(dir, 'audit.pub'), readFileSync(w.d.files.publicKey, 'utf8'), { mode: 0o644 });
  return { w, agent, archive: join(w.d.stateDir, 'archive'), dir };
}
