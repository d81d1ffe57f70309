/**
 * The catalogue as data, for clients with no daemon to ask: `airlock actions` and
 * `airlock describe` when the daemon is unreachable, and the MCP server's listing tools.
 *
 * The data is src/protocol/catalogue-metadata.json, generated from the declarations by
 * scripts/gen-catalogue-metadata.ts (`npm run docs`; test/unit/catalogue-metadata.test.ts
 * fails when it is stale). Reading it costs a file read, where importing src/catalogue
 * costs every family, zod and the schema conversion: a client that only lists the
 * catalogue has no reason to pay that.
 *
 * What only the daemon knows is absent: whether this host supports an action, and the
 * risk its policy raises. `risk` and `min_role` here are the catalogue's, which a host's
 * policy may raise and never lower.
 */
import { readFileSync } from 'node:fs';
import { AirlockError } from './errors.js';
import type { ActionDescription } from './messages.js';

/** An action as its declaration describes it: ActionDescription less `supported_here`, with the catalogue's risk. */
export type ActionMetadata = Omit<ActionDescription, 'supported_here'>;

/** The whole file. */
export interface CatalogueMetadata {
  /** Every declared family, in the catalogue's order (some may have no action yet). */
  families: string[];
  /** Every action, in the order the daemon's `actions.list` returns them. */
  actions: ActionMetadata[];
}

/**
 * The same path from src/protocol/ (run through tsx) and from dist/protocol/ (compiled):
 * the JSON is data, not compiled, so the one committed file serves both.
 */
export const CATALOGUE_METADATA_URL = new URL('../../src/protocol/catalogue-metadata.json', import.meta.url);

let cached: CatalogueMetadata | null = null;

/** The metadata, read once on first use. */
export function catalogueMetadata(): CatalogueMetadata {
  cached ??= JSON.parse(readFileSync(CATALOGUE_METADATA_URL, 'utf8')) as CatalogueMetadata;
  return cached;
}

/** Every action, or only those of `family` (an unknown family lists nothing, as `airlock actions --family` does). */
export function listActionMetadata(family?: string): ActionMetadata[] {
  const all = catalogueMetadata().actions;
  return family === undefined ? all : all.filter((a) => a.family === family);
}

/** One action by name; refuses an unknown name with the error the daemon's `actions.describe` gives. */
export function describeActionMetadata(name: string): ActionMetadata {
  const a = catalogueMetadata().actions.find((x) => x.name === name);
  if (!a) throw new AirlockError('validation', 'unknown_action', `there is no action named ${JSON.stringify(String(name).slice(0, 64))}`, 'list actions with `airlock actions`');
  return a;
}
