/**
 * Where browsers see the console, when `--origin` does not say: the origin of the policy's
 * `[console] url` (the address notifications link to, which [passkeys] origins must hold), so
 * that a host behind a reverse proxy names its address once, in the root-owned policy. Only that
 * key is read here; the daemon judges the whole file. No file, or no url: null (the default,
 * http://localhost:PORT).
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { AirlockError } from '../protocol/errors.js';

export function policyConsoleOrigin(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new AirlockError('validation', 'bad_origin', `cannot read ${path} for [console] url (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, 'give --origin URL, or make the policy readable (airlock install writes it 0644)');
  }
  let url: unknown;
  try {
    url = (parseToml(text) as { console?: { url?: unknown } }).console?.url;
  } catch (e) {
    throw new AirlockError('validation', 'bad_origin', `${path} is not valid TOML (${(e as Error).message.split('\n')[0]})`, 'fix it (`airlock policy check`), or give --origin URL');
  }
  if (url === undefined) return null;
  try {
    if (typeof url !== 'string') throw new Error('not a string');
    return new URL(url).origin;
  } catch {
    throw new AirlockError('validation', 'bad_origin', `[console] url in ${path} is not a URL`, 'fix it (`airlock policy check`), or give --origin URL');
  }
}
