/**
 * Masking of a JSON value (a preview's current state and proposed change): every string
 * in it, object keys included, goes through the masker, with what a string alone cannot
 * say:
 * - a string under a key that names a secret (names.ts 'strong') is masked whole;
 * - a name/value pair (`{"name": "DB_PASSWORD", "value": "x"}`) masks its value;
 * - an array of strings is masked as the lines it usually is (a diff's removed and added
 *   lines, a file's lines), so a key spanning several elements is masked in all of them,
 *   and an element that is a flag naming a secret (`"--requirepass"`) masks the next one.
 * Counts add up over the whole value.
 */
import { addCounts, maskLines, maskText, type MaskCounts, type MaskOptions } from './mask.js';
import { kindOfName, secretName } from './names.js';
import { marker } from './span.js';
import { isSecretValue } from './values.js';

const FLAG = /^--?[A-Za-z][\w.-]*$/;

export function maskDeep<T>(value: T, opts: MaskOptions = {}, counts: MaskCounts = {}): { value: T; counts: MaskCounts } {
  const whole = (kind: string) => {
    counts[kind] = (counts[kind] ?? 0) + 1;
    return marker(kind);
  };
  const text = (s: string) => {
    const m = maskText(s, opts);
    addCounts(counts, m.counts);
    return m.text;
  };
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') return key !== null && secretName(key) === 'strong' && isSecretValue('strong', v) ? whole(kindOfName(key)) : text(v);
    if (Array.isArray(v)) return v.length > 1 && v.every((x) => typeof x === 'string') ? lines(v as string[], key) : v.map((x) => walk(x, key));
    if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const named = [o.name, o.key, o.Name, o.Key].find((n): n is string => typeof n === 'string' && secretName(n) === 'strong');
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(o)) {
        out[text(k)] = named && (k === 'value' || k === 'Value') && typeof x === 'string' && isSecretValue('strong', x) ? whole(kindOfName(named)) : walk(x, k);
      }
      return out;
    }
    return v;
  };
  const lines = (items: string[], key: string | null): string[] => {
    if (key !== null && secretName(key) === 'strong') return items.map((s) => walk(s, key) as string);
    const flagged = new Set<number>();
    items.forEach((s, i) => {
      if (FLAG.test(s) && secretName(s) === 'strong' && i + 1 < items.length && !items[i + 1]!.startsWith('-') && isSecretValue('strong', items[i + 1]!)) flagged.add(i + 1);
    });
    const masked = maskLines(items, opts, counts);
    return masked.map((s, i) => (flagged.has(i) && !s.startsWith('⟦secret:') ? whole(kindOfName(items[i - 1]!)) : s));
  };
  return { value: walk(value, null) as T, counts };
}
