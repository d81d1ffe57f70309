/**
 * The block setup adds to a text file (an agent's guidance, the Codex server table), between a
 * begin and an end line, so that it can be found again, replaced in place, and removed with
 * exactly what surrounded it before. A begin line is recognised by its start, so the wording
 * after it may change between versions; a file with a half or a doubled block is refused.
 */
import type { Edit } from './json-edit.js';

export interface Markers {
  begin: string;
  end: string;
  /** What begin lines start with. */
  beginPrefix: string;
}

const NOTE = 'added by `airlock setup`; `airlock setup --uninstall` removes it';
export const MARKDOWN: Markers = { beginPrefix: '<!-- BEGIN airlock', begin: `<!-- BEGIN airlock (${NOTE}) -->`, end: '<!-- END airlock -->' };
export const TOML_COMMENT: Markers = { beginPrefix: '# BEGIN airlock', begin: `# BEGIN airlock (${NOTE})`, end: '# END airlock' };

type Found = { kind: 'none' } | { kind: 'one'; start: number; end: number } | { kind: 'broken'; why: string };

/** The block's span: from the start of its begin line to the end of its end line (without the newline). */
export function findBlock(text: string, m: Markers): Found {
  const begins: number[] = [];
  const ends: number[] = [];
  let at = 0;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.startsWith(m.beginPrefix)) begins.push(at);
    else if (line === m.end) ends.push(at + raw.length);
    at += raw.length + 1;
  }
  if (begins.length === 0 && ends.length === 0) return { kind: 'none' };
  if (begins.length !== 1 || ends.length !== 1 || ends[0]! < begins[0]!) {
    return { kind: 'broken', why: `its airlock markers do not pair up (${begins.length} begin, ${ends.length} end line(s)): leave one "${m.begin.slice(0, 18)}..." line and one "${m.end}" line, or remove both, then run setup again` };
  }
  return { kind: 'one', start: begins[0]!, end: ends[0]! };
}

export const block = (body: string, m: Markers) => `${m.begin}\n${body.replace(/\n+$/, '')}\n${m.end}`;

/** The text with the block in place: replaced where it was, or appended after a blank line. */
export function putBlock(before: string | null, body: string, m: Markers): Edit {
  const b = block(body, m);
  if (before === null || before.trim() === '') return { ok: true, text: `${b}\n` };
  const found = findBlock(before, m);
  if (found.kind === 'broken') return { ok: false, reason: found.why };
  if (found.kind === 'one') return { ok: true, text: before.slice(0, found.start) + b + before.slice(found.end) };
  // After a last line without its newline the block ends without one too, so dropBlock can give the file back as it was.
  return { ok: true, text: before.endsWith('\n') ? `${before}\n${b}\n` : `${before}\n\n${b}` };
}

/** The text without the block, its newline, and the blank line putBlock put before it (both newlines, for a block that ends the file without one). */
export function dropBlock(before: string | null, m: Markers): Edit {
  if (before === null) return { ok: true, text: null };
  const found = findBlock(before, m);
  if (found.kind === 'broken') return { ok: false, reason: found.why };
  if (found.kind === 'none') return { ok: true, text: before };
  let start = found.start;
  let end = found.end;
  const blankBefore = start >= 2 && before[start - 1] === '\n' && before[start - 2] === '\n';
  if (before[end] === '\n') {
    end++;
    if (blankBefore) start--;
  } else if (blankBefore) start -= 2;
  return { ok: true, text: before.slice(0, start) + before.slice(end) };
}
