/**
 * An action's preview as every client is shown it: host and agent text masked and escaped,
 * before any digest, so the digest covers what is shown. The one way a single action's preview
 * (verbs/preview.ts) and each step of a plan (plan-steps.ts) are made shown.
 * `proposed.digest` inside still covers the raw bytes, so what runs is bound byte for byte.
 */
import type { AnyAction, PreviewParts } from '../catalogue/action.js';
import { escapeDeep } from '../protocol/escape-text.js';
import type { ProposedChange } from '../protocol/wire/preview.js';
import type { MaskCounts } from '../mask/mask.js';
import type { Binding } from './mechanism-binding.js';
import { maskValueForClient, masksForClient } from './output.js';

export interface ShownPreview {
  summary: string;
  warnings: string[];
  sideEffects: string[];
  currentState: unknown;
  proposedChange: ProposedChange;
}

export async function shownPreview(a: AnyAction, current: unknown, parts: PreviewParts, bound: Binding, masked: MaskCounts): Promise<ShownPreview> {
  const [summary = '', ...warnings] = await masksForClient([parts.summary, ...(parts.warnings ?? []), ...bound.notes], masked);
  const sideEffects = await masksForClient(parts.sideEffects ?? [], masked);
  const currentState = escapeDeep(await maskValueForClient(jsonSafe(a.shown ? a.shown(current) : current), masked));
  const proposedChange = escapeDeep(await maskValueForClient(bound.proposed, masked));
  return { summary, warnings, sideEffects, currentState, proposedChange };
}

function jsonSafe(v: unknown): unknown {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}
