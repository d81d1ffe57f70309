/**
 * The README's command blocks, as the tests that follow them read them. A block is the
 * fenced `sh` block after a `<!-- readme-test: NAME ... -->` comment; each line is a
 * command a person types, with an optional prompt saying who types it (`you$`,
 * `agent$`, `anyone$`) and an optional `# comment`. The tests run these words, so a
 * README that drifts (a renamed command, a flag, a group) fails them.
 *
 * Only the little shell a README line uses is understood: words, single and double
 * quotes, `"$USER"`, `&&` between commands, and `#` comments. Anything else (a pipe,
 * a redirection, a `$(...)`) is refused, so a block the tests run stays one a person
 * can read as plain commands.
 */
import { readFileSync } from 'node:fs';

export interface ReadmeLine {
  /** Who types it: `you`, `agent`, `anyone`, or `you` when the line has no prompt. */
  who: string;
  /** The commands of the line, in order (`a && b` is two). */
  commands: string[][];
  /** The line as the README prints it. */
  text: string;
}

/** The named block's lines (comment-only lines dropped). Throws when the README has no such block. */
export function readmeBlock(readme: string, name: string): ReadmeLine[] {
  const m = new RegExp(`<!-- readme-test: ${name}\\b[^>]*-->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!m) throw new Error(`the README has no block <!-- readme-test: ${name} --> followed by a sh code block`);
  return m[1]!
    .split('\n')
    .map((text) => ({ text, ...parseLine(text) }))
    .filter((l) => l.commands.length > 0);
}

export const readReadme = (path: string) => readFileSync(path, 'utf8');

function parseLine(line: string): { who: string; commands: string[][] } {
  const prompt = /^\s*(\w+)\$\s+/.exec(line);
  const who = prompt ? prompt[1]! : 'you';
  const commands: string[][] = [[]];
  let word: string | null = null;
  const rest = prompt ? line.slice(prompt[0].length) : line;
  const end = () => {
    if (word !== null) commands[commands.length - 1]!.push(word);
    word = null;
  };
  for (let i = 0; i < rest.length; i++) {
    const ch = rest[i]!;
    if (ch === '#' && word === null) break;
    if (ch === ' ' || ch === '\t') end();
    else if (ch === '&' && rest[i + 1] === '&') (end(), commands.push([]), i++);
    else if (ch === "'") {
      const close = rest.indexOf("'", i + 1);
      if (close < 0) throw new Error(`unclosed quote in README line: ${line}`);
      word = (word ?? '') + rest.slice(i + 1, close);
      i = close;
    } else if (ch === '"') {
      const close = rest.indexOf('"', i + 1);
      if (close < 0) throw new Error(`unclosed quote in README line: ${line}`);
      word = (word ?? '') + expand(rest.slice(i + 1, close), line);
      i = close;
    } else if ('|<>;`()'.includes(ch) || (ch === '$' && rest[i + 1] !== 'U')) throw new Error(`a README line the tests run uses shell syntax (${ch}): ${line}`);
    else if (ch === '$') {
      word = (word ?? '') + expand(rest.slice(i, i + 5), line);
      i += 4;
    } else word = (word ?? '') + ch;
  }
  end();
  return { who, commands: commands.filter((c) => c.length > 0) };
}

/** `$USER` is kept as a marker the test replaces with the person's login; nothing else is expanded. */
function expand(s: string, line: string): string {
  if (s.includes('$') && !/^[^$]*\$USER[^$]*$/.test(s)) throw new Error(`a README line the tests run expands a variable other than $USER: ${line}`);
  return s;
}
