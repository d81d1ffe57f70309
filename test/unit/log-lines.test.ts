/**
 * The daemon's stderr lines: those of one turn of the event loop go out in one write, in
 * order and each with the daemon's prefix; a burst past FLUSH_CHARS goes out at once; and
 * lines held when the process exits (a fatal error's last words) are not lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { daemonLogLine, FLUSH_CHARS } from '../../src/daemon/log-lines.js';

/** What process.stderr.write is given while `fn` runs, and until the turn after it. */
async function stderrWrites(fn: () => void): Promise<{ now: string[]; after: string[] }> {
  const writes: string[] = [];
  const real = process.stderr.write;
  process.stderr.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    fn();
    const now = [...writes];
    await new Promise((r) => setImmediate(r));
    return { now, after: writes };
  } finally {
    process.stderr.write = real;
  }
}

test("one turn's lines are one write at the end of the turn, in order, each prefixed", async () => {
  const w = await stderrWrites(() => {
    daemonLogLine('alice previewed Uptime tx_1');
    daemonLogLine('alice approved Uptime tx_1');
  });
  assert.deepEqual(w.now, [], 'nothing is written before the turn ends');
  assert.deepEqual(w.after, ['airlock-daemon: alice previewed Uptime tx_1\nairlock-daemon: alice approved Uptime tx_1\n']);
});

test('a burst past FLUSH_CHARS is written at once, not held to the end of the turn', async () => {
  const line = 'x'.repeat(1000);
  const count = Math.ceil(FLUSH_CHARS / line.length) + 1;
  const w = await stderrWrites(() => {
    for (let i = 0; i < count; i++) daemonLogLine(line);
  });
  assert.equal(w.now.length, 1, 'one write when the bound was passed');
  assert.ok(w.now[0]!.length >= FLUSH_CHARS && w.now[0]!.length < FLUSH_CHARS + line.length + 100);
  assert.equal(w.after.join('').split('\n').filter(Boolean).length, count, 'every line, once');
});

test('lines held when the process exits are written', () => {
  const module = fileURLToPath(new URL('../../src/daemon/log-lines.ts', import.meta.url));
  const script = `import { daemonLogLine } from ${JSON.stringify(module)}; daemonLogLine('last words'); process.exit(3);`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 3, r.stderr);
  assert.equal(r.stderr, 'airlock-daemon: last words\n');
});
