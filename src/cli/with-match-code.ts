/**
 * `--json` output that carries a preview digest carries its match code beside it, under
 * `match_code` (src/protocol/match-code.ts). The client computes it: the daemon neither sends
 * nor stores it, and it is no part of the envelope, so a program that recomputes the preview
 * digest from the printed JSON leaves it out (as it does `auto_approval` and `policy_notes`).
 */
import { matchCode } from '../protocol/match-code.js';

/** `p` with `match_code` placed right after its `preview_digest` (key order kept, for a person reading it). */
export function withMatchCode<T extends { preview_digest: string }>(p: T): T & { match_code: string } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) {
    out[k] = v;
    if (k === 'preview_digest') out.match_code = matchCode(p.preview_digest);
  }
  return out as T & { match_code: string };
}
