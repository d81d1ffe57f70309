/**
 * What a preview changes, as a sysadmin used to `ansible --check --diff` reads it: file edits
 * as unified diffs (`--- path`, `+++ path`, `@@` hunks with the context the daemon sends),
 * state changes as `name: before -> after`, each SSH key with the fingerprint `ssh-keygen -lf`
 * prints for it; and the mechanism, compact, one line per step. Every text the daemon sent is
 * escaped again here (defence in depth) before any colour.
 */
import { escapeText } from '../protocol/escape-text.js';
import type { CommandEntry, MechanismEntry, ShownDiff } from '../protocol/messages.js';
import { fingerprintText, sshKeyFingerprint } from '../protocol/ssh-fingerprint.js';
import { c } from './colour.js';

/** One line of text, safe to print. */
export const t = (s: unknown) => escapeText(String(s));
/** A line of a file: tabs kept as they are, everything else escaped, and never a line break. */
export const fileLine = (s: string) => escapeText(s, 'block').replace(/\n/g, '\\x0a');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
/** A value on one line: a scalar as it is, anything else as compact JSON. */
const oneLine = (v: unknown): string => (typeof v === 'string' ? t(v) : t(JSON.stringify(v)));

/** The fingerprint line under a text that carries a whole SSH public key; nothing otherwise. */
function keyNote(text: string, indent: string): string[] {
  const f = sshKeyFingerprint(text);
  return f ? [`${indent}${c.dim(`key ${t(fingerprintText(f))}`)}`] : [];
}

/** Fields that name what a change is to, put before its state when it has one. */
const SUBJECTS = ['unit', 'user', 'group', 'package', 'module', 'interface'];

/**
 * The action's own statement of the change (`proposed_change.change`), field by field:
 * `{from, to}` as `field: from -> to`, `text` as the sentence it is, lists joined, empty
 * fields left out. A field whose value is an object is shown under its name the same way.
 */
export function changeLines(change: unknown, indent = '    '): string[] {
  if (change === null || change === undefined) return [];
  if (!isObject(change)) return [`${indent}${oneLine(change)}`, ...(typeof change === 'string' ? keyNote(change, indent + '  ') : [])];
  const out: string[] = [];
  // What the change is to, with its state: `unit nginx.service: active, running, PID 812 -> restarted`.
  const subject = SUBJECTS.find((k) => typeof change[k] === 'string');
  const state = change.state;
  const joined = subject !== undefined && isObject(state) && 'from' in state && 'to' in state;
  if (joined) out.push(`${indent}${t(subject)} ${t(change[subject])}: ${oneLine(state.from)} ${c.bold('->')} ${oneLine(state.to)}`);
  for (const [key, v] of Object.entries(change)) {
    if (joined && (key === subject || key === 'state')) continue;
    const name = t(key.replace(/_/g, ' '));
    if (v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (key === 'text' && typeof v === 'string') out.push(`${indent}${t(v)}`);
    else if (isObject(v) && 'from' in v && 'to' in v) out.push(`${indent}${name}: ${oneLine(v.from)} ${c.bold('->')} ${oneLine(v.to)}`);
    else if (scalar(v)) out.push(`${indent}${name}: ${oneLine(v)}`, ...(typeof v === 'string' ? keyNote(v, indent + '  ') : []));
    else if (Array.isArray(v) && v.every(scalar)) out.push(`${indent}${name}: ${v.map(oneLine).join(', ')}`);
    else if (isObject(v)) out.push(`${indent}${name}:`, ...changeLines(v, indent + '  '));
    else out.push(`${indent}${name}: ${oneLine(v)}`);
  }
  return out;
}

/** A unified diff of one file step: headers, then the daemon's hunks, or its removed and added lines where it sent no hunks. */
export function fileDiff(m: MechanismEntry, indent = '    '): string[] {
  const path = 'path' in m ? t(m.path) : '';
  const head = (from: string, to: string) => [c.bold(`${indent}--- ${from}`), c.bold(`${indent}+++ ${to}`)];
  switch (m.kind) {
    case 'fileWrite': {
      const created = m.binds === 'content' && m.before === null;
      if (!m.diff) return [...head(created ? '/dev/null' : path, path), `${indent}${c.dim(`(${m.binds === 'content' ? m.bytes : '?'} bytes: too different from the current file to show line by line; the digest binds every byte)`)}`];
      return [...head(created ? '/dev/null' : path, path), ...diffBody(m.diff, indent, created ? 'new file' : 'lines removed and added')];
    }
    case 'filePatch':
      return [...head(path, path), ...diffBody(m.diff, indent, 'this text is replaced, exactly once')];
    case 'fileDelete':
      return [...head(path, '/dev/null'), `${indent}${c.dim(m.before ? `(the whole file goes: ${m.before.bytes} bytes)` : '(absent now)')}`];
    default:
      return [];
  }
}

function diffBody(d: ShownDiff, indent: string, what: string): string[] {
  const paint = (l: string) => (l.startsWith('+') ? c.green(l) : l.startsWith('-') ? c.red(l) : l.startsWith('\\') ? c.dim(l) : l);
  const lines: string[] = [];
  const push = (marked: string) => {
    lines.push(`${indent}${paint(marked[0]! + fileLine(marked.slice(1)))}`);
    if (marked[0] !== ' ') lines.push(...keyNote(marked.slice(1), `${indent}  `));
  };
  if (d.hunks) {
    for (const h of d.hunks) {
      lines.push(`${indent}${c.cyan(`@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@`)}`);
      h.lines.forEach(push);
    }
  } else {
    lines.push(`${indent}${c.cyan(`@@ ${what} @@`)}`);
    d.removed.forEach((l) => push('-' + l));
    d.added.forEach((l) => push('+' + l));
  }
  if (d.not_shown > 0) lines.push(`${indent}${c.dim(`… ${d.not_shown} more lines, covered by the digest`)}`);
  if (d.removed.length + d.added.length === 0 && d.not_shown === 0) lines.push(`${indent}${c.dim('(no line changes)')}`);
  return lines;
}

/** A command as a person reads argv: words, with the quoting only where a word needs it. */
const word = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : JSON.stringify(s));
/** A digest as a person compares it: the first 12 hex digits (verbose: whole). */
const digest = (hex: string, verbose: boolean) => t(verbose ? hex : `${hex.slice(0, 12)}…`);

