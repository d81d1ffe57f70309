/**
 * What setup would do to each file, computed before anything is written: the dry run prints
 * it, a person at a terminal confirms it, and applying it writes exactly it. A client whose
 * file is refused gets none of its files written, so no client is left half configured.
 */
import type { Client } from './clients/index.js';
import { shown, type Place } from './detect.js';
import { assertStillLeads, deleteWhole, readState, writeWhole, type FileState } from './files.js';
import type { Target } from './targets.js';
import { AirlockError } from '../../protocol/errors.js';

export type Action = 'create' | 'update' | 'unchanged' | 'remove' | 'delete' | 'refused' | 'held';

export interface FileStep {
  path: string;
  shown: string;
  kind: Target['kind'];
  action: Action;
  reason?: string;
  note?: string;
  /** The mode written (after applying). */
  mode?: string;
  /** For apply: the state read and the text to write (null: delete). */
  state?: Extract<FileState, { ok: true }>;
  after?: string | null;
  target: Target;
}

export interface ClientStep {
  client: Client;
  detected: string | null;
  files: FileStep[];
  notes: string[];
}

function step(t: Target, p: Place, uninstall: boolean): FileStep {
  const base = { path: t.path, shown: shown(t.path, p), kind: t.kind, target: t };
  const state = readState(t.path);
  if (!state.ok) return { ...base, action: 'refused', reason: `${base.shown}: ${state.reason}` };
  const edit = uninstall ? t.drop(state.before) : t.put(state.before);
  if (!edit.ok) return { ...base, action: 'refused', reason: `${base.shown}: ${edit.reason}` };
  const note = edit.note ? { note: edit.note } : {};
  if (edit.text === state.before) {
    // Nothing to add, but a token others can read is not left so: the same text, written again with mode 0600.
    const exposed = t.secret && edit.text !== null && state.mode !== null && (state.mode & 0o077) !== 0;
    if (!exposed) return { ...base, ...note, action: 'unchanged', state };
    return { ...base, note: `its mode ${state.mode!.toString(8).padStart(4, '0')} let other accounts read the token: written again with mode 0600`, action: 'update', state, after: edit.text };
  }
  const action: Action = edit.text === null ? 'delete' : state.before === null ? 'create' : uninstall ? 'remove' : 'update';
  return { ...base, ...note, action, state, after: edit.text };
}

export function planClient(client: Client, targets: Target[], notes: string[], p: Place, uninstall: boolean): ClientStep {
  const files = targets.map((t) => step(t, p, uninstall));
  const refused = files.find((f) => f.action === 'refused');
  if (refused) {
    for (const f of files) {
      if (f.action !== 'refused' && f.action !== 'unchanged') Object.assign(f, { action: 'held', reason: `not written, because ${refused.shown} was refused` });
    }
  }
  return { client, detected: client.detect(p), files, notes };
}

export const changes = (steps: ClientStep[]) => steps.flatMap((s) => s.files).filter((f) => ['create', 'update', 'remove', 'delete'].includes(f.action));

/** Writes the plan. A file that cannot be written (permissions) becomes refused; the others still go. */
export function apply(steps: ClientStep[]): void {
  for (const f of changes(steps)) {
    try {
      assertStillLeads(f.state!);
      if (f.after === null) deleteWhole(f.state!.real, f.target.base);
      else f.mode = writeWhole(f.state!, f.after!, f.target.secret).toString(8).padStart(4, '0');
    } catch (e) {
      // A refusal of safe-write.ts is a sentence with what to do; a system error is its code.
      const why = e instanceof AirlockError ? `${e.message}${e.hint ? `: ${e.hint}` : ''}` : `it could not be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
      Object.assign(f, { action: 'refused', reason: `${f.shown}: ${why}` });
    }
  }
}
