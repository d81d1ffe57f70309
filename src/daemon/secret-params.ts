/**
 * The parameters a preview shows: those an action declares secret (`secretParams`,
 * src/catalogue/action.ts) become `⟦secret:KIND⟧`, counted with the rest of the preview's
 * masking. The stored transaction keeps the real values (the request hash covers them,
 * and execution needs them); a client that sends back the parameters as shown gets the
 * stored ones (verbs/execute.ts).
 */
import type { AnyAction } from '../catalogue/action.js';
import type { MaskCounts } from '../mask/mask.js';
import { kindOfName } from '../mask/names.js';
import { marker } from '../mask/span.js';
import { QUOTE_WINDOW, quoteForClient } from './output.js';

export function shownParams(a: Pick<AnyAction, 'secretParams'>, params: Record<string, unknown>, counts: MaskCounts): Record<string, unknown> {
  if (!a.secretParams?.length) return params;
  const shown: Record<string, unknown> = { ...params };
  for (const name of a.secretParams) {
    if (shown[name] === undefined) continue;
    const kind = kindOfName(name);
    shown[name] = marker(kind);
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return shown;
}

/** A refused value longer than this is cut (with …) in a validation error: it names the value, it does not return it. */
export const SHOWN_VALUE_CHARS = 80;

/**
 * A parameter's value as a validation error quotes it: a declared secret as its marker,
 * anything else as JSON, cut, masked and escaped (quoteForClient: it is cut to a window
 * before it is masked, so a megabyte-long value costs what a short one does, and cut to
 * SHOWN_VALUE_CHARS after, so a secret that starts in what is shown is recognised whole).
 */
export function shownValue(a: Pick<AnyAction, 'secretParams'>, name: string, value: unknown): string {
  if (a.secretParams?.includes(name)) return marker(kindOfName(name));
  // A long string is cut before JSON.stringify too: its quoted form would only be cut again.
  const json = typeof value === 'string' && value.length > QUOTE_WINDOW ? `${JSON.stringify(value.slice(0, QUOTE_WINDOW))}…` : (JSON.stringify(value) ?? String(value));
  return quoteForClient(json, SHOWN_VALUE_CHARS);
}
