/** Small text helpers for what programs print. */

/**
 * The first line of `s` that holds anything but whitespace, with the whitespace around it
 * removed; '' when there is none. What an error message quotes of a program's stderr.
 */
export function firstLine(s: string): string {
  return s.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
}

/**
 * `s` cut to at most `max` characters, never inside a word: host text is masked after an
 * action returns it (src/mask), and a token cut in two no longer has its shape, so the
 * half kept would pass. A word longer than what is left is dropped; a cut ends in `…`.
 */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = s.slice(0, max);
  const blank = Math.max(head.lastIndexOf(' '), head.lastIndexOf('\t'));
  return (blank > 0 ? head.slice(0, blank) : '') + '…';
}
