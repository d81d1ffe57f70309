/**
 * `airlock --help` must start in at most 3x a bare `node -e 0` (`npm run bench` measures
 * it). What the CLI loads before it parses the command line is its static imports from
 * src/cli/main.ts on: this test holds them to a list of small modules. Everything else
 * (the client, renderers, zod, the catalogue, SQLite, the policy parser, the sandbox) is
 * imported inside the action of the command that needs it (src/cli/lazy.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** What main.ts may load before the command line is parsed: commander, the declarations, and small pure modules. */
const ALLOWED_FILES = new Set([
  'cli/main.ts',
  'cli/lazy.ts',
  'cli/ui.ts',
  // How an error's wrong-typed parameter is sent on the command line (ui.ts prints it): one pure function.
  'cli/params-arg.ts',
  // The version commander shows for --version: one small file read (package.json).
  'cli/version.ts',
  // Command groups declared in their own files; their actions import what they run with.
  'cli/admin.ts',
  'cli/audit.ts',
  'cli/policy.ts',
  'cli/token.ts',
  'cli/witness.ts',
  'cli/totp.ts',
  'cli/passkey.ts',
  'cli/sessions.ts',
  'cli/grants.ts',
  'cli/keys.ts',
  'cli/fleet.ts',
  'mcp/command.ts',
  'cli/setup/index.ts',
  // The colours ui.ts re-exports (the MCP server's preview render shares them).
  'client/colour.ts',
  'client/stale-groups.ts',
  'protocol/account-files.ts',
  // A compacted transaction's guard (cli/policy.ts's inbox refuses to act on one): one pure function.
  'protocol/compacted.ts',
  'protocol/defaults.ts',
  'protocol/errors.ts',
  'protocol/escape-text.ts',
  'protocol/risk.ts',
  // The relay's default socket and folder, for the many-hosts commands' options (cli/fleet.ts).
  'protocol/relay.ts',
]);
const ALLOWED_PACKAGES = new Set(['commander', 'node:child_process', 'node:fs', 'node:path', 'node:url']);

/**
 * The module specifiers a file imports statically, as values: `import type` and
 * `export type` are erased by the compiler, and `await import()` runs only when called.
 */
export function staticImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^[ \t]*(?:import|export)[ \t]+(?!type[ \t{])([^;'"]*?from[ \t]*)?['"]([^'"]+)['"]/gm)) {
    if (m[1] === undefined && !/^[ \t]*import/.test(m[0])) continue; // `export ... ` without from
    out.push(m[2]!);
  }
  return out;
}

/** The static import closure of src/<entry>: files under src/ (relative) and packages. */
function closure(entry: string): { files: Set<string>; packages: Set<string>; via: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const via = new Map<string, string>();
  const visit = (rel: string) => {
    if (files.has(rel)) return;
    files.add(rel);
    for (const spec of staticImports(readFileSync(join(SRC, rel), 'utf8'))) {
      if (!spec.startsWith('.')) {
        if (!packages.has(spec)) via.set(spec, rel);
        packages.add(spec);
        continue;
      }
      const target = relative(SRC, resolve(SRC, dirname(rel), spec.replace(/\.js$/, '.ts')));
      assert.ok(existsSync(join(SRC, target)), `${rel} imports ${spec}, which is not a file under src/`);
      if (!files.has(target)) via.set(target, rel);
      visit(target);
    }
  };
  visit(entry);
  return { files, packages, via };
}

test('the import scanner sees value imports and skips type-only and dynamic ones', () => {
  const text = [
    "import { a } from './a.js';",
    "import type { B } from './b.js';",
    "import {\n  c,\n  d,\n} from './c.js';",
    "import './side-effect.js';",
    "export { e } from './e.js';",
    "export type { F } from './f.js';",
    "export const g = 1;",
    "const h = await import('./h.js');",
    " * import { i } from './i.js' in a comment's prose is indented with a star",
  ].join('\n');
  assert.deepEqual(staticImports(text), ['./a.js', './c.js', './side-effect.js', './e.js']);
});

test("the CLI's start-up imports only commander, the command declarations and small pure modules", () => {
  const { files, packages, via } = closure('cli/main.ts');
  const extraFiles = [...files].filter((f) => !ALLOWED_FILES.has(f));
  const extraPackages = [...packages].filter((p) => !ALLOWED_PACKAGES.has(p));
  const why = (x: string) => `${x} (imported by ${via.get(x)})`;
  assert.deepEqual(
    [...extraFiles, ...extraPackages].map(why),
    [],
    "these load at every `airlock` start-up: import them inside the command's action instead (lazy() in src/cli/lazy.ts, or `await import()`), or, for a small pure module, add it to the list in this test",
  );
});
