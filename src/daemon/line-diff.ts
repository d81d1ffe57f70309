/**
 * Which lines a new text removes from an old one and which it adds: a shortest edit
 * script (Myers, "An O(ND) Difference Algorithm"), after the common head and tail are
 * set aside, and its hunks as `diff -u` shows them. Lines keep their '\n', so the lists are exact to the byte: a last line that
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

/** One line of an edit script: kept (' '), removed ('-') or added ('+'); the line keeps its '\n'. */
export interface LineEdit {
  op: ' ' | '-' | '+';
  line: string;
}

/**
 * The whole edit script from `before` to `after`, every line of both texts in order (kept
 * lines once), or null when it needs more than `maxEdits` removed plus added lines.
 */
export function lineEdits(before: string, after: string, maxEdits = 500): LineEdit[] | null {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middle = shortestEdit(a.slice(head, a.length - tail), b.slice(head, b.length - tail), maxEdits);
  if (!middle) return null;
  const kept = (lines: string[]): LineEdit[] => lines.map((line) => ({ op: ' ', line }));
  return [...kept(a.slice(0, head)), ...middle, ...kept(a.slice(a.length - tail))];
}

/** The edit from `before` to `after`, or null when it needs more than `maxEdits` removed plus added lines. */
export function lineDiff(before: string, after: string, maxEdits = 500): LineDiff | null {
  const edits = lineEdits(before, after, maxEdits);
  if (!edits) return null;
  return { removed: edits.filter((e) => e.op === '-').map((e) => e.line), added: edits.filter((e) => e.op === '+').map((e) => e.line) };
}

/** A hunk of a unified diff: where it starts in each text (1-based; 0 for an empty side, as diff -u writes it), how many lines, its edits. */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  edits: LineEdit[];
}

/** The hunks of `diff -u` with `context` kept lines around each change (changes closer than twice that share a hunk). */
export function hunks(edits: LineEdit[], context = 3): Hunk[] {
  const out: Hunk[] = [];
  const changed = edits.map((e, i) => (e.op === ' ' ? -1 : i)).filter((i) => i >= 0);
  let k = 0;
  while (k < changed.length) {
    let last = changed[k]!;
    let j = k + 1;
    while (j < changed.length && changed[j]! - last <= 2 * context + 1) last = changed[j++]!;
    const from = Math.max(0, changed[k]! - context);
    const to = Math.min(edits.length, last + context + 1);
    // Line numbers where the hunk starts: the lines of each text before it.
    let oldBefore = 0;
    let newBefore = 0;
    for (let i = 0; i < from; i++) {
      if (edits[i]!.op !== '+') oldBefore++;
      if (edits[i]!.op !== '-') newBefore++;
    }
    const part = edits.slice(from, to);
    const oldLines = part.filter((e) => e.op !== '+').length;
    const newLines = part.filter((e) => e.op !== '-').length;
    out.push({ oldStart: oldLines === 0 ? oldBefore : oldBefore + 1, oldLines, newStart: newLines === 0 ? newBefore : newBefore + 1, newLines, edits: part });
    k = j;
  }
  return out;
}

function shortestEdit(x: string[], y: string[], maxEdits: number): LineEdit[] | null {
  const n = x.length;
  const m = y.length;
  if (n + m > 0 && (n === 0 || m === 0)) {
    if (n + m > maxEdits) return null;
    return [...x.map((line): LineEdit => ({ op: '-', line })), ...y.map((line): LineEdit => ({ op: '+', line }))];
  }
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

function backtrack(x: string[], y: string[], trace: Int32Array[], off: number): LineEdit[] {
  const edits: LineEdit[] = [];
  let xi = x.length;
  let yi = y.length;
  // Equal lines from (fromX, fromY) up to (xi, yi), walked back.
  const keptBackTo = (fromX: number, fromY: number) => {
    while (xi > fromX && yi > fromY) {
      edits.push({ op: ' ', line: x[--xi]! });
      yi--;
    }
  };
  for (let d = trace.length - 1; d > 0; d--) {
    const v = trace[d]!;
    const k = xi - yi;
    const down = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[off + prevK]!;
    const prevY = prevX - prevK;
    // One line down (added) or right (removed) from (prevX, prevY), then equal lines up to (xi, yi).
    keptBackTo(down ? prevX : prevX + 1, down ? prevY + 1 : prevY);
    edits.push(down ? { op: '+', line: y[prevY]! } : { op: '-', line: x[prevX]! });
    xi = prevX;
    yi = prevY;
  }
  keptBackTo(0, 0);
  return edits.reverse();
}
