/**
 * The [passkeys] section of the policy: where a passkey (WebAuthn) ceremony may come from, and
 * when an approval needs one instead of a TOTP code.
 *
 *   [passkeys]
 *   rp_id = "airlock.example.org"              # the relying party: the console's host name
 *   origins = ["https://airlock.example.org"]  # pages allowed to ask for an assertion
 *   required_from = "high"                     # "low", "medium", "high" or "never"
 *   own_requests = true                        # a person approving a request made under their own account needs one
 *
 * Both come from this root-owned file and nowhere else: an origin or RP ID a client sends is
 * checked against them, never taken from it. A passkey signs over the RP ID's hash and the page's
 * origin, so a page on another site (a phishing one) cannot get an assertion that verifies here.
 * `required_from` is what makes a captured TOTP code worthless for those approvals: an agent
 * that watched a person type their code still holds nothing a passkey approval accepts.
 */
import { z } from 'zod';
import { RISKS, riskRank, type Risk } from '../protocol/risk.js';

export interface PasskeySettings {
  /** The WebAuthn relying party id: a registrable domain, or `localhost`. */
  rpId: string;
  /** The exact origins (scheme://host[:port]) whose pages may ask for a passkey. */
  origins: string[];
  /** The lowest risk whose approvals need a passkey (null: none do). */
  requiredFrom: Risk | null;
  /** An approval of a request made under the approver's own account (or by root on their behalf) needs a passkey. */
  ownRequests: boolean;
}

/** The port `airlock console` listens on by default (127.0.0.1): the default origin below. */
export const CONSOLE_PORT = 7443;

export const DEFAULT_PASSKEY_SETTINGS: PasskeySettings = {
  rpId: 'localhost',
  origins: [`http://localhost:${CONSOLE_PORT}`],
  requiredFrom: null,
  ownRequests: false,
};

const MAX_ORIGINS = 8;
/** A DNS name of lower-case labels (what browsers compare an RP ID with), or localhost. */
const RP_ID = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export const PasskeysSchema = z
  .strictObject({
    rp_id: z.string().regex(RP_ID, 'rp_id is a host name in lower case, such as "airlock.example.org" or "localhost"').optional(),
    origins: z.array(z.string().max(300)).min(1).max(MAX_ORIGINS).optional(),
    required_from: z.enum([...RISKS, 'never']).optional(),
    own_requests: z.boolean().optional(),
  })
  .default({});

/** The section's meaning, or a sentence saying what is wrong (the caller adds where). */
export function passkeySettings(s: z.infer<typeof PasskeysSchema>): PasskeySettings | string {
  const d = DEFAULT_PASSKEY_SETTINGS;
  const rpId = s.rp_id ?? d.rpId;
  const origins = s.origins ?? (s.rp_id === undefined ? d.origins : [`https://${rpId}`]);
  for (const o of origins) {
    const problem = originProblem(o, rpId);
    if (problem) return `origins: ${JSON.stringify(o)}: ${problem}`;
  }
  const requiredFrom = s.required_from === undefined || s.required_from === 'never' ? d.requiredFrom : s.required_from;
  return { rpId, origins: [...new Set(origins)], requiredFrom, ownRequests: s.own_requests ?? d.ownRequests };
}

/**
 * Why an origin cannot ask for passkeys of rpId, or null. Browsers allow a page to use an RP ID
 * equal to its host or a parent domain of it, and WebAuthn only in a secure context: https, or
 * http on localhost.
 */
function originProblem(origin: string, rpId: string): string | null {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return 'not a URL; write scheme://host[:port], e.g. "https://airlock.example.org"';
  }
  if (u.origin !== origin) return `write the origin alone, exactly as a browser sends it: ${JSON.stringify(u.origin)}`;
  const host = u.hostname;
  if (host !== rpId && !host.endsWith(`.${rpId}`)) return `its host ${host} is not rp_id ${rpId} nor under it: a browser would refuse the ceremony`;
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && (host === 'localhost' || host.endsWith('.localhost'))) return null;
  return 'a passkey works only from https, or http on localhost';
}

/** Whether an approval of this risk, of a request the approver made themselves or not, needs a passkey. */
export function needsPasskey(s: PasskeySettings, risk: Risk, selfApproval: boolean): boolean {
  if (selfApproval && s.ownRequests) return true;
  return s.requiredFrom !== null && riskRank(risk) >= riskRank(s.requiredFrom);
}

/** What `airlock policy check` says of the section. */
export function explainPasskeys(s: PasskeySettings): string[] {
  const when = [s.requiredFrom ? `from ${s.requiredFrom} risk up` : null, s.ownRequests ? "for a request made under the approver's own account" : null].filter(Boolean);
  return [
    `passkeys: relying party ${s.rpId}, ceremonies from ${s.origins.join(', ')}`,
    when.length ? `passkeys: an approval needs a passkey ${when.join(', and ')}; a TOTP code does not approve those` : 'passkeys: never required; an approver with one may use it instead of a TOTP code',
  ];
}
