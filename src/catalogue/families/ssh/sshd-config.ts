/**
 * sshd's configuration as sshd reads it: sshd_config and the files it includes, in sshd's
 * order, with the place of Airlock's drop-in, and the effective values `sshd -T` prints.
 */
import { basename, dirname } from 'node:path';
import type { Host } from '../../action.js';
import { listDirectory } from '../../lib/host-files.js';
import { sshPatternRe } from '../../lib/ssh-patterns.js';

const SSH_DIR = '/etc/ssh';
export const SSHD_CONFIG = `${SSH_DIR}/sshd_config`;
export const SSHD_DROPIN = `${SSH_DIR}/sshd_config.d/60-airlock.conf`;

/** One unconditional directive (outside any Match block), in the order sshd reads it. */
export interface Directive {
  file: string;
  line: number;
  /** The keyword, lower-cased (sshd's keywords are case-insensitive). */
  key: string;
  text: string;
  args: string[];
}

/** `Keyword value ...` or `Keyword=value`; comments from a '#' that starts a word. Null for blank and comment lines. */
export function parseDirective(raw: string): { keyword: string; args: string[] } | null {
  const m = /^\s*([A-Za-z][A-Za-z0-9]*)(?:\s*=\s*|\s+|$)(.*)$/.exec(raw);
  if (!m) return null;
  const args: string[] = [];
  for (const w of m[2]!.trim().split(/\s+/).filter(Boolean)) {
    if (w.startsWith('#')) break;
    args.push(w);
  }
  return { keyword: m[1]!, args };
}

export interface ConfigView {
  directives: Directive[];
  /** Where the drop-in's own lines sit in `directives` (it is left out of them); null when no Include reaches it. */
  dropinAt: number | null;
  /** The drop-in is reached only inside a Match block, so it would apply to some connections only. */
  dropinConditional: boolean;
  /** Include patterns or files that could not be followed. */
  unresolved: string[];
}

const MAX_INCLUDE_DEPTH = 16;
const INCLUDABLE_NAME = /^[A-Za-z0-9_@+-][A-Za-z0-9._@+-]*$/;

/** The files an Include argument names, sorted as glob(3) returns them; the drop-in counts as present. */
async function includedFiles(host: Host, arg: string, view: ConfigView): Promise<string[]> {
  const abs = arg.startsWith('/') ? arg : `${SSH_DIR}/${arg}`;
  if (!/[*?[]/.test(abs)) return [abs];
  const dir = dirname(abs);
  const pat = basename(abs);
  if (/[*?[]/.test(dir) || pat.includes('[')) {
    view.unresolved.push(arg);
    return [];
  }
  const names = (await listDirectory(host, dir)) ?? [];
  if (dir === dirname(SSHD_DROPIN) && !names.includes(basename(SSHD_DROPIN))) names.push(basename(SSHD_DROPIN));
  const re = sshPatternRe(pat);
  return names
    .filter((n) => INCLUDABLE_NAME.test(n) && re.test(n))
    .sort()
    .map((n) => `${dir}/${n}`);
}

async function readInto(host: Host, file: string, depth: number, conditional: boolean, view: ConfigView): Promise<void> {
  if (file === SSHD_DROPIN) {
    if (view.dropinAt === null) {
      view.dropinAt = view.directives.length;
      view.dropinConditional = conditional;
    }
    return;
  }
  const text = await host.readFile(file).catch(() => {
    view.unresolved.push(file);
    return null;
  });
  if (text === null) return;
  let inMatch = conditional;
  for (const [i, raw] of text.split('\n').entries()) {
    const d = parseDirective(raw);
    if (!d) continue;
    const key = d.keyword.toLowerCase();
    if (key === 'match') inMatch = true;
    else if (key === 'include') {
      for (const arg of d.args) {
        if (depth >= MAX_INCLUDE_DEPTH) view.unresolved.push(arg);
        else for (const f of await includedFiles(host, arg, view)) await readInto(host, f, depth + 1, inMatch, view);
      }
    } else if (!inMatch) view.directives.push({ file, line: i + 1, key, text: raw.trim(), args: d.args });
  }
}

/** Reads sshd_config and what it includes, in sshd's order, noting where the drop-in is (or would be) read. */
export async function readConfigView(host: Host): Promise<ConfigView> {
  const view: ConfigView = { directives: [], dropinAt: null, dropinConditional: false, unresolved: [] };
  await readInto(host, SSHD_CONFIG, 0, false, view);
  return view;
}

/** `sshd -T` output as keyword -> values (one value per line for repeated keywords). */
export function parseEffective(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp <= 0) continue;
    const key = line.slice(0, sp);
    out.set(key, [...(out.get(key) ?? []), line.slice(sp + 1)]);
  }
  return out;
}
