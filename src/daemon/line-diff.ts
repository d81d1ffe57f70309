/**
 * Which lines a new text removes from an old one and which it adds: a shortest edit
 * script (Myers, "An O(ND) Difference Algorithm"), after the common head and tail are
 * set aside. Lines keep their '\n', so the lists are exact to the byte: a last line that
 * gains its missing newline counts as removed and added again. Pure.
 */
export interface LineDiff {
  /** Lines of the old text that go, in their order. */
  removed: string[];
  /** Lines of the new text that were not in the old one, in their order. */
  added: string[];
}

/** The lines of `text`, each with its '\n' (the last one may lack it). '' has none. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** The edit from `before` to `after`, or null when it needs more than `maxEdits` removed plus added lines. */
export function lineDiff(before: string, after: string, maxEdits = 500): LineDiff | null {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return shortestEdit(a.slice(head, a.length - tail), b.slice(head, b.length - tail), maxEdits);
}

function shortestEdit(x: string[], y: string[], maxEdits: number): LineDiff | null {
  const n = x.length;
  const m = y.length;
  if (n + m > 0 && (n === 0 || m === 0)) return n + m > maxEdits ? null : { removed: x, added: y };
  const dmax = Math.min(n + m, maxEdits);
  const off = dmax + 1;
  // v[off + k]: the furthest x reached on diagonal k; trace[d] is v as it was before round d.
  const v = new Int32Array(2 * dmax + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= dmax; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let xi = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let yi = xi - k;
      while (xi < n && yi < m && x[xi] === y[yi]) {
        xi++;
        yi++;
      }
      v[off + k] = xi;
      if (xi >= n && yi >= m) return backtrack(x, y, trace, off);
    }
  }
  return null;
}

function backtrack(x: string[], y: string[], trace: Int32Array[], off: number): LineDiff {
  const removed: string[] = [];
  const added: string[] = [];
  let xi = x.length;
  let yi = y.length;
  for (let d = trace.length - 1; d > 0; d--) {
    const v = trace[d]!;
    const k = xi - yi;
    const down = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[off + prevK]!;
    const prevY = prevX - prevK;
    // One line down (added) or right (removed) from (prevX, prevY), then equal lines up to (xi, yi).
    if (down) added.push(y[prevY]!);
    else removed.push(x[prevX]!);
    xi = prevX;
    yi = prevY;
  }
  return { removed: removed.reverse(), added: added.reverse() };
}
