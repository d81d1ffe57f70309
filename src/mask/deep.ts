/**
 * Masking of a JSON value (a preview's current state and proposed change, an error's
 * details): every string in it, object keys included, goes through maskText, and a
 * string value whose key names a secret (names.ts 'strong') is masked whole, since the
 * key that says so is not part of the string. Counts add up over the whole value.
 */
import { addCounts, maskText, type MaskCounts, type MaskOptions } from './mask.js';
import { kindOfName, secretName } from './names.js';
import { isSecretValue } from './values.js';
import { marker } from './span.js';

export function maskDeep<T>(value: T, opts: MaskOptions = {}, counts: MaskCounts = {}): { value: T; counts: MaskCounts } {
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') {
      if (key !== null && secretName(key) === 'strong' && isSecretValue('strong', v)) {
        const kind = kindOfName(key);
        counts[kind] = (counts[kind] ?? 0) + 1;
        return marker(kind);
      }
      const m = maskText(v, opts);
      addCounts(counts, m.counts);
      return m.text;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v !== null && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[maskText(k, opts).text] = walk(x, k);
      return o;
    }
    return v;
  };
  return { value: walk(value, null) as T, counts };
}