function commandLine(m: CommandEntry, verbose: boolean): string {
  const extras = [
    m.env ? `env ${Object.entries(m.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : '',
    m.ok_codes ? `ok exit ${m.ok_codes.join(',')}` : '',
    m.timeout_ms !== undefined ? `limit ${Math.round(m.timeout_ms / 1000)}s` : '',
    m.resource ? `needs ${m.resource}` : '',
    m.unprivileged ? 'as nobody' : '',
    verbose && m.paths?.length ? `paths checked ${m.paths.join(' ')}` : '',
    m.file ? `fd 3 = ${m.file.path}${m.file.create ? ` (new, ${m.file.create.mode})` : ''}` : '',
    verbose && m.expect ? `${m.expect.path} must still be that file` : '',
    m.verdict ? `passes only with "${m.verdict.success}"` : '',
  ].filter(Boolean);
  return t([m.program, ...m.args].map(word).join(' ')) + (extras.length ? c.dim(`  (${t(extras.join('; '))})`) : '');
}

/** One mechanism step on one line (an undo on a second): what it does and to what; the diff is shown under what changes. */
export function stepLine(m: MechanismEntry, verbose: boolean): string {
  switch (m.kind) {
    case 'command':
      return `${c.cyan('run')} ${commandLine(m, verbose)}${m.undo ? `\n    ${c.dim('undo')} ${commandLine(m.undo, verbose)}` : ''}`;
    case 'fileScan':
      return `${c.cyan('read')} ${t(m.path)}`;
    case 'fileDelete':
      return `${c.cyan('delete')} ${t(m.path)}${m.before ? c.dim(`  (${m.before.bytes} bytes, sha256 ${digest(m.before.sha256, verbose)})`) : c.dim('  (absent now)')}`;
    case 'filePatch':
      return `${c.cyan('patch')} ${t(m.path)}${c.dim(`  (replaces the text shown exactly once; sha256 ${digest(m.sha256, verbose)})`)}`;
    case 'fileWrite': {
      const owner = (o: { uid: number; gid: number } | null) => (o ? ` owner ${o.uid}:${o.gid}` : '');
      const attrs = `new-file mode ${t(m.mode)}${owner(m.owner)}${m.parent ? `, creates its directory (mode ${t(m.parent.mode)}${owner(m.parent.owner)})` : ''}`;
      if (m.binds === 'own_lines') return `${c.cyan('edit')} ${t(m.path)}${c.dim(`  (keeps the lines other programs change meanwhile; approved are the lines shown: sha256 ${digest(m.sha256, verbose)}; ${attrs})`)}`;
      const was = m.before ? `replaces ${m.before.bytes} bytes (sha256 ${digest(m.before.sha256, verbose)})` : 'creates it';
      return `${c.cyan('write')} ${t(m.path)}${c.dim(`  (${m.bytes} bytes, sha256 ${digest(m.sha256, verbose)}; ${was}; ${attrs})`)}`;
    }
    default: // a step this client does not know: shown whole rather than not at all
      return t(JSON.stringify(m));
  }
}
