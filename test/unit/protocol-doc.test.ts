/**
 * docs/protocol.md is complete and stays so: an independent client is written from it.
 * - Section 6 documents every method of the method table (src/protocol/methods.ts, which
 *   types the client and the daemon's handlers, and whose keys are the welcome's
 *   capabilities), each in a section of its own, with exactly its parameters.
 * - Section 9 lists, under its category, every (category, code) pair the sources under
 *   src/ can construct, found by test/support/error-codes.ts wherever the files live; and
 *   every code the document names anywhere exists in the sources.
 * A method, a parameter or an error code added without its documentation fails here.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ERROR_CATEGORIES } from '../../src/protocol/errors.js';
import { METHODS, methodParams, type Method } from '../../src/protocol/methods.js';
import { ROOT, scanErrorCodes, type CodeSite } from '../support/error-codes.js';

const DOC_PATH = join(ROOT, 'docs', 'protocol.md');
const doc = readFileSync(DOC_PATH, 'utf8');
const lines = doc.split('\n');

/** The lines of the top-level section `## N. ...`, up to the next one. */
function section(n: number): string[] {
  const start = lines.findIndex((l) => l.startsWith(`## ${n}. `));
  assert.ok(start >= 0, `docs/protocol.md has a section ${n}`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start, end < 0 ? undefined : end);
}

/** Each table of these lines: its header cells and its body rows' cells. */
function tables(ls: string[]): Array<{ header: string[]; rows: string[][] }> {
  const out: Array<{ header: string[]; rows: string[][] }> = [];
  const cells = (l: string) =>
    l
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  let current: { header: string[]; rows: string[][] } | null = null;
  for (const l of ls) {
    if (!l.trim().startsWith('|')) {
      current = null;
      continue;
    }
    if (!current) out.push((current = { header: cells(l), rows: [] }));
    else if (!/^\|?[\s:|-]+\|?$/.test(l.trim())) current.rows.push(cells(l));
  }
  return out;
}

const backticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

// --- section 6: methods and parameters ----------------------------------------

const methodsSection = section(6);
const headings = methodsSection.flatMap((l, i) => {
  const m = /^(#{3,4}) (.*)$/.exec(l);
  return m ? [{ i, level: m[1]!.length, names: backticked(m[2]!), text: l }] : [];
});

/** The section of method M: the heading that names M and nothing else, up to the next heading of its level or above. */
function methodSection(m: Method): string[] {
  const own = headings.filter((h) => h.names.length === 1 && h.names[0] === m);
  assert.equal(own.length, 1, `section 6 of docs/protocol.md has one heading naming \`${m}\` alone (found ${own.length})`);
  const h = own[0]!;
  const next = headings.find((o) => o.i > h.i && o.level <= h.level);
  return methodsSection.slice(h.i + 1, next?.i);
}

test('section 6 gives every method of the method table a section of its own, and names no other', () => {
  for (const m of METHODS) methodSection(m);
  const known = new Set<string>(METHODS);
  for (const h of headings) {
    for (const name of h.names) assert.ok(known.has(name), `${h.text.trim()}: \`${name}\` is not a method the daemon serves (src/protocol/methods.ts)`);
  }
});

test("each method's section states exactly its parameters, and which are required", () => {
  for (const m of METHODS) {
    const body = methodSection(m);
    const expected = methodParams(m);
    const none = body.some((l) => /\bParams: none\b/.test(l));
    const paramTables = tables(body).filter((t) => t.header.join('|') === 'field|type|required|meaning');
    if (expected.length === 0) {
      assert.ok(none, `the section of \`${m}\` says "Params: none."`);
      assert.equal(paramTables.length, 0, `\`${m}\` takes no parameters, and its section has a parameter table`);
      continue;
    }
    assert.ok(!none, `the section of \`${m}\` says "Params: none", but it takes ${expected.map((p) => p.name).join(', ')}`);
    assert.equal(paramTables.length, 1, `the section of \`${m}\` has one parameter table (| field | type | required | meaning |)`);
    const documented = paramTables[0]!.rows.map((r) => {
      const names = backticked(r[0] ?? '');
      assert.equal(names.length, 1, `\`${m}\`: a parameter row names one field: ${r.join(' | ')}`);
      assert.ok(['yes', 'no'].includes(r[2] ?? ''), `\`${m}\`: the required column of ${names[0]} says yes or no`);
      return { name: names[0]!, required: r[2] === 'yes' };
    });
    const key = (ps: Array<{ name: string; required: boolean }>) => ps.map((p) => `${p.name}${p.required ? '' : '?'}`).sort();
    assert.deepEqual(key(documented), key(expected), `the parameters of \`${m}\` in docs/protocol.md (left) and in src/protocol/methods.ts (right)`);
  }
});

test('the table of who may call what covers every method', () => {
  const who = tables(methodsSection).find((t) => t.header[0] === 'method' && t.header[1] === 'who may call it');
  assert.ok(who, 'section 6.0 has the table | method | who may call it |');
  const named = who.rows.flatMap((r) => backticked(r[0] ?? ''));
  assert.deepEqual([...named].sort(), [...METHODS].sort(), 'each method once in the first column of section 6.0');
});

test('every welcome in the document advertises the capabilities the daemon sends', () => {
  const lists = [...doc.matchAll(/"capabilities"\s*:\s*(\[[^\]]*\])/g)].map((m) => JSON.parse(m[1]!) as string[]);
  assert.ok(lists.length >= 1, 'docs/protocol.md shows a welcome');
  for (const l of lists) assert.deepEqual(l, METHODS, 'capabilities are METHODS, in order (src/daemon/server.ts sends [...METHODS])');
});

// --- section 9: error codes ----------------------------------------------------

