/**
 * Fake credentials in the shapes services really issue (prefix, length, alphabet, and the checksum where it is cheap),
 * for the masking corpus. All random: none of them was ever a credential.
 */
import { ALNUM, B64, B64URL, DIGITS, HEX, LOWER, UPPER, Rng, b64url, base62, crc32 } from './corpus-random.js';

/** GitHub's classic and OAuth tokens: prefix, 30 random base62, base62 CRC-32 of those 30 in six characters. */
export function githubToken(rng: Rng, prefix: 'ghp' | 'gho' | 'ghs' | 'ghu' | 'ghr'): string {
  const body = rng.str(ALNUM, 30);
  return `${prefix}_${body}${base62(crc32(body), 6)}`;
}

export const githubFineGrained = (rng: Rng) => `github_pat_11${rng.str(UPPER + DIGITS, 20)}_${rng.str(ALNUM, 59)}`;
export const gitlabToken = (rng: Rng) => `glpat-${rng.str(ALNUM + '-_', 20)}`;
export const gitlabRunnerToken = (rng: Rng) => `glrt-${rng.str(ALNUM + '-_', 20)}`;
export function npmToken(rng: Rng): string {
  const body = rng.str(ALNUM, 30);
  return `npm_${body}${base62(crc32(body), 6)}`;
}
/** A PyPI API token: a macaroon whose base64 always starts with the encoded "pypi.org" location. */
export const pypiToken = (rng: Rng) => `pypi-AgEIcHlwaS5vcmc${b64url(rng.bytes(110))}`;
export const dockerHubPat = (rng: Rng) => `dckr_pat_${rng.str(B64URL, 27)}`;

export const slackBot = (rng: Rng) => `xoxb-${rng.str(DIGITS, 12)}-${rng.str(DIGITS, 13)}-${rng.str(ALNUM, 24)}`;
export const slackUser = (rng: Rng) => `xoxp-${rng.str(DIGITS, 12)}-${rng.str(DIGITS, 12)}-${rng.str(DIGITS, 13)}-${rng.hex(32)}`;
export const slackApp = (rng: Rng) => `xapp-1-A${rng.str(UPPER + DIGITS, 10)}-${rng.str(DIGITS, 13)}-${rng.hex(64)}`;
/** The secret part of a Slack incoming webhook: the path after /services/. */
export const slackWebhookPath = (rng: Rng) => `T${rng.str(UPPER + DIGITS, 10)}/B${rng.str(UPPER + DIGITS, 10)}/${rng.str(ALNUM, 24)}`;
export function discordBot(rng: Rng): string {
  const id = `1${rng.str(DIGITS, 18)}`;
  return `${b64url(id)}.${rng.str(B64URL, 6)}.${rng.str(B64URL, 38)}`;
}
export const discordWebhookToken = (rng: Rng) => rng.str(B64URL, 68);
export const telegramBot = (rng: Rng) => `${rng.range(1, 7)}${rng.str(DIGITS, 9)}:AA${rng.str(B64URL, 33)}`;

export const sendgrid = (rng: Rng) => `SG.${rng.str(B64URL, 22)}.${rng.str(B64URL, 43)}`;
export const mailgunKey = (rng: Rng) => `key-${rng.hex(32)}`;
export const mailgunNew = (rng: Rng) => `${rng.hex(32)}-${rng.hex(8)}-${rng.hex(8)}`;
export const mailchimp = (rng: Rng) => `${rng.hex(32)}-us${rng.range(1, 21)}`;

export const stripe = (rng: Rng, prefix: 'sk_live' | 'rk_live' | 'sk_test') => `${prefix}_${rng.str(ALNUM, 99)}`;
export const stripeShort = (rng: Rng, prefix: 'sk_live' | 'rk_live') => `${prefix}_${rng.str(ALNUM, 24)}`;
export const squareAccess = (rng: Rng) => `EAAA${rng.str(B64URL, 60)}`;
export const squareOauth = (rng: Rng) => `sq0atp-${rng.str(B64URL, 22)}`;
export const squareSecret = (rng: Rng) => `sq0csp-${rng.str(B64URL, 43)}`;

