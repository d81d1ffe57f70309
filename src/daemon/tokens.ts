/**
 * Token principals, for the listeners where the kernel cannot say who is asking
 * (TCP, and the Unix socket a vsock bridge forwards to). A root-owned file that
 * only root can read names each token's principal, role and whether it is
 * unattended, and holds only the SHA-256 of the token: a copy of the file gives
 * no credential. A presented token is hashed and compared with every entry in
 * constant time; tokens are never logged or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { AirlockError } from '../protocol/errors.js';
import type { Role } from '../protocol/risk.js';
import type { Identity } from './identity.js';
import { TOKEN_SHAPE, tokenHash } from '../protocol/token.js';

export const DEFAULT_TOKENS_PATH = '/etc/airlock/tokens.toml';

const TokensSchema = z.strictObject({
  token: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'a token name is 1 to 32 lower-case letters, digits, _ and -'),
        role: z.enum(['observer', 'dev', 'admin', 'boot']),
        unattended: z.boolean().default(false),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 is the token\'s SHA-256 in 64 lower-case hex digits'),
      }),
    )
    .default([]),
});

interface TokenEntry {
  name: string;
  role: Role;
  unattended: boolean;
  hash: Buffer;
}


/**
 * A token principal's uid: negative, so it never equals a Unix uid (root's 0 least of
 * all), and stable per name, so its transactions stay its own across restarts.
 */
export const tokenUid = (name: string) => -1 - (createHash('sha256').update(`airlock-token:${name}`).digest().readUInt32BE(0) & 0x7fffffff);

export class TokenTable {
  private constructor(private readonly entries: TokenEntry[]) {}

  static empty(): TokenTable {
    return new TokenTable([]);
  }

  /** Absent file: no token is valid. A file others can read or write, or that does not validate, stops the daemon. */
  static load(path: string): TokenTable {
    let st;
    try {
      st = lstatSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return TokenTable.empty();
      throw e;
    }
    if (!st.isFile() || st.uid !== 0 || (st.mode & 0o077) !== 0) {
      throw new AirlockError('integrity', 'tokens_untrusted', `${path} must be a regular file owned by root with mode 0600 (it holds credentials' hashes)`, `sudo chown root: ${path} && sudo chmod 600 ${path}`);
    }
    let data: unknown;
    try {
      data = parseToml(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new AirlockError('validation', 'tokens_invalid', `${path} is not valid TOML: ${(e as Error).message.split('\n')[0]}`);
    }
    const r = TokensSchema.safeParse(data);
    if (!r.success) throw new AirlockError('validation', 'tokens_invalid', `${path}: ${z.prettifyError(r.error).replace(/\n/g, '; ')}`);
    const names = new Set<string>();
    const uids = new Set<number>();
    for (const t of r.data.token) {
      if (names.has(t.name) || uids.has(tokenUid(t.name))) throw new AirlockError('validation', 'tokens_invalid', `${path}: the token name ${t.name} is used twice`);
      names.add(t.name);
      uids.add(tokenUid(t.name));
    }
    return new TokenTable(r.data.token.map((t) => ({ name: t.name, role: t.role, unattended: t.unattended, hash: Buffer.from(t.sha256, 'hex') })));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The principal a presented token stands for, or null. Every entry is compared, matching or not. */
  identify(token: unknown): Identity | null {
    if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) return null;
    const presented = tokenHash(token);
    let found: TokenEntry | null = null;
    for (const e of this.entries) if (timingSafeEqual(e.hash, presented) && !found) found = e;
    if (!found) return null;
    return { uid: tokenUid(found.name), user: `token:${found.name}`, role: found.role, approver: false, pid: 0, via: 'token', unattended: found.unattended, person: null };
  }
}
