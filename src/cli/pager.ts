/**
 * Long listings through a pager at a terminal, as git and systemctl do: $PAGER, else
 * `less -FRX`, when stdout is a terminal and the text is taller than it. Never a shell:
 * $PAGER is split on spaces into a program and its arguments, and the program is found
 * on PATH and run by its absolute path. No pager with --no-pager, --json or a pipe;
 * a pager that is missing or fails to start means plain output, never lost output.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { isAbsolute, join } from 'node:path';

const DEFAULT_PAGER = ['less', '-FRX'];
/** A $PAGER longer than this, or with more words, is not a pager command: plain output. */
const MAX_PAGER_CHARS = 256;
const MAX_PAGER_WORDS = 16;

/** The absolute path of `program` (absolute already, or the first executable of that name on PATH), or null. */
export function findProgram(program: string, path = process.env.PATH ?? '/usr/bin:/bin'): string | null {
  const executable = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return isAbsolute(program) && executable(program) ? program : null;
  for (const dir of path.split(':')) if (isAbsolute(dir) && executable(join(dir, program))) return join(dir, program);
  return null;
}

/** The pager's argv from $PAGER (empty or `cat` means none), or null for plain output. */
export function pagerArgv(pagerVar = process.env.PAGER): string[] | null {
  const words = pagerVar === undefined ? DEFAULT_PAGER : pagerVar.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0 || words[0] === 'cat' || (pagerVar ?? '').length > MAX_PAGER_CHARS || words.length > MAX_PAGER_WORDS) return null;
  const program = findProgram(words[0]!);
  return program ? [program, ...words.slice(1)] : null;
}

/** Writes `text` to stdout, through the pager when stdout is a terminal shorter than the text and paging is allowed. */
export function page(text: string, opts: { pager?: boolean } = {}): void {
  const out = process.stdout;
  const tall = out.isTTY && typeof out.rows === 'number' && text.split('\n').length - 1 > out.rows;
  const argv = opts.pager !== false && tall ? pagerArgv() : null;
  if (argv) {
    const r = spawnSync(argv[0]!, argv.slice(1), { input: text, stdio: ['pipe', 'inherit', 'inherit'], env: { ...process.env, LESS: process.env.LESS ?? 'FRX' } });
    if (!r.error) return; // a pager that ran (whatever it exited with, q included) has shown the text
  }
  out.write(text);
}
