/**
 * The match code of a preview: six symbols derived from its preview digest, shown wherever
 * the preview is shown (the requester's `airlock preview`, the MCP answer an agent relays,
 * the approver's `airlock approve`), so a person approving sees at a glance that the request
 * in front of them is the one their agent is waiting on.
 *
 * A visual check, not a secret and not a proof: it binds nothing by itself (30 bits can be
 * matched by a grinding attacker, and anyone who sees the preview can compute it). What the
 * approval binds is the whole preview digest, which the daemon compares. The code only makes a
 * mix-up between two pending requests visible to a person who compares two short strings.
 *
 * Letters and a hyphen, `K7Q-2MX`: never read as the six-digit authenticator code the same
 * prompt asks for, so nobody types it there (or types their code where this is shown). The
 * Crockford alphabet leaves out I, L, O and U, which are misread as 1, 0 or V.
 *
 * Clients compute it from the digest they already have; the daemon neither sends nor stores it.
 */
import { createHash } from 'node:crypto';
import { AirlockError } from './errors.js';

/** Crockford's base32 alphabet: digits and letters without I, L, O, U. */
export const MATCH_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Domain separation: a match code is never equal to the leading symbols of any other hash of the digest. */
const DOMAIN = 'airlock-match-code-v1\0';

/** A preview digest as the wire carries it (src/protocol/wire/fields.ts hex64): lowercase hex SHA-256, no prefix. */
const DIGEST = /^[0-9a-f]{64}$/;

/** `XXX-XXX`: the first 30 bits of SHA-256(DOMAIN || digest), as 6 Crockford symbols. */
export function matchCode(previewDigest: string): string {
  if (typeof previewDigest !== 'string' || !DIGEST.test(previewDigest)) {
    throw new AirlockError(
      'integrity',
      'preview_digest',
      'this preview has no valid preview digest (64 lowercase hex digits), so it has no match code; do not approve it',
      'fetch it again with `airlock show ID`; if the digest is still malformed, the daemon and this client disagree on the protocol: run `airlock doctor`',
    );
  }
  const h = createHash('sha256').update(DOMAIN + previewDigest, 'utf8').digest();
  const bits = h.readUInt32BE(0) >>> 2; // the first 30 bits
  let code = '';
  for (let i = 5; i >= 0; i--) code += MATCH_CODE_ALPHABET[(bits >>> (i * 5)) & 31];
  return `${code.slice(0, 3)}-${code.slice(3)}`;
}
