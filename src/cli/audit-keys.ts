/**
 * The auditor's public key file, read for every `airlock audit` command that checks something:
 * the key is always the auditor's own copy, never the source's word.
 */
import { readFileSync } from 'node:fs';
import { parsePublicKeys } from '../audit/keys.js';
import { AirlockError } from '../protocol/errors.js';

export function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new AirlockError('validation', 'bad_pubkey', `no public key file at ${path}`, 'write one with `airlock audit pubkey --out audit.pub` (then compare its key id with the one the host\'s administrator gives you)');
    if (code === 'EACCES') throw new AirlockError('authorization', 'permission_denied', `permission denied: ${path}`, 'write a copy you can read with `airlock audit pubkey --out audit.pub`');
    throw new AirlockError('validation', 'bad_pubkey', `cannot read ${path}: ${code ?? (e as Error).message}`);
  }
}

/** Every key in the file (the log's key history), oldest first. */
export const readPublicKeys = (path: string): Buffer[] => parsePublicKeys(readKeyFile(path));
