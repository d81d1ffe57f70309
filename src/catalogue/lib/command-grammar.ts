/**
 * A usage line read as the grammar of a command line: what ./agent-programs.ts writes for
 * each program root may run later on the agent's behalf. The same text is the grammar and
 * what a refusal shows, so the two cannot drift apart.
 *
 * Words, separated by one space:
 *   -h  --all  restart      a literal: exactly this argument
 *   start|stop|restart      one of these literals
 *   SERVICE                 one value of a parameter type (upper case; ./agent-programs.ts)
 *   --vacuum-size=SIZE +INT a literal prefix glued to one value
 *   [ -t TAG ]              the words inside, all or none; it starts with a literal (or a
 *                           literal prefix: --output=FIELDS), and is not nested
 *   PATH...                 as the last word: one or more values ([ PATH... ]: any number)
 *
 * Matching is greedy, left to right, with no backtracking: an optional group is taken when
 * its first word matches. Grammars are written so that this is the only reading (a unit
 * test checks every group starts with a literal). Work is linear in the arguments.
 */

/** A parameter type: the syntax of its values, and what a person reads about it. */
export interface ValueType {
  syntax: RegExp;
  describe: string;
  /** A value that names a file: checked on the host by the trusted-path rule (../agent-command.ts). */
  path?: 'any' | 'dir' | 'config';
  /** A value of this type, for examples and tests (on Debian 12 a path sample exists and passes its checks). */
  sample: string;
}

type Word =
  | { kind: 'literal'; options: readonly string[] }
  | { kind: 'value'; prefix: string; name: string; type: ValueType };

interface Item {
  words: Word[];
  optional: boolean;
  repeat: boolean;
}

/** One grammar, parsed from its usage line (the program's base name first, then its arguments). */
export interface Grammar {
  usage: string;
  items: Item[];
}

/** A path an argument names, and the type it was given as. */
export interface TypedPath {
  path: string;
  type: ValueType;
}

const VALUE_WORD = /^([^A-Z]*)([A-Z][A-Z_]*)(\.\.\.)?$/;

function parseWord(w: string, types: Readonly<Record<string, ValueType>>): { word: Word; repeat: boolean } {
  const m = VALUE_WORD.exec(w);
  if (m) {
    const type = types[m[2]!];
    if (!type) throw new Error(`grammar: unknown type ${m[2]} in ${w}`);
    return { word: { kind: 'value', prefix: m[1]!, name: m[2]!, type }, repeat: m[3] !== undefined };
  }
  if (/[A-Z[\]]/.test(w) || w.endsWith('...')) throw new Error(`grammar: bad word ${w}`);
  return { word: { kind: 'literal', options: w.split('|') }, repeat: false };
}

/** Parses a usage line; throws on a grammar this matcher could read two ways (a table error, caught by the unit test). */
export function parseGrammar(usage: string, types: Readonly<Record<string, ValueType>>): Grammar {
  const tokens = usage.split(' ').slice(1);
  const items: Item[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === '[') {
      const end = tokens.indexOf(']', i);
      if (end < 0) throw new Error(`grammar: unclosed [ in ${usage}`);
      const parsed = tokens.slice(i + 1, end).map((w) => parseWord(w, types));
      const repeat = parsed.some((p) => p.repeat);
      if (repeat && (parsed.length !== 1 || end !== tokens.length - 1)) throw new Error(`grammar: [X...] only alone and last: ${usage}`);
      const head = parsed[0]?.word;
      // Greedy reading needs the group's first word to be told apart from a value of the next item.
      if (!repeat && !(head?.kind === 'literal' || head?.prefix)) throw new Error(`grammar: a group starts with a literal or --option=: ${usage}`);
      items.push({ words: parsed.map((p) => p.word), optional: true, repeat });
      i = end;
    } else {
      const { word, repeat } = parseWord(tokens[i]!, types);
      if (repeat && i !== tokens.length - 1) throw new Error(`grammar: X... only last, in ${usage}`);
      items.push({ words: [word], optional: false, repeat });
    }
  }
  return { usage, items };
}

/** Whether one argument is this word; a value also must not start with '-' (getopt would read it as an option). */
function wordMatches(word: Word, arg: string): boolean {
  if (word.kind === 'literal') return word.options.includes(arg);
  if (!arg.startsWith(word.prefix)) return false;
  const value = arg.slice(word.prefix.length);
  return !value.startsWith('-') && word.type.syntax.test(value);
}

/**
 * The paths the arguments name when they fit the grammar, or why they do not (the first
 * argument that does not fit, or what is missing).
 */
export function matchGrammar(g: Grammar, args: readonly string[]): { paths: TypedPath[] } | { why: string } {
  const paths: TypedPath[] = [];
  let at = 0;
  const take = (word: Word) => {
    const arg = args[at]!;
    if (word.kind === 'value' && word.type.path) paths.push({ path: arg.slice(word.prefix.length), type: word.type });
    at++;
  };
  for (const item of g.items) {
    const first = item.words[0]!;
    if (item.optional && (at >= args.length || !wordMatches(first, args[at]!))) continue;
    for (const word of item.words) {
      if (at >= args.length) return { why: `it ends where ${describeWord(word)} is needed` };
      if (!wordMatches(word, args[at]!)) return { why: `argument ${at + 1} (${args[at]}) is not ${describeWord(word)}` };
      take(word);
    }
    while (item.repeat && at < args.length && wordMatches(first, args[at]!)) take(first);
  }
  if (at < args.length) return { why: `argument ${at + 1} (${args[at]}) is not expected there` };
  return { paths };
}

function describeWord(w: Word): string {
  return w.kind === 'literal' ? w.options.join(' or ') : `${w.prefix}${w.name}`;
}

/** A command line this grammar accepts, from each type's sample: only the words it needs, or every optional group too. */
export function exampleArgs(g: Grammar, full: boolean): string[] {
  const word = (w: Word) => (w.kind === 'literal' ? w.options[0]! : w.prefix + w.type.sample);
  return g.items.filter((i) => full || !i.optional).flatMap((i) => i.words.map(word));
}
