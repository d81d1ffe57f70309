/**
 * The parameters a preview shows: those an action declares secret (`secretParams`,
 * src/catalogue/action.ts) become `⟦secret:KIND⟧`, counted with the rest of the preview's
 * masking. The stored transaction keeps the real values (the request hash covers them,
 * and execution needs them); a client that sends back the parameters as shown gets the
 * stored ones (AirlockService.execute).
 */
import type { AnyAction } from '../catalogue/action.js';
import type { MaskCounts } from '../mask/mask.js';
import { kindOfName } from '../mask/names.js';
import { marker } from '../mask/span.js';
import { maskForClient } from './output.js';

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
 * anything else as JSON, masked (before it is cut, so a secret is recognised whole) and escaped.
 */
export function shownValue(a: Pick<AnyAction, 'secretParams'>, name: string, value: unknown): string {
  if (a.secretParams?.includes(name)) return marker(kindOfName(name));
  const text = maskForClient(JSON.stringify(value) ?? String(value));
  return text.length > SHOWN_VALUE_CHARS ? `${text.slice(0, SHOWN_VALUE_CHARS - 1)}…` : text;
}
