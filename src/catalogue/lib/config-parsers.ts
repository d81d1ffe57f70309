/**
 * The daemon's own parsers of configuration text (the json, yaml, toml and ini checkers,
 * config-checkers.ts). Pure: the daemon runs them in a worker thread with a time limit and a
 * heap bound (src/daemon/config-parse.ts), never on its event loop. Each answers the problems
 * it found, [] when the text parses, at most MAX_PROBLEMS lines of PROBLEM_CHARS.
 */
import { isMap, isScalar, parseAllDocuments, visit } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { MAX_PROBLEMS, PROBLEM_CHARS, type ParserName } from './config-checkers.js';
import { clip } from './text.js';

/**
 * Aliases a YAML text may dereference: configuration files use a few; a "billion laughs" text
 * needs thousands, and is refused before it is expanded.
 */
export const YAML_MAX_ALIASES = 50;

const firstLine = (s: string) => s.split('\n', 1)[0]!.trim();
const bounded = (problems: string[]) => problems.slice(0, MAX_PROBLEMS).map((p) => clip(p, PROBLEM_CHARS));

/** Line (1-based) of character offset `at` in `text`. */
function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export function parseJson(text: string): string[] {
  try {
    JSON.parse(text);
    return [];
  } catch (e) {
    const message = firstLine((e as Error).message);
    const at = /position (\d+)/.exec(message);
    return bounded([at ? `line ${lineOf(text, Number(at[1]))}: ${message}` : message]);
  }
}

export function parseYaml(text: string): string[] {
  // strict; the library's own unique-key check compares every key with every other (quadratic: a
  // map of 60,000 keys took minutes), so duplicates are found below, in one pass.
  const docs = parseAllDocuments(text, { strict: true, uniqueKeys: false, prettyErrors: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const problems: string[] = [];
  for (const doc of list) {
    for (const e of doc.errors) problems.push(`line ${e.linePos?.[0]?.line ?? '?'}: ${firstLine(e.message)}`);
    if (problems.length) continue;
    visit(doc, {
      Map(_k, map) {
        if (!isMap(map)) return;
        const seen = new Set<string>();
        for (const pair of map.items) {
          if (!isScalar(pair.key)) continue;
          const key = `${typeof pair.key.value}:${String(pair.key.value)}`;
          if (seen.has(key) && problems.length < MAX_PROBLEMS) problems.push(`line ${lineOf(text, pair.key.range?.[0] ?? 0)}: map keys must be unique: ${String(pair.key.value)}`);
          seen.add(key);
        }
      },
    });
    if (problems.length) continue;
    try {
      // Aliases are counted as they are resolved: a text built to expand without end stops here.
      doc.toJS({ maxAliasCount: YAML_MAX_ALIASES });
    } catch (e) {
      problems.push(firstLine((e as Error).message));
    }
  }
  return bounded(problems);
}

export function parseTomlText(text: string): string[] {
  try {
    parseToml(text);
    return [];
  } catch (e) {
    const err = e as Error & { line?: number; column?: number };
    const where = err.line ? `line ${err.line}${err.column ? `, column ${err.column}` : ''}: ` : '';
    return bounded([`${where}${firstLine(err.message)}`]);
  }
}

/** An INI line: blank, a `;` or `#` comment, a `[section]`, or `key = value` (the value may be empty). */
const INI_BLANK = /^[ \t]*$/;
const INI_COMMENT = /^[ \t]*[;#]/;
const INI_SECTION = /^[ \t]*\[[^\][]+\][ \t]*$/;
/** key = value: a key that starts with none of `= ; # [ ]` before the first `=` (one pass, no backtracking). */
const iniPair = (line: string) => {
  const key = line.trimStart();
  return key.length > 0 && !'=;#[]'.includes(key[0]!) && key.indexOf('=') > 0;
};

/** A strict INI grammar: every line is one of the four kinds, or a problem with its number. */
export function parseIni(text: string): string[] {
  const problems: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && problems.length < MAX_PROBLEMS; i++) {
    const line = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
    if (INI_BLANK.test(line) || INI_COMMENT.test(line) || INI_SECTION.test(line) || iniPair(line)) continue;
    problems.push(`line ${i + 1}: ${/^[ \t]*\[/.test(line) ? 'a section header must be [name] alone on its line' : 'not a comment, a [section] or key = value'}`);
  }
  return bounded(problems);
}

export const PARSE: Record<ParserName, (text: string) => string[]> = { json: parseJson, yaml: parseYaml, toml: parseTomlText, ini: parseIni };
