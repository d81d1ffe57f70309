/**
 * Repository keys as AddRepository shows and checks them: what a person should know about a
 * key (read by ../../lib/openpgp.ts), and gpg reading the written keyring back.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import type { OpenPgpKey } from '../../lib/openpgp.js';

export const KEYRING_DIR = '/etc/apt/keyrings';

/** What a person should know about these keys before trusting a repository with them. */
export function keyWarnings(keys: OpenPgpKey[]): string[] {
  const w: string[] = [];
  for (const k of keys) {
    for (const a of [k.algorithm, ...k.subkeys.map((s) => s.algorithm)]) {
      const m = /^(RSA|DSA|Elgamal) (\d+)$/.exec(a);
      if (m && (m[1] === 'DSA' || Number(m[2]) < 2048)) w.push(`key ${k.fingerprint} uses ${a}, which current apt versions consider weak`);
    }
    if (k.userIds.length === 0) w.push(`key ${k.fingerprint} has no user ID`);
    if (k.version === 6) w.push(`key ${k.fingerprint} is a version 6 key: gpgv before GnuPG 2.5 cannot use it (sqv can)`);
  }
  return [...new Set(w)];
}

export const describeKey = (k: OpenPgpKey) => ({ fingerprint: k.fingerprint, algorithm: k.algorithm, created: k.created, user_ids: k.userIds, subkeys: k.subkeys.map((s) => `${s.fingerprint} ${s.algorithm}`) });

export async function gpgAvailable(host: Host): Promise<boolean> {
  try {
    return (await host.run('gpg', ['--version'])).code === 0;
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'program_missing') return false;
    throw e;
  }
}

/**
 * gpg reads the written keyring back without importing it anywhere: no keyring of its own
 * (/dev/null), no trust database, and a home directory it writes nothing to. A file gpg cannot
 * read fails the job; its colon listing (fingerprints, validity) goes into the job output.
 */
export const gpgShowKeys = (file: string): CommandStep =>
  command('gpg', ['--batch', '--no-options', '--homedir', KEYRING_DIR, '--no-permission-warning', '--no-default-keyring', '--keyring', '/dev/null', '--trust-model', 'always', '--no-auto-check-trustdb', '--show-keys', '--with-colons', '--', file], { noUndo: 'changes_nothing' });
