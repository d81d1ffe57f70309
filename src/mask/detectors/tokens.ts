/**
 * Credentials whose shape says what they are: a fixed prefix (often with a fixed length
 * or alphabet) that the issuing service documents. Each is masked whole, prefix included.
 *
 * The word scan (words.ts) calls `tokenAt` at the start of every run of token characters
 * at least MIN_TOKEN long; the shapes are indexed by their first two characters, so a
 * run is tried only against the shapes that could start with it. Publishable keys
 * (Stripe pk_, Google OAuth client ids) are public and not listed.
 */
import type { Span } from '../span.js';

const B64U = 'A-Za-z0-9_-';
/** [kind, pattern]. A pattern starts where the credential starts; every one starts with a literal of two or more characters, except mailchimp's (hex). */
export const TOKEN_SHAPES: ReadonlyArray<readonly [string, string]> = [
  ['aws_access_key_id', `(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z2-7]{16}`],
  ['github_token', `(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}`],
  ['github_token', `github_pat_[A-Za-z0-9_]{22,255}`],
  ['gitlab_token', `gl(?:pat|dt|rt|ptt|ft|cbt|imt|agent|oas|soat|ffct)-[${B64U}]{20,}`],
  ['gitlab_token', `GR1348941[${B64U}]{20,}`],
  ['slack_token', `xox[abposre]-(?:[0-9]+-)?[A-Za-z0-9-]{10,}`],
  ['slack_token', `xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+`],
  ['telegram_token', `AA[${B64U}]{33}(?![${B64U}])`],
  ['npm_token', `npm_[A-Za-z0-9]{36}`],
  ['pypi_token', `pypi-AgE[${B64U}]{50,}`],
  ['docker_token', `dckr_(?:pat|oat)_[${B64U}]{20,}`],
  ['sendgrid_key', `SG\\.[${B64U}]{16,32}\\.[${B64U}]{16,64}`],
  ['mailgun_key', `key-[0-9a-f]{32}`],
  ['mailchimp_key', `[0-9a-f]{32}-us[0-9]{1,2}`],
  ['stripe_key', `(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,247}`],
  ['stripe_key', `whsec_[A-Za-z0-9]{24,}`],
  ['square_token', `sq0(?:atp|csp)-[${B64U}]{22,}`],
  ['square_token', `EAAA[${B64U}]{60}(?![${B64U}])`],
  ['anthropic_key', `sk-ant-(?:api|admin|oat|sid)[0-9]{2}-[${B64U}]{32,}`],
  ['openai_key', `sk-(?:proj|svcacct|admin|None)-[${B64U}]{20,}`],
  ['openai_key', `sk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]{20,})?`],
  ['google_api_key', `AIza[${B64U}]{35}(?![${B64U}])`],
  ['google_oauth', `ya29\\.[${B64U}]{20,}`],
  ['google_oauth', `GOCSPX-[${B64U}]{28}(?![${B64U}])`],
  ['huggingface_token', `hf_[A-Za-z0-9]{30,}`],
  ['groq_key', `gsk_[A-Za-z0-9]{40,}`],
  ['xai_key', `xai-[A-Za-z0-9]{40,}`],
  ['twilio_key', `SK[0-9a-fA-F]{32}`],
  ['shopify_token', `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`],
  ['digitalocean_token', `do[opr]_v1_[a-f0-9]{64}`],
  ['vault_token', `hv[sbr]\\.[${B64U}]{24,}`],
  ['atlassian_token', `ATATT3[A-Za-z0-9_=-]{100,}`],
  ['linear_key', `lin_api_[A-Za-z0-9]{40}`],
  ['postman_key', `PMAK-[a-f0-9]{24}-[a-f0-9]{34}`],
  ['sentry_token', `sntr[ysu]_[A-Za-z0-9_=+/-]{40,}`],
  ['databricks_token', `dapi[a-f0-9]{32}(?:-\\d)?`],
  ['tailscale_key', `tskey-[a-z]+-[A-Za-z0-9]{10,}-[A-Za-z0-9]{20,}`],
  ['grafana_token', `gl(?:sa|c)_[A-Za-z0-9_=+/-]{32,}`],
  ['newrelic_key', `NRAK-[A-Z0-9]{27}`],
  ['doppler_token', `dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,}`],
  ['pulumi_token', `pul-[a-f0-9]{40}`],
  ['elastic_enrollment_token', `eyJ2ZXIiOiI[A-Za-z0-9+/]{40,2048}={0,2}`],
  ['jwt', `eyJ[${B64U}]{8,}\\.eyJ[${B64U}]{8,}\\.[${B64U}]{8,}`],
  ['cluster_join_token', `K10[0-9a-f]{64}::[a-z0-9_-]{1,32}:[A-Za-z0-9]{8,256}`],
  ['vault_token_legacy', `s\\.[A-Za-z0-9]{24}`],
  ['kubeadm_token', `[a-z0-9]{6}\\.[a-z0-9]{16}`],
];

