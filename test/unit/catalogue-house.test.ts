/**
 * The catalogue's shape, which is also a trust boundary: every family lives in its own
 * folder and shares code only through src/catalogue/lib/, so a reviewer reads one folder
 * to know one family, and a change to one family cannot reach another's behaviour except
 * through a library both name. The daemon loads exactly the actions the folders' index
 * files list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinModules } from 'node:module';
import { FAMILIES, type AnyAction } from '../../src/catalogue/action.js';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { PROGRAM_TABLES } from '../../src/catalogue/programs.js';

const CAT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'catalogue');
const FAMILIES_DIR = join(CAT, 'families');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every module specifier a file imports or re-exports, static or dynamic. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms)) out.push(m[1]!);
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) out.push(m[1]!);
  return out;
}

/**
 * What a family file may import: node's built-ins, zod, its own folder, the catalogue's
 * library, the declaration types, the parameter validators, the mechanism step shapes,
 * the program table's types, and the typed error it refuses with. An allowlist: a new
 * kind of import is a decision a reviewer makes here.
 */
function allowedImport(file: string, spec: string): boolean {
  if (spec.startsWith('node:') || builtinModules.includes(spec)) return true;
  if (spec === 'zod') return true;
  if (!spec.startsWith('.')) return false;
  const target = resolve(dirname(file), spec);
  const own = dirname(file);
  if (dirname(target) === own) return true;
  const rel = relative(CAT, target);
  if (rel.startsWith('lib/') && !rel.slice(4).includes('/')) return true;
  // rollback.js: how a change is undone; change-record.js: what a finished change keeps (the revert family reads it).
  if (['params.js', 'mechanism.js', 'action.js', 'programs.js', 'rollback.js', 'change-record.js'].includes(rel)) return true;
  return relative(CAT, target) === '../protocol/errors.js';
}

test('the family folders are exactly FAMILIES, and nothing else lives in families/', () => {
  const entries = readdirSync(FAMILIES_DIR);
  const folders: string[] = entries.filter((e) => statSync(join(FAMILIES_DIR, e)).isDirectory()).sort();
  assert.deepEqual(folders, [...FAMILIES].sort() as string[]);
  assert.deepEqual(
    entries.filter((e) => !folders.includes(e)),
    [],
    'a file directly under families/ belongs to a family folder or to lib/',
  );
});

test('files under families/ import only their own folder, lib/, params, mechanism, action, programs, rollback, change-record and the error type', () => {
  const bad: string[] = [];
  for (const file of filesUnder(FAMILIES_DIR)) {
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (!allowedImport(file, spec)) bad.push(`${relative(CAT, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('the library never imports a family', () => {
  const bad: string[] = [];
  for (const file of filesUnder(join(CAT, 'lib'))) {
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.') && relative(CAT, resolve(dirname(file), spec)).startsWith('families/')) bad.push(`${relative(CAT, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("each folder's index lists its actions explicitly, and each declares the folder's family", async () => {
  const seen = new Set<string>();
  for (const family of FAMILIES) {
    const mod = (await import(join(FAMILIES_DIR, family, 'index.ts'))) as { actions?: readonly AnyAction[] };
    assert.ok(Array.isArray(mod.actions) && mod.actions.length > 0, `families/${family}/index.ts exports a non-empty actions list`);
    for (const a of mod.actions!) {
      assert.equal(a.family, family, `${a.name} is listed in families/${family}/ but declares family ${a.family}`);
      assert.ok(!seen.has(a.name), `${a.name} is listed twice`);
      seen.add(a.name);
      assert.equal(CATALOGUE.get(a.name), a, `${a.name} is in the catalogue as listed`);
    }
  }
  assert.deepEqual([...CATALOGUE.keys()].filter((n) => !seen.has(n)), [], 'every catalogue action is listed by a family index');
});

test('every action the family files declare is listed in their index (none is left out by accident)', () => {
  const missing: string[] = [];
  for (const file of filesUnder(FAMILIES_DIR)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/^\s*name: '([A-Z][A-Za-z0-9]+)',$/gm)) {
      if (!CATALOGUE.has(m[1]!)) missing.push(`${relative(CAT, file)}: ${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('no file under src/catalogue passes 400 lines', () => {
  const long = filesUnder(CAT)
    .map((f) => ({ f: relative(CAT, f), n: readFileSync(f, 'utf8').split('\n').length }))
    .filter((x) => x.n > 400)
    .map((x) => `${x.f}: ${x.n} lines`);
  assert.deepEqual(long, []);
});

/** Programs a file names where it runs one: `command('X', ...)` steps and `host.run('X', ...)` reads. */
const programsRun = (text: string) => [...text.matchAll(/\b(?:command|run)\(\s*'([a-z0-9.+-]+)'/g)].map((m) => m[1]!);

test("every program a family's files run is in its own table or the library's, and the library's runs are in its table", () => {
  const tables = PROGRAM_TABLES as unknown as Record<string, Record<string, readonly string[]>>;
  const missing: string[] = [];
  for (const family of FAMILIES) {
    for (const file of filesUnder(join(FAMILIES_DIR, family))) {
      for (const p of programsRun(readFileSync(file, 'utf8'))) {
        if (!(p in tables[family]!) && !(p in tables.lib!)) missing.push(`${relative(CAT, file)} runs ${p}, which families/${family}/programs.ts does not list`);
      }
    }
  }
  for (const file of filesUnder(join(CAT, 'lib'))) {
    for (const p of programsRun(readFileSync(file, 'utf8'))) if (!(p in tables.lib!)) missing.push(`${relative(CAT, file)} runs ${p}, which lib/programs.ts does not list`);
  }
  assert.deepEqual(missing, []);
});

test('a program named in several tables has the same candidate paths in each', () => {
  const seen = new Map<string, { table: string; paths: string }>();
  const differ: string[] = [];
  for (const [table, programs] of Object.entries(PROGRAM_TABLES as unknown as Record<string, Record<string, readonly string[]>>)) {
    for (const [name, paths] of Object.entries(programs)) {
      const p = JSON.stringify(paths);
      const before = seen.get(name);
      if (before && before.paths !== p) differ.push(`${name}: ${before.table} has ${before.paths}, ${table} has ${p}`);
      seen.set(name, { table, paths: p });
    }
  }
  assert.deepEqual(differ, []);
});
