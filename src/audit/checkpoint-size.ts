/**
 * The tree size a line of a checkpoint file speaks of: a tree head line (`airlock-tree-head
 * <base64 note>`, a cosigned one too) or an older chain checkpoint line. Signatures are not
 * checked here: the archiver moves lines by size (src/daemon/archiver.ts), and the verifier,
 * which reads them wherever they end up, checks every one.
 */
import { CHECKPOINT_TAG, parseCheckpointText } from './checkpoint.js';
import { readTreeHeadLines, TREE_HEAD_TAG } from './note.js';

/** The size the line names, or null for a line that is neither kind (or malformed). */
export function checkpointLineSize(line: string): number | null {
  const head = line.indexOf(TREE_HEAD_TAG);
  if (head >= 0) {
    const [r] = readTreeHeadLines(line.slice(head));
    if (!r || !('note' in r)) return null;
    const size = r.note.split('\n')[1] ?? '';
    return /^(0|[1-9][0-9]{0,15})$/.test(size) ? Number(size) : null;
  }
  const at = line.indexOf(CHECKPOINT_TAG);
  if (at < 0) return null;
  const rest = line.slice(at + CHECKPOINT_TAG.length).replace(/\r$/, '');
  return parseCheckpointText(rest.slice(0, Math.max(0, rest.lastIndexOf(' '))))?.size ?? null;
}
