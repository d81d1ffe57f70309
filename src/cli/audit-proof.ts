/**
 * The bodies of `airlock audit tree-head`, `audit prove`, `audit consistency` and
 * `audit verify --proof` (audit.ts declares them). The daemon signs a head and builds the RFC 9162
 * proof (any role may ask); this side checks every answer with the auditor's public key before it
 * prints it, so a proof that would not verify offline is never shown as one. A proof written with
 * --out is a self-contained JSON file that `airlock audit verify --proof FILE --pubkey FILE`
 * checks on any machine, with no daemon.
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { writeFileSafely } from '../protocol/safe-write.js';
import { checkProof, type ProofCheck } from '../audit/proof.js';
import { parseTreeHead } from '../audit/note.js';
import type { ConsistencyProofDoc, InclusionProofDoc } from '../protocol/messages.js';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { readPublicKeys } from './audit-keys.js';
import { withClient } from './connect.js';
import { c, printJson } from './ui.js';

/** The longest proof file read: a transaction's entries and their paths are a few KiB. */
const MAX_PROOF_FILE = 4 * 1024 * 1024;

/** `airlock audit tree-head [--size N]`: a fresh signed tree head, checked with the key when --pubkey is given. */
export async function treeHead(o: { size?: string; pubkey?: string; json?: boolean }, cmd: Command): Promise<number> {
  const size = o.size === undefined ? undefined : wholeNumber(o.size, '--size');
  const head = await withClient(cmd, (cl) => cl.call('audit.tree_head', size === undefined ? {} : { size }));
  // With a key, the head is checked before it is shown: the daemon's word is not evidence.
  if (o.pubkey !== undefined) {
    const checked = parseTreeHead(head.note, readPublicKeys(o.pubkey));
    if (typeof checked === 'string') {
      process.stdout.write(`${c.red('INVALID')}  the daemon's tree head does not verify with your key: ${escapeText(checked)}\n`);
      return 1;
    }
  }
  if (o.json) printJson(head);
  else process.stdout.write(escapeText(head.note, 'block'));
  return 0;
}

/** `airlock audit prove ID`: every entry of the transaction, proven included in a signed tree head. */
export async function prove(id: string, o: { pubkey: string; out?: string; force?: boolean; json?: boolean }, cmd: Command): Promise<number> {
  const keys = readPublicKeys(o.pubkey);
  const doc = await withClient(cmd, (cl) => cl.call('audit.prove', { transaction_id: id }));
  return emit(doc, checkProof(doc, keys), o);
}

/** `airlock audit consistency OLD [NEW]`: the tree of size NEW (default: now) extends the tree of size OLD. */
export async function consistency(oldText: string, newText: string | undefined, o: { pubkey: string; out?: string; force?: boolean; json?: boolean }, cmd: Command): Promise<number> {
  const keys = readPublicKeys(o.pubkey);
  const old_size = wholeNumber(oldText, 'OLD');
  const params = newText === undefined ? { old_size } : { old_size, new_size: wholeNumber(newText, 'NEW') };
  const doc = await withClient(cmd, (cl) => cl.call('audit.consistency', params));
  return emit(doc, checkProof(doc, keys), o);
}

/** `airlock audit verify --proof FILE --pubkey FILE`: offline; exit 0 valid, 1 invalid, 2 unreadable. */
export function verifyProofFile(path: string, o: { pubkey: string; origin?: string; json?: boolean }): number {
  const keys = readPublicKeys(o.pubkey);
  let doc: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_PROOF_FILE) throw new AirlockError('validation', 'bad_proof', `${path} is over ${MAX_PROOF_FILE} bytes: not a proof file`);
    doc = JSON.parse(text);
  } catch (e) {
    if (e instanceof AirlockError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new AirlockError('validation', 'bad_proof', code ? `cannot read ${path}: ${code}` : `${path} is not JSON: not a proof file`, 'write one with `airlock audit prove ID --out FILE` or `airlock audit consistency OLD --out FILE`');
  }
  const check = checkProof(doc, keys, o.origin === undefined ? {} : { origin: o.origin });
  print(check, Boolean(o.json));
  return check.status === 'valid' ? 0 : 1;
}

function emit(doc: InclusionProofDoc | ConsistencyProofDoc, check: ProofCheck, o: { out?: string; force?: boolean; json?: boolean }): number {
  // A proof the daemon built but this key cannot check is a finding about the daemon: never written as a proof.
  if (check.status !== 'valid') {
    print(check, Boolean(o.json));
    return 1;
  }
  if (o.out !== undefined) {
    writeNew(o.out, JSON.stringify(doc, null, 1) + '\n', Boolean(o.force));
    if (o.json) printJson({ path: o.out, ...check });
    else {
      process.stdout.write(`${c.green('valid')}  ${escapeText(check.summary)}\n`);
      process.stdout.write(`wrote ${escapeText(o.out)}: check it anywhere, with no daemon: airlock audit verify --proof ${escapeText(o.out)} --pubkey audit.pub\n`);
    }
    return 0;
  }
  if (o.json) printJson(doc);
  else print(check, false);
  return 0;
}

function print(check: ProofCheck, json: boolean): void {
  if (json) return printJson(check);
  const label = check.status === 'valid' ? c.green('valid') : c.red('INVALID');
  process.stdout.write(`${label}  ${escapeText(check.summary)}\n`);
  for (const h of check.heads) process.stdout.write(`  tree head: size ${h.size}, root ${h.root.slice(0, 16)}…, signed ${h.time} by key ${h.key_id}\n`);
}

function wholeNumber(text: string, what: string): number {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) throw new AirlockError('validation', 'bad_size', `${what} must be a tree size: a whole number (got ${JSON.stringify(text.slice(0, 40))})`, 'see the log size with `airlock audit tree-head`');
  return Number(text);
}

/** Writes a new file; an existing one is replaced only with `force`. */
function writeNew(path: string, text: string, force: boolean): void {
  try {
    writeFileSafely(path, text, { mode: 0o644, exclusive: !force });
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'file_exists') throw new AirlockError('conflict', 'file_exists', `${path} exists`, 'choose another file, or add --force to replace it');
    throw e;
  }
}
