/**
 * src/protocol/safe-write.ts, the one way the command line writes a file (issue 22, finding 1):
 *   - a source scan: no file of the client side (cli, client, mcp, planner, audit, witness)
 *     writes, renames, changes the mode or owner of, or creates a file by name; only the helper does;
 *   - the helper refuses a folder another account can change, follows only this account's or
 *     root's links, and sets the mode it is told on the descriptor, whatever the umask.
 * The race itself, with real accounts, is test/integration/client-files.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeFolderSafely, removeFileSafely, writeFileSafely } from '../../src/protocol/safe-write.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const CLIENT_SIDE = ['cli', 'client', 'mcp', 'planner', 'audit', 'witness'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** node:fs functions that change a file or folder by its name; and the open flags that create or write. */
const BY_NAME = /^(writeFile|appendFile|rename|chmod|lchmod|chown|lchown|mkdir|copyFile|cp|createWriteStream|symlink|link|truncate|utimes|lutimes)(Sync)?$/;
const WRITE_FLAGS = /\bO_(CREAT|WRONLY|RDWR|TRUNC|APPEND)\b/g;

/** What a file takes from node:fs that changes things by name (and any namespace or promises import, which hides it). */
function byName(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/import\s+([^;]*?)\s+from\s+'(node:)?fs(\/promises)?'/g)) {
    if (m[3] || !m[1]!.trim().startsWith('{')) out.push(`import ${m[1]} from '${m[2] ?? ''}fs${m[3] ?? ''}'`);
    else out.push(...m[1]!.replace(/[{}]/g, '').split(',').map((n) => n.trim().split(/\s+as\s+/)[0]!).filter((n) => BY_NAME.test(n)));
  }
  for (const m of code.matchAll(WRITE_FLAGS)) out.push(m[0]);
  return out;
}

test('no client-side file writes, renames, chmods or chowns by name: only src/protocol/safe-write.ts does', () => {
  const found: string[] = [];
  for (const dir of CLIENT_SIDE) {
    for (const f of filesUnder(join(SRC, dir))) {
      const code = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, ''); // comments may name the calls
      for (const what of byName(code)) found.push(`${relative(SRC, f)}: ${what}`);
    }
  }
  assert.deepEqual(found, [], 'write through writeFileSafely / NewFile / makeFolderSafely (src/protocol/safe-write.ts)');
  // The scan can fail: the helper itself is what it would flag.
  assert.ok(byName(readFileSync(join(SRC, 'protocol', 'safe-write.ts'), 'utf8')).length > 3);
});

const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'airlock-safe-write-'));
  chmodSync(d, 0o755);
  return d;
};

test('a folder another account owns, or every account can write without the sticky bit, is refused with what to do', () => {
  const d = scratch();
  try {
    const theirs = join(d, 'theirs');
    mkdirSync(theirs);
    chownSync(theirs, 61740, 61740);
    assert.throws(() => writeFileSafely(join(theirs, 'f'), 'x', { mode: 0o644 }), (e: any) => e.code === 'unsafe_folder' && /uid 61740 owns it/.test(e.message) && /write it as the account that owns/.test(e.hint));
    const open = join(d, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    assert.throws(() => writeFileSafely(join(open, 'f'), 'x', { mode: 0o644 }), /every account can write it/);
    // Group-writable by a group nobody is known to be in: who could write is unknown, so refused.
    const team = join(d, 'team');
    mkdirSync(team);
    chownSync(team, 0, 61741);
    chmodSync(team, 0o775);
    assert.throws(() => writeFileSafely(join(team, 'f'), 'x', { mode: 0o644 }), /its group \(gid 61741\) can write it/);
    // Sticky (/tmp's way): fine, an entry there is replaced only by its owner.
    chmodSync(open, 0o1777);
    writeFileSafely(join(open, 'f'), 'x', { mode: 0o640 });
    assert.equal(statSync(join(open, 'f')).mode & 0o7777, 0o640);
    // The file's owner may own the folder (root writing an account's own file).
    writeFileSafely(join(theirs, 'f'), 'y', { mode: 0o600, owner: { uid: 61740, gid: 61740 } });
    const st = statSync(join(theirs, 'f'));
    assert.deepEqual([st.uid, st.gid, st.mode & 0o7777, readFileSync(join(theirs, 'f'), 'utf8')], [61740, 61740, 0o600, 'y']);
    assert.deepEqual(readdirSync(theirs), ['f'], 'no temporary file left');
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test("links: root's or this account's are followed, another account's refused; the file itself is replaced, never followed", () => {
  const d = scratch();
  try {
    mkdirSync(join(d, 'real'));
    symlinkSync(join(d, 'real'), join(d, 'mine'));
    writeFileSafely(join(d, 'mine', 'f'), 'a', { mode: 0o644 });
    assert.equal(readFileSync(join(d, 'real', 'f'), 'utf8'), 'a');
    symlinkSync(join(d, 'real'), join(d, 'planted'));
    lchownSync(join(d, 'planted'), 61742, 61742);
    assert.throws(() => writeFileSafely(join(d, 'planted', 'f'), 'b', { mode: 0o644 }), /planted is a symbolic link of uid 61742/);
    writeFileSync(join(d, 'victim'), 'v', { mode: 0o600 });
    symlinkSync(join(d, 'victim'), join(d, 'real', 'g'));
    writeFileSafely(join(d, 'real', 'g'), 'new', { mode: 0o666 });
    assert.ok(!lstatSync(join(d, 'real', 'g')).isSymbolicLink());
    assert.deepEqual([statSync(join(d, 'victim')).mode & 0o777, readFileSync(join(d, 'victim'), 'utf8')], [0o600, 'v']);
    assert.throws(() => writeFileSafely(join(d, 'real', 'f'), 'c', { mode: 0o644, exclusive: true }), (e: any) => e.code === 'file_exists');
    removeFileSafely(join(d, 'real', 'f'));
    assert.ok(!readdirSync(join(d, 'real')).includes('f'));
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('folders are made with the mode asked, whatever the umask, and an existing one is set to it', () => {
  const d = scratch();
  const old = process.umask(0o077);
  try {
    writeFileSafely(join(d, 'a', 'b', 'f'), 'x', { mode: 0o644, folders: { mode: 0o755 } });
    assert.equal(statSync(join(d, 'a', 'b')).mode & 0o7777, 0o755);
    assert.equal(statSync(join(d, 'a', 'b', 'f')).mode & 0o7777, 0o644);
    makeFolderSafely(join(d, 'a', 'b'), 0o711);
    assert.equal(statSync(join(d, 'a', 'b')).mode & 0o7777, 0o711);
    assert.throws(() => writeFileSafely(join(d, 'missing', 'f'), 'x', { mode: 0o644 }), (e: any) => e.code === 'not_found');
  } finally {
    process.umask(old);
    rmSync(d, { recursive: true, force: true });
  }
});
