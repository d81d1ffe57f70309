/**
 * Every (category, code) pair the sources can produce, found with the TypeScript
 * compiler rather than a list of files or a regular expression, so a code stays found
 * when its file moves or when it is built by a helper, a ternary or a template.
 *
 * A pair is produced where an `AirlockError` is constructed or where an object literal
 * has both a `category` and a `code` property (a wire error or a refusal). Each of the
 * two expressions is evaluated to the set of strings it can hold:
 * - a string literal, a ternary, a template (each substitution evaluated the same way);
 * - a parameter of the enclosing function: the argument at every call of that function
 *   (so `fail('validation', 'bad_x', ...)` and helpers like `no('not_yours', ...)` count),
 *   bound one call at a time, so a call's category pairs with that call's code only;
 * - anything else whose type is a string literal or a union of them (a typed local);
 * - `x.category` and `x.code` of a value that is already an error or a refusal are
 *   forwarded, not produced: the pair was counted where that value was built.
 * What cannot be evaluated is reported, so a new way of building codes fails the test
 * instead of hiding codes.
 */
import ts from 'typescript';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CodeSite {
  category: string;
  code: string;
  /** file:line relative to the checkout, where the pair is written. */
  at: string;
}

export interface CodeScan {
  pairs: CodeSite[];
  /** Places whose category or code could not be evaluated, with why. */
  unresolved: string[];
}

type Value = { kind: 'strings'; values: Set<string> } | { kind: 'forward' } | { kind: 'unknown'; why: string } | { kind: 'needs'; param: ts.ParameterDeclaration };

const strings = (...v: string[]): Value => ({ kind: 'strings', values: new Set(v) });
const MAX_DEPTH = 6;

/** The program of tsconfig.json (every file under src/, wherever it lives), or of the given files. */
function sourceProgram(root: string, files?: string[]): ts.Program {
  if (files) return ts.createProgram({ rootNames: files, options: { strict: true, noEmit: true, skipLibCheck: true, types: [] } });
  const configPath = join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
  return ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
}

