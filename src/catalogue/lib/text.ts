/** Small text helpers for what programs print. */

/**
 * The first line of `s` that holds anything but whitespace, with the whitespace around it
 * removed; '' when there is none. What an error message quotes of a program's stderr.
 */
export function firstLine(s: string): string {
  return s.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
}