const CATEGORIES = new Set<string>(ERROR_CATEGORIES);
const CODE = /^[a-z][a-z0-9_]*$/;

/**
 * The (category, code) pairs section 9 lists: in each table's code column ("category /
 * code" or "codes"), `category/code` names a pair and a bare `code` takes the category
 * of the one before it in the cell; text in parentheses explains and is skipped.
 */
function documentedPairs(): { pairs: Set<string>; problems: string[] } {
  const pairs = new Set<string>();
  const problems: string[] = [];
  for (const t of tables(section(9))) {
    const col = t.header.findIndex((h) => h === 'category / code' || h === 'codes');
    if (col < 0) continue;
    for (const row of t.rows) {
      let cell = row[col] ?? '';
      while (/\([^()]*\)/.test(cell)) cell = cell.replace(/\([^()]*\)/g, '');
      let category: string | null = null;
      for (const token of backticked(cell)) {
        const [c, code, ...rest] = token.split('/');
        if (code !== undefined && rest.length === 0 && CATEGORIES.has(c!) && CODE.test(code)) {
          category = c!;
          pairs.add(token);
        } else if (CODE.test(token) && category) pairs.add(`${category}/${token}`);
        else problems.push(`\`${token}\` in "${row.join(' | ').slice(0, 100)}" is neither category/code nor a code after one (put explanations in parentheses)`);
      }
    }
  }
  return { pairs, problems };
}

/** Scanned once: building the program takes seconds. */
let scanned: ReturnType<typeof scanErrorCodes> | null = null;
const scan = () => (scanned ??= scanErrorCodes());

test('every error the sources can construct is found (no construction the scanner cannot read)', () => {
  const { pairs, unresolved } = scan();
  assert.deepEqual(unresolved, [], 'teach test/support/error-codes.ts the new construction, or write the category and code as literals');
  // Constructions of each kind the scanner follows, so a scanner that quietly finds less fails here.
  const found = new Set(pairs.map((p) => `${p.category}/${p.code}`));
  for (const known of ['validation/bad_params', 'authorization/not_yours', 'stale_approval/receipt_already_consumed', 'execution/apt_failed', 'validation/bad_json', 'authorization/program_refused', 'integrity/internal']) {
    assert.ok(found.has(known), `the scan finds ${known}`);
  }
});

test('section 9 lists every (category, code) the sources construct, under its category', () => {
  const { pairs, problems } = documentedPairs();
  assert.deepEqual(problems, [], 'section 9 code columns hold codes only');
  const missing = new Map<string, CodeSite[]>();
  for (const site of scan().pairs) {
    const key = `${site.category}/${site.code}`;
    if (!pairs.has(key)) missing.set(key, [...(missing.get(key) ?? []), site]);
  }
  const report = [...missing].map(([k, sites]) => `${k} (${[...new Set(sites.map((s) => s.at))].slice(0, 3).join(', ')})`);
  assert.deepEqual(report, [], 'codes raised in src/ and absent from section 9 of docs/protocol.md: document each in 9.2 to 9.5');
});

test('every code the document names exists in the sources', () => {
  const real = new Set(scan().pairs.map((p) => `${p.category}/${p.code}`));
  const listed = [...documentedPairs().pairs];
  // Anywhere in the text, `category/code` is a claim about the protocol too.
  const mentioned = backticked(doc).filter((t) => {
    const [c, code, ...rest] = t.split('/');
    return code !== undefined && rest.length === 0 && CATEGORIES.has(c!) && CODE.test(code);
  });
  const stale = [...new Set([...listed, ...mentioned])].filter((k) => !real.has(k)).sort();
  assert.deepEqual(stale, [], 'docs/protocol.md names codes nothing in src/ constructs');
});

test('the scanner follows helpers, ternaries and templates per call, and reports what it cannot read', () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-codes-'));
  try {
    mkdirSync(join(root, 'src'));
    const file = join(root, 'src', 'fixture.ts');
    writeFileSync(
      file,
      `type Category = 'validation' | 'conflict' | 'authorization';
class AirlockError extends Error {
  constructor(readonly category: Category, readonly code: string, message: string) { super(message); }
}
const fail = (category: Category, code: string, message: string): never => { throw new AirlockError(category, code, message); };
const no = (code: string) => ({ ok: false, refusal: { category: 'authorization' as const, code, message: 'no' } });
function a() {
  const up = Math.random() > 0.5;
  const kind: 'x' | 'y' = up ? 'x' : 'y';
  fail('validation', 'plain', 'm');
  fail('conflict', up ? 'already_up' : 'already_down', 'm');
  no('not_yours');
  const e = new AirlockError('validation', \`\${kind}_failed\`, 'm');
  throw new AirlockError(e.category, e.code, 'forwarded');
}
function b(s: string) {
  throw new AirlockError('validation', s, 'unknown');
}
const c = (code: string) => new AirlockError('conflict', code, 'never called');
a();
b(String(1));
void c;
`,
    );
    const r = scanErrorCodes({ root, files: [file] });
    const found = [...new Set(r.pairs.map((p) => `${p.category}/${p.code}`))].sort();
    assert.deepEqual(found, ['authorization/not_yours', 'conflict/already_down', 'conflict/already_up', 'validation/plain', 'validation/x_failed', 'validation/y_failed']);
    // b's caller passes a string nobody can read; c is never called, so its code is unknown.
    assert.equal(r.unresolved.length, 2, r.unresolved.join('\n'));
    assert.match(r.unresolved.join('\n'), /fixture\.ts:\d+: cannot tell what "String\(1\)" holds/);
    assert.match(r.unresolved.join('\n'), /fixture\.ts:\d+: no call of c passes its parameter code/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
