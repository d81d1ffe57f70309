/**
 * What a detector reports: a range of the text that holds secret material, and the kind
 * of secret it is. The masker (mask.ts) merges overlapping ranges and replaces each with
 * `⟦secret:KIND⟧`; the kind is all that is kept, so the log can count what was masked.
 */
export interface Span {
  start: number;
  end: number;
  kind: string;
}

/** Adds the ranges of secrets found in `text` to `out`. Pure; never throws on any input. */
export type Detector = (text: string, out: Span[]) => void;

/** The replacement for one secret. `⟦` and `⟧` (U+27E6, U+27E7) do not occur in any secret syntax. */
export const marker = (kind: string): string => `⟦secret:${kind}⟧`;

/**
 * A marker this masker or its pseudonyms wrote, exactly: `⟦secret:KIND⟧`, `⟦ip:HEX8⟧`,
 * `⟦email:HEX8⟧`, `⟦host:HEX8⟧`. Only these are opaque to detection (masking masked text
 * changes nothing); any other `⟦...⟧` in host text is text like the rest.
 */
export const MARKER_SOURCE = '⟦(?:secret:[a-z_]{1,40}|(?:email|ip|host):[0-9a-f]{8})⟧';