/** Scans the files under `root`/src (default: this checkout, through its tsconfig.json). */
export function scanErrorCodes(opts: { root?: string; files?: string[] } = {}): CodeScan {
  const root = opts.root ?? ROOT;
  const program = sourceProgram(root, opts.files);
  const checker = program.getTypeChecker();
  const files = program.getSourceFiles().filter((f) => !f.isDeclarationFile && relative(root, f.fileName).startsWith('src/'));
  const where = (n: ts.Node) => {
    const f = n.getSourceFile();
    return `${relative(root, f.fileName)}:${f.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  };
  const symbolOf = (n: ts.Node): ts.Symbol | undefined => {
    // `{ code }` names the variable code, not the property.
    const s = ts.isShorthandPropertyAssignment(n.parent) && n.parent.name === n ? checker.getShorthandAssignmentValueSymbol(n.parent) : checker.getSymbolAtLocation(n);
    return s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
  };

  // Every call in src/, by the name it calls (resolving each to a symbol up front would cost
  // seconds; only the calls of the few helpers that pass a code on are resolved, below).
  const callsByName = new Map<string, ts.CallExpression[]>();
  // `import { fail as refuse }`: calls of fail go by the name refuse too.
  const aliases = new Map<string, Set<string>>();
  const sinks: Array<{ node: ts.Node; category: ts.Expression; code: ts.Expression }> = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const callee = ts.isPropertyAccessExpression(n.expression) ? n.expression.name : n.expression;
      if (ts.isIdentifier(callee)) callsByName.set(callee.text, [...(callsByName.get(callee.text) ?? []), n]);
    }
    if (ts.isImportSpecifier(n) && n.propertyName) {
      const from = n.propertyName.text;
      aliases.set(from, (aliases.get(from) ?? new Set()).add(n.name.text));
    }
    if (ts.isNewExpression(n) && symbolOf(n.expression)?.name === 'AirlockError' && n.arguments && n.arguments.length >= 2) {
      sinks.push({ node: n, category: n.arguments[0]!, code: n.arguments[1]! });
    }
    // A zod shape (z.object({...}) and kin) describes fields with a category and a code; it constructs no error.
    if (ts.isObjectLiteralExpression(n) && !isZodShape(n)) {
      const prop = (name: string): ts.Expression | undefined => {
        for (const p of n.properties) {
          if (p.name && ts.isIdentifier(p.name) && p.name.text === name) {
            if (ts.isPropertyAssignment(p)) return p.initializer;
            if (ts.isShorthandPropertyAssignment(p)) return p.name;
          }
        }
        return undefined;
      };
      const category = prop('category');
      const code = prop('code');
      if (category && code) sinks.push({ node: n, category, code });
    }
    ts.forEachChild(n, visit);
  };
  for (const f of files) visit(f);

  const callsOf = (s: ts.Symbol): ts.CallExpression[] => {
    const names = [s.name, ...(aliases.get(s.name) ?? [])];
    return names.flatMap((name) => callsByName.get(name) ?? []).filter((c) => symbolOf(ts.isPropertyAccessExpression(c.expression) ? c.expression.name : c.expression) === s);
  };

  /** The symbol a function is called by: its declaration's name, or the variable or property it is assigned to. */
  const functionSymbol = (fn: ts.SignatureDeclaration): ts.Symbol | undefined => {
    if (fn.name) return symbolOf(fn.name);
    const p = fn.parent;
    if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return symbolOf(p.name);
    return undefined;
  };

  /** A value that is itself an error, a refusal or a record of one: its category and code were counted where it was built. */
  const isErrorLike = (e: ts.Expression): boolean => {
    const t = checker.getTypeAtLocation(e);
    return t.getProperty('category') !== undefined && t.getProperty('code') !== undefined;
  };

  /** Arguments bound to parameters on the way down from a call site (undefined: not passed, no default). */
  type Env = Map<ts.ParameterDeclaration, ts.Expression | undefined>;

  const evaluate = (e: ts.Expression, env: Env): Value => {
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return strings(e.text);
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) return evaluate(e.expression, env);
    if (ts.isConditionalExpression(e)) return union([evaluate(e.whenTrue, env), evaluate(e.whenFalse, env)]);
    if (ts.isTemplateExpression(e)) {
      let acc = new Set([e.head.text]);
      for (const span of e.templateSpans) {
        const v = evaluate(span.expression, env);
        if (v.kind !== 'strings') return v.kind === 'forward' ? { kind: 'unknown', why: `a template around a forwarded value (${span.expression.getText()})` } : v;
        const next = new Set<string>();
        for (const a of acc) for (const b of v.values) next.add(a + b + span.literal.text);
        acc = next;
      }
      return { kind: 'strings', values: acc };
    }
    if (ts.isIdentifier(e)) {
      const decl = symbolOf(e)?.valueDeclaration;
      if (decl && ts.isParameter(decl)) {
        if (!env.has(decl)) return { kind: 'needs', param: decl };
        const arg = env.get(decl);
        return arg === undefined ? { kind: 'strings', values: new Set() } : evaluate(arg, env);
      }
    }
    if (ts.isPropertyAccessExpression(e) && ['category', 'code'].includes(e.name.text) && isErrorLike(e.expression)) return { kind: 'forward' };
    const literal = literalsOfType(checker.getTypeAtLocation(e));
    if (literal) return { kind: 'strings', values: literal };
    return { kind: 'unknown', why: `cannot tell what ${JSON.stringify(e.getText().slice(0, 60))} holds` };
  };

  /**
   * The category and code a sink produces, per call path: a parameter is bound to the
   * arguments of one call at a time, so fail('a', 'x') and fail('b', 'y') give a/x and
   * b/y, never a/y.
   */
  const expand = (sink: ts.Node, exprs: [ts.Expression, ts.Expression], env: Env, depth: number, out: CodeSite[], unresolved: string[]): void => {
    const [category, code] = exprs.map((e) => evaluate(e, env)) as [Value, Value];
    const needs = [category, code].find((v) => v.kind === 'needs');
    if (needs?.kind === 'needs') {
      const fn = needs.param.parent;
      const s = functionSymbol(fn);
      if (!s) return void unresolved.push(`${where(sink)}: parameter ${needs.param.name.getText()} of a function with no name to find its calls by`);
      if (depth >= MAX_DEPTH) return void unresolved.push(`${where(sink)}: parameter ${needs.param.name.getText()} passed on more than ${MAX_DEPTH} times`);
      const callers = callsOf(s);
      // Passed around as a value (a callback) or never called: its codes cannot be read at a call.
      if (callers.length === 0) return void unresolved.push(`${where(sink)}: no call of ${s.name} passes its parameter ${needs.param.name.getText()}`);
      for (const call of callers) {
        const next: Env = new Map(env);
        fn.parameters.forEach((p, i) => next.set(p, call.arguments[i] ?? p.initializer));
        expand(call, exprs, next, depth + 1, out, unresolved);
      }
      return;
    }
    if (code.kind === 'forward' && category.kind === 'forward') return;
    if (code.kind !== 'strings' || category.kind !== 'strings') {
      const why = [category, code].map((v) => (v.kind === 'unknown' ? v.why : v.kind === 'forward' ? 'one half is forwarded, the other is not' : '')).filter(Boolean);
      return void unresolved.push(`${where(sink)}: ${why.join('; ')}`);
    }
    for (const c of category.values) for (const k of code.values) out.push({ category: c, code: k, at: where(sink) });
  };

  const pairs: CodeSite[] = [];
  const unresolved: string[] = [];
  for (const sink of sinks) expand(sink.node, [sink.category, sink.code], new Map(), 0, pairs, unresolved);
  return { pairs, unresolved };
}

function union(vs: Value[]): Value {
  const out = new Set<string>();
  let forward = false;
  for (const v of vs) {
    if (v.kind === 'unknown' || v.kind === 'needs') return v;
    if (v.kind === 'forward') forward = true;
    else for (const s of v.values) out.add(s);
  }
  if (forward && out.size > 0) return { kind: 'unknown', why: 'some callers forward a code and others write one' };
  return forward ? { kind: 'forward' } : { kind: 'strings', values: out };
}

function literalsOfType(t: ts.Type): Set<string> | null {
  const parts = t.isUnion() ? t.types : [t];
  const out = new Set<string>();
  for (const p of parts) {
    if (!p.isStringLiteral()) return null;
    out.add(p.value);
  }
  return out;
}

/** Whether an object literal is the shape given to z.object, z.strictObject or z.looseObject. */
function isZodShape(n: ts.ObjectLiteralExpression): boolean {
  const call = n.parent;
  if (!call || !ts.isCallExpression(call) || call.arguments[0] !== n) return false;
  const callee = call.expression;
  return ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'z' && ['object', 'strictObject', 'looseObject'].includes(callee.name.text);
}