/** The shortest credential any shape matches (a Slack token: `xoxb-` and ten more). */
export const MIN_TOKEN = 15;

interface Shape {
  kind: string;
  re: RegExp;
  /** Where a fixed character must be, from the start (-1: none checked). */
  at: number;
  code: number;
}
/** Fixed characters of the shapes that start with a run: mailchimp's `-` after 32 hex digits, kubeadm's `.` after 6. */
const FIXED: Record<string, [number, string]> = { mailchimp_key: [32, '-'], kubeadm_token: [6, '.'] };
const HEX = '0123456789abcdef';
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Shapes by their first two characters (ASCII both), at `first * 128 + second`: a lookup with no string made. */
const BY_PREFIX: (Shape[] | undefined)[] = new Array(128 * 128);
for (const [kind, pattern] of TOKEN_SHAPES) {
  const fixed = FIXED[kind];
  const shape = { kind, re: new RegExp(pattern, 'y'), at: fixed ? fixed[0] : -1, code: fixed ? fixed[1].charCodeAt(0) : 0 };
  const lead = /^(?:\(\?:([^)]*)\)|([A-Za-z0-9_.:-]{2}))/.exec(pattern.replace(/\\(.)/g, '$1'));
  const first = pattern.startsWith('[a-z0-9]') ? BASE36 : HEX; // a shape with no literal: any pair of its alphabet
  const prefixes = lead?.[2] ? [lead[2]] : lead?.[1] ? lead[1].split('|').map((p) => p.slice(0, 2)) : [...first].flatMap((a) => [...first].map((b) => a + b));
  for (const p of new Set(prefixes)) {
    const at = p.charCodeAt(0) * 128 + p.charCodeAt(1);
    BY_PREFIX[at] = [...(BY_PREFIX[at] ?? []), shape];
  }
}

/**
 * Shapes with little or no literal prefix (a legacy Vault `s.` token, a kubeadm bootstrap
 * token `abcdef.0123456789abcdef`): only drawn-at-random looking ones, not a host name's
 * labels or an attribute path: digits and letters both, and nothing but `.`, `-`… after it.
 */
const UNPREFIXED = new Set(['vault_token_legacy', 'kubeadm_token']);
function randomLooking(text: string, at: number, length: number): boolean {
  const v = text.slice(at, at + length);
  const after = text[at + length] ?? '';
  return /\d/.test(v) && /[a-z]/.test(v.slice(2)) && !/[\w.-]/.test(after) && (v[1] !== '.' || /[A-Z]/.test(v));
}

/** `ghp_xxxxxxxx…`: a shape's body one repeated character (after its prefix) is a placeholder, not a credential. */
function filler(token: string): boolean {
  const tail = token.slice(-16);
  for (let i = 1; i < tail.length; i++) if (tail[i] !== tail[0]) return false;
  return true;
}

/** The credential that starts at `at`, if one does. A Telegram token is masked from its bot id: `123456789:AA…`. */
export function tokenAt(text: string, at: number): Span | null {
  const a = text.charCodeAt(at);
  const b = text.charCodeAt(at + 1);
  if (!(a < 128 && b < 128)) return null; // also NaN past the end
  const shapes = BY_PREFIX[a * 128 + b];
  if (!shapes) return null;
  for (const s of shapes) {
    // Shapes with a literal at a fixed place after a run (`-us` after 32 hex digits, `.` after 6): that character first.
    if (s.at >= 0 && text.charCodeAt(at + s.at) !== s.code) continue;
    s.re.lastIndex = at;
    const m = s.re.exec(text);
    if (!m) continue;
    if (s.kind === 'telegram_token') {
      const bot = /\d{8,10}:$/.exec(text.slice(Math.max(0, at - 11), at));
      if (!bot) continue;
      return { start: at - bot[0].length, end: at + m[0].length, kind: s.kind };
    }
    // A fixed-length shape inside a longer word is not that credential; a documented example (`AKIAIOSFODNN7EXAMPLE`) is none.
    if (/[A-Za-z0-9]/.test(text[at + m[0].length] ?? '') || m[0].includes('EXAMPLE') || filler(m[0])) continue;
    if (UNPREFIXED.has(s.kind) && !randomLooking(text, at, m[0].length)) continue;
    return { start: at, end: at + m[0].length, kind: s.kind };
  }
  return null;
}
