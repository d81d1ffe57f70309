/** The shape of most inventory actions: a parameterless read with fixed steps. */
import { action, nothingToRead, type Family, type ReadDeclaration } from '../action.js';
import type { Step } from '../mechanism.js';
import { params } from '../params.js';

/**
 * A parameterless, low-risk read whose steps are fixed: the shape of most
 * inventory actions (disk usage, routes, ...). Files lists every path a fileScan reads.
 */
export function fixedRead(spec: { name: string; family: Family; description: string; summary: string; files?: string[]; steps: Step[] } & Omit<ReadDeclaration, 'readOnly'>) {
  return action({
    name: spec.name,
    family: spec.family,
    description: spec.description,
    risk: 'low',
    readOnly: true,
    sensitive: spec.sensitive,
    reachesNetwork: spec.reachesNetwork,
    params: params({}),
    files: spec.files ?? [],
    example: {},
    current: nothingToRead,
    preview: () => ({ summary: spec.summary, change: null }),
    mechanism: () => structuredClone(spec.steps), // a fresh copy: callers may annotate steps
  });
}