export const openaiLegacy = (rng: Rng) => `sk-${rng.str(ALNUM, 20)}T3BlbkFJ${rng.str(ALNUM, 20)}`;
export const openaiProject = (rng: Rng) => `sk-proj-${rng.str(B64URL, 74)}T3BlbkFJ${rng.str(B64URL, 74)}`;
export const openaiService = (rng: Rng) => `sk-svcacct-${rng.str(B64URL, 74)}T3BlbkFJ${rng.str(B64URL, 74)}`;
export const anthropic = (rng: Rng) => `sk-ant-api03-${rng.str(B64URL, 93)}AA`;
export const anthropicAdmin = (rng: Rng) => `sk-ant-admin01-${rng.str(B64URL, 93)}AA`;
export const googleApiKey = (rng: Rng) => `AIza${rng.str(B64URL, 35)}`;
/** A Google OAuth access token as gcloud and rclone store it. */
export const googleOauth = (rng: Rng) => `ya29.${rng.str(B64URL, 160)}`;
export const googleRefresh = (rng: Rng) => `1//0${rng.str(B64URL, 99)}`;
export const huggingface = (rng: Rng) => `hf_${rng.str(UPPER + LOWER, 34)}`;
export const groq = (rng: Rng) => `gsk_${rng.str(ALNUM, 52)}`;
export const xai = (rng: Rng) => `xai-${rng.str(ALNUM, 80)}`;
export const vaultToken = (rng: Rng) => `hvs.${rng.str(B64URL, 90)}`;

/** AWS access key ids: AKIA (long-term) or ASIA (temporary), then 16 of base32's alphabet. */
export const awsKeyId = (rng: Rng, prefix: 'AKIA' | 'ASIA' = 'AKIA') => `${prefix}${rng.str(UPPER + '234567', 16)}`;
export const awsSecret = (rng: Rng) => rng.str(B64, 40);
export const awsSessionToken = (rng: Rng) => `IQoJb3JpZ2luX2Vj${rng.bytes(300).toString('base64').replace(/=+$/, '')}`;
/** An Azure storage account key: 64 random bytes in base64 (88 characters, ending ==). */
export const azureAccountKey = (rng: Rng) => rng.bytes(64).toString('base64');
/** A SAS signature: HMAC-SHA256 in base64, percent-encoded as it appears in a URL. */
export const azureSasSig = (rng: Rng) => encodeURIComponent(rng.bytes(32).toString('base64'));

/** A JWT: real JSON header and claims, random signature (HS256 32 bytes, RS256 256 bytes). */
export function jwt(rng: Rng, alg: 'HS256' | 'RS256' = 'HS256', claims: Record<string, unknown> = {}): string {
  const iat = 1_760_000_000 + rng.int(20_000_000);
  const header = alg === 'RS256' ? { alg, kid: rng.hex(16), typ: 'JWT' } : { alg, typ: 'JWT' };
  const payload = { sub: rng.uuid(), iat, exp: iat + 3600, jti: rng.hex(16), ...claims };
  return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}.${b64url(rng.bytes(alg === 'RS256' ? 256 : 32))}`;
}

export const opaqueToken = (rng: Rng, n = 40) => rng.str(ALNUM, n);
export const hexSecret = (rng: Rng, n = 64) => rng.str(HEX, n);

const WORDS = ['correct', 'horse', 'battery', 'staple', 'orbit', 'lantern', 'maple', 'quartz', 'velvet', 'harbor', 'cobalt', 'meadow',
  'tundra', 'pixel', 'saffron', 'glacier', 'ember', 'walnut', 'falcon', 'prairie', 'copper', 'nimbus', 'juniper', 'thistle'];
/** A passphrase with spaces inside (only ever written quoted), made unique by a number. */
export const passphrase = (rng: Rng) => `${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.range(10, 999)}`;
/** A password of letters, digits and symbols that every syntax below can carry unquoted (no space, quote, # or ;). */
export const password = (rng: Rng, n = 16) => rng.str(ALNUM + '!@%^*-_+.', n - 2) + rng.pick(['!', '@', '%', '*', '-']) + rng.str(DIGITS, 1);
/** A human-chosen-looking password: a word, digits and a symbol (low entropy, still a secret). */
export const humanPassword = (rng: Rng) => `${rng.str(UPPER, 1)}${rng.pick(WORDS).slice(1)}${rng.range(1000, 9999)}${rng.pick(['!', '?', '.', '+'])}`;
/** A password only for quoted contexts: may hold #, ; and quotes of the other kind. */
export const symbolPassword = (rng: Rng, n = 20) => rng.str(ALNUM + '!@#$%^&*()-_=+[]{};:,.<>?/|~', n);
export const alnumPassword = (rng: Rng, n = 24) => rng.str(ALNUM, n);
export const lowerWords = (rng: Rng) => `${rng.pick(WORDS)}-${rng.pick(WORDS)}-${rng.str(LOWER + DIGITS, 6)}`;
