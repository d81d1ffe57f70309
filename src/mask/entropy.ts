/**
 * Whether a value looks like key material rather than a setting: long enough, one
 * token, several kinds of character, and enough Shannon entropy per character that it
 * is not a word, a number or a repeated pattern. Used only beside a name that hints at a
 * secret (names.ts 'weak'), never on its own: alone it would mask every digest and commit
 * id, which are public.
 */
/** Counts of each ASCII character, reused (the judgement runs once per candidate value). */
const ascii = new Uint16Array(128);

export function shannonBits(s: string): number {
  let bits = 0;
  let wide: Map<string, number> | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) ascii[c]!++;
    else (wide ??= new Map()).set(s[i]!, (wide.get(s[i]!) ?? 0) + 1);
  }
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && ascii[c]! > 0) {
      const p = ascii[c]! / s.length;
      bits -= p * Math.log2(p);
      ascii[c] = 0;
    }
  }
  if (wide) for (const n of wide.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

/** Key material is judged on its first this many characters: a judgement costs no more whatever the value's length. */
const JUDGED = 256;

export function looksLikeKeyMaterial(whole: string): boolean {
  const value = whole.length > JUDGED ? whole.slice(0, JUDGED) : whole;
  if (value.length < 16 || /\s/.test(value) || value.includes('://')) return false; // a URL is an address, not a key
  const classes = Number(/[a-z]/.test(value)) + Number(/[A-Z]/.test(value)) + Number(/[0-9]/.test(value)) + Number(/[^A-Za-z0-9]/.test(value));
  return classes >= 2 && shannonBits(value) >= 3.3;
}
