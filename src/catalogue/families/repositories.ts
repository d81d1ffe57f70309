/**
 * Package repositories, pins, whole-system upgrades and unattended upgrades (family
 * packages, next to ./packages.ts whose readers it reuses).
 *
 * Every change goes into a file Airlock owns (`/etc/apt/preferences.d/60-airlock-*.pref`,
 * `/etc/apt/sources.list.d/airlock-*.sources`, `/etc/apt/keyrings/airlock-*.asc`) or into the
 * one file Debian's own tooling writes for the purpose (`20auto-upgrades`), and apt reads the
 * result back before the job counts as done: a file apt cannot parse fails the job, and the
 * executor restores every file it wrote.
 *
 * Upgrades and autoremovals are previewed from apt's own simulation on the real host; the
 * exact package list is the `change`, so the daemon refuses to execute when the list rebuilt
 * at execution differs from the one a person approved.
 *
 * On Fedora and RHEL (`packageManager`, as in ./packages.ts) UpgradeAll, Autoremove and
 * SearchPackages run dnf instead: the list comes from dnf's metadata cache (`check-update`,
 * `repoquery --unneeded`) and the mechanism names each build of it as NAME-EVR.ARCH, so dnf
 * acts on exactly the approved set and on no pattern. The rest of this file is apt's only.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, ALL_PLATFORMS, type CommandOutput, type Host } from '../action.js';
import { command, fileDelete, fileScan, fileWrite, type CommandStep } from '../mechanism.js';
import { packageName, params, token } from '../params.js';
import { APT_TIMEOUT_MS, ARCH, DEBIAN_VERSION, DNF_INSTALL_OPTS, DPKG_NONINTERACTIVE, installedEntries, installedVersion, list, packageManager, parsePolicy, parseSimulation, protectedSelf, removePackage, requireVersion, rpmEntries, stepsFor, type AptPolicy, type PackageManager, type Simulation } from './packages.js';
import { listDirectory } from '../lib/host-files.js';
import { dpkgEntries, type DpkgEntry, firstError } from '../lib/apt.js';

// ---------------------------------------------------------------------------
// Parameter validators

export const debianVersion = token(DEBIAN_VERSION, 'Debian version ([epoch:]upstream[-revision])', 128);
/** Letters of a package name only: apt-cache gets it as a literal (see literalPattern). */
export const searchTerm = token(/^[a-z0-9][a-z0-9+.-]{1,63}$/, 'search term (2 to 64 of a-z 0-9 + . -)', 64);
/** Becomes part of two file names: airlock-NAME.sources and airlock-NAME.asc. */
export const repositoryName = token(/^[a-z0-9][a-z0-9-]{0,47}$/, 'repository name (a-z, 0-9 and -)', 48);
export const suiteName = token(/^[A-Za-z0-9][A-Za-z0-9._+~-]{0,63}$/, 'suite (e.g. bookworm, stable, nodistro)', 64);
export const componentName = token(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/, 'component (e.g. main)', 64);
export const componentList = z
  .array(componentName)
  .min(1, 'give at least one component')
  .max(8, 'at most 8 components')
  .refine((c) => new Set(c).size === c.length, 'components must not repeat');

const HOST_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const REPOSITORY_URI = new RegExp(`^https?://(?:${HOST_LABEL}(?:\\.${HOST_LABEL})*|\\[[0-9a-f:.]{2,45}\\])(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~+-]*)*$`);

/**
 * An http(s) repository URL: lower-case DNS name or IP address, optional port, a path of
 * [A-Za-z0-9._~+-] segments. No credentials (they belong in /etc/apt/auth.conf.d), no query,
 * no fragment, no percent-escapes, no '.' or '..' segment, no empty segment but a final '/'.
 */
export function isRepositoryUri(s: string): boolean {
  if (!REPOSITORY_URI.test(s)) return false;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '') return false;
  if (u.hostname.startsWith('[') && isIP(u.hostname.slice(1, -1)) !== 6) return false;
  const port = /^https?:\/\/[^/]*:([0-9]+)/.exec(s);
  if (port && (Number(port[1]) < 1 || Number(port[1]) > 65535)) return false;
  const segs = s.replace(/^https?:\/\/[^/]*/, '').split('/').slice(1);
  return segs.every((seg, i) => (seg !== '' || i === segs.length - 1) && seg !== '.' && seg !== '..');
}

export const repositoryUri = token(/^https?:\/\/[^\s@?#%\\]+$/, 'repository URL (http:// or https://, no credentials)', 512).refine(
  isRepositoryUri,
  'repository URL must be http(s)://host[:port]/path with a lower-case host name or IP address, a path of A-Z a-z 0-9 . _ ~ + - segments, and no credentials, query, fragment or . / .. segments',
);

// ---------------------------------------------------------------------------
// OpenPGP public keys (RFC 9580): Airlock reads the armor and the packet framing itself, so
// the preview can show fingerprints before anything is written. The key's self-signatures
// are not verified here; apt verifies every repository signature against this key anyway.

const ARMOR_BEGIN = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const ARMOR_END = '-----END PGP PUBLIC KEY BLOCK-----';
export const MAX_KEY_BYTES = 64 * 1024;

export interface OpenPgpKey {
  version: number;
  fingerprint: string;
  algorithm: string;
  /** Creation date of the primary key, YYYY-MM-DD. */
  created: string;
  userIds: string[];
  subkeys: { fingerprint: string; algorithm: string }[];
}

class KeyFormatError extends Error {}

/** Parses an ASCII-armored public key block; the reason it is refused otherwise. */
export function parseArmoredPublicKey(text: string): OpenPgpKey[] | string {
  try {
    return readPublicKeys(dearmor(text));
  } catch (e) {
    if (e instanceof KeyFormatError) return e.message;
    throw e;
  }
}

export const armoredPublicKey = z
  .string()
  .max(MAX_KEY_BYTES, `key must be at most ${MAX_KEY_BYTES} bytes`)
  .superRefine((s, ctx) => {
    const r = parseArmoredPublicKey(s);
    if (typeof r === 'string') ctx.addIssue({ code: 'custom', message: `not an ASCII-armored OpenPGP public key: ${r}` });
  });

/** Parsed keys of a validated key parameter. */
const keysOf = (armored: string) => parseArmoredPublicKey(armored) as OpenPgpKey[];

function dearmor(text: string): Buffer {
  if (/[^\n\x20-\x7e]/.test(text)) throw new KeyFormatError('only printable ASCII and \\n line ends may appear');
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines[0] !== ARMOR_BEGIN) {
    throw new KeyFormatError(/PRIVATE KEY/.test(lines[0] ?? '') ? 'this is a PRIVATE key: send the public key only' : `must begin with ${ARMOR_BEGIN}`);
  }
  let i = 1;
  for (; i < lines.length && lines[i] !== ''; i++) {
    if (!/^[A-Za-z][A-Za-z0-9-]{0,31}: [\x20-\x7e]{0,256}$/.test(lines[i]!)) throw new KeyFormatError(`line ${i + 1} is neither an armor header nor the blank line before the data`);
  }
  if (i >= lines.length) throw new KeyFormatError('no blank line between the armor headers and the data');
  const body: string[] = [];
  for (i++; i < lines.length && /^[A-Za-z0-9+/]+={0,2}$/.test(lines[i]!) && lines[i]!.length <= 128; i++) body.push(lines[i]!);
  const crc = i < lines.length ? /^=([A-Za-z0-9+/]{4})$/.exec(lines[i]!) : null;
  if (crc) i++;
  if (lines[i] !== ARMOR_END || i !== lines.length - 1) throw new KeyFormatError(`line ${i + 1} should be ${ARMOR_END}, the last line`);
  const b64 = body.join('');
  const data = Buffer.from(b64, 'base64');
  if (b64.length === 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || data.toString('base64') !== b64) throw new KeyFormatError('the data is not canonical base64');
  if (crc && Buffer.from(crc[1]!, 'base64').readUIntBE(0, 3) !== crc24(data)) throw new KeyFormatError('the armor checksum does not match the data');
  return data;
}

function crc24(data: Buffer): number {
  let crc = 0xb704ce;
  for (const b of data) {
    crc ^= b << 16;
    for (let k = 0; k < 8; k++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/** The packet stream, framing checked: old and new formats, no partial or indeterminate lengths. */
function readPackets(data: Buffer): { tag: number; body: Buffer }[] {
  const out: { tag: number; body: Buffer }[] = [];
  const truncated = () => new KeyFormatError('a packet runs past the end of the data');
  let at = 0;
  while (at < data.length) {
    const h = data[at++]!;
    if ((h & 0x80) === 0) throw new KeyFormatError('the data is not an OpenPGP packet sequence');
    let tag: number;
    let len: number;
    if (h & 0x40) {
      tag = h & 0x3f;
      const b = data[at++];
      if (b === undefined) throw truncated();
      if (b < 192) len = b;
      else if (b < 224) {
        const b2 = data[at++];
        if (b2 === undefined) throw truncated();
        len = ((b - 192) << 8) + b2 + 192;
      } else if (b === 255) {
        if (at + 4 > data.length) throw truncated();
        len = data.readUInt32BE(at);
        at += 4;
      } else throw new KeyFormatError('partial-length packets do not occur in keys');
    } else {
      tag = (h >> 2) & 0x0f;
      const size = [1, 2, 4][h & 3];
      if (size === undefined) throw new KeyFormatError('indeterminate-length packets do not occur in keys');
      if (at + size > data.length) throw truncated();
      len = data.readUIntBE(at, size);
      at += size;
    }
    if (at + len > data.length) throw truncated();
    out.push({ tag, body: data.subarray(at, at + len) });
    at += len;
  }
  return out;
}

const TAG = { signature: 2, secretKey: 5, publicKey: 6, secretSubkey: 7, trust: 12, userId: 13, publicSubkey: 14, userAttribute: 17 };
const ALLOWED_TAGS = new Set([TAG.signature, TAG.publicKey, TAG.trust, TAG.userId, TAG.publicSubkey, TAG.userAttribute]);

function readPublicKeys(data: Buffer): OpenPgpKey[] {
  const keys: OpenPgpKey[] = [];
  for (const p of readPackets(data)) {
    if (p.tag === TAG.secretKey || p.tag === TAG.secretSubkey) throw new KeyFormatError('it holds secret key material: send the public key only');
    if (!ALLOWED_TAGS.has(p.tag)) throw new KeyFormatError(`packet type ${p.tag} does not belong in a public key`);
    const key = keys[keys.length - 1];
    if (p.tag === TAG.publicKey) keys.push({ ...keyPacket(p.body), userIds: [], subkeys: [] });
    else if (!key) throw new KeyFormatError('it does not start with a public key packet');
    else if (p.tag === TAG.publicSubkey) {
      const { fingerprint, algorithm } = keyPacket(p.body);
      key.subkeys.push({ fingerprint, algorithm });
    } else if (p.tag === TAG.userId) key.userIds.push(p.body.toString('utf8').replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd').slice(0, 200));
  }
  if (keys.length === 0) throw new KeyFormatError('it holds no public key');
  return keys;
}

/** Version, fingerprint (v4: SHA-1, v6: SHA-256 over the framed packet), algorithm and creation date. */
function keyPacket(body: Buffer): { version: number; fingerprint: string; algorithm: string; created: string } {
  const version = body[0] ?? 0;
  const head = version === 4 ? 6 : version === 6 ? 10 : -1;
  if (head < 0) throw new KeyFormatError(`version ${version} keys are not accepted (version 4 or 6 only)`);
  if (body.length <= head || body.length > 0xffff) throw new KeyFormatError('a key packet has an impossible length');
  const prefix = version === 4 ? Buffer.from([0x99, body.length >> 8, body.length & 0xff]) : Buffer.concat([Buffer.from([0x9b]), u32(body.length)]);
  const fingerprint = createHash(version === 4 ? 'sha1' : 'sha256')
    .update(prefix)
    .update(body)
    .digest('hex')
    .toUpperCase();
  const created = new Date(body.readUInt32BE(1) * 1000).toISOString().slice(0, 10);
  return { version, fingerprint, algorithm: algorithmName(body[5]!, body.subarray(head)), created };
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

const CURVES: Record<string, string> = {
  '2b06010401da470f01': 'Ed25519',
  '2b060104019755010501': 'Curve25519',
  '2a8648ce3d030107': 'NIST P-256',
  '2b81040022': 'NIST P-384',
  '2b81040023': 'NIST P-521',
  '2b2403030208010107': 'brainpoolP256r1',
  '2b240303020801010b': 'brainpoolP384r1',
  '2b240303020801010d': 'brainpoolP512r1',
};

function algorithmName(alg: number, material: Buffer): string {
  const bits = material.length >= 2 ? material.readUInt16BE(0) : 0;
  const curve = () => {
    const oid = material.subarray(1, 1 + (material[0] ?? 0)).toString('hex');
    return CURVES[oid] ?? `curve ${oid}`;
  };
  switch (alg) {
    case 1:
    case 2:
    case 3:
      return `RSA ${bits}`;
    case 16:
      return `Elgamal ${bits}`;
    case 17:
      return `DSA ${bits}`;
    case 18:
      return `ECDH ${curve()}`;
    case 19:
      return `ECDSA ${curve()}`;
    case 22:
      return `EdDSA ${curve()}`;
    default:
      return { 25: 'X25519', 26: 'X448', 27: 'Ed25519', 28: 'Ed448' }[alg] ?? `algorithm ${alg}`;
  }
}

/** What a person should know about these keys before trusting a repository with them. */
function keyWarnings(keys: OpenPgpKey[]): string[] {
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

const describeKey = (k: OpenPgpKey) => ({ fingerprint: k.fingerprint, algorithm: k.algorithm, created: k.created, user_ids: k.userIds, subkeys: k.subkeys.map((s) => `${s.fingerprint} ${s.algorithm}`) });

// ---------------------------------------------------------------------------
// Shared readers

/** Names in a directory, sorted (none when it cannot be listed, e.g. absent). */
const listDir = async (host: Host, dir: string): Promise<string[]> => ((await listDirectory(host, dir)) ?? []).sort();

/** `apt-cache policy` of one exact package: the usual fields plus its version table. */
export interface PolicyWithVersions extends AptPolicy {
  versions: { version: string; priority: number }[];
}

/** Reads the "Version table:" of the stanza headed by exactly `name` (apt's regex fallback adds others). */
export function parseVersionTable(name: string, stdout: string): { version: string; priority: number }[] {
  const lines = stdout.split('\n');
  const at = lines.indexOf(`${name}:`);
  const out: { version: string; priority: number }[] = [];
  if (at < 0) return out;
  for (let i = at + 1; i < lines.length && /^\s/.test(lines[i]!); i++) {
    const m = /^ (?:\*\*\*| {3}) (\S+) (-?\d+)$/.exec(lines[i]!);
    if (m) out.push({ version: m[1]!, priority: Number(m[2]) });
  }
  return out;
}

async function policyWithVersions(host: Host, name: string): Promise<PolicyWithVersions> {
  const r = await host.run('apt-cache', ['policy', '--', name]);
  if (r.code !== 0) throw new AirlockError('execution', 'apt_cache_failed', `apt-cache policy failed: ${firstError(r.stderr)}`);
  return { ...parsePolicy(name, r.stdout), versions: parseVersionTable(name, r.stdout) };
}

/** Package names apt would print as "kept back" after an upgrade simulation. */
export function parseKeptBack(stdout: string): string[] {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l.startsWith('The following packages have been kept back'));
  if (at < 0) return [];
  const names: string[] = [];
  for (let i = at + 1; i < lines.length && lines[i]!.startsWith('  '); i++) names.push(...lines[i]!.trim().split(/\s+/));
  return names;
}

/** `apt-get -s VERB`: apt's own plan. Takes no lock; apt's refusal is a conflict. */
async function aptPlan(host: Host, verb: 'upgrade' | 'autoremove', opts: string[]): Promise<{ sim: Simulation; keptBack: string[] }> {
  const r = await host.run('apt-get', ['-s', verb, ...opts]);
  if (r.code !== 0) {
    throw new AirlockError('conflict', 'apt_refuses', `apt cannot ${verb}: ${firstError(r.stderr) || 'see apt-get output'}`, 'resolve the problem apt reports (dpkg --audit may help), then preview again');
  }
  return { sim: parseSimulation(r.stdout), keptBack: parseKeptBack(r.stdout) };
}

// ---------------------------------------------------------------------------
// dnf's plans (Fedora and RHEL)

/** One build dnf names exactly; the mechanism passes it as NAME-[EPOCH:]VERSION-RELEASE.ARCH, never as a pattern. */
export interface Nevra {
  name: string;
  evr: string;
  arch: string;
}
export const nevraSpec = (p: Nevra) => `${p.name}-${p.evr}.${p.arch}`;

/** An RPM name as dnf prints it; never starting with '-', so dnf cannot take it for an option (its argv has no `--`). */
const RPM_NAME = /^[A-Za-z0-9_][A-Za-z0-9_+.-]{0,99}$/;

/** A build dnf reported, checked before it can reach an argv. */
function readNevra(name: string, evr: string, arch: string): Nevra {
  if (!RPM_NAME.test(name) || !ARCH.test(arch)) {
    throw new AirlockError('execution', 'odd_package', `dnf reports a package ${JSON.stringify(`${name}.${arch}`)}, which Airlock will not pass on`);
  }
  return { name, evr: requireVersion(name, evr, 'dnf'), arch };
}

/**
 * A dnf read from its metadata cache only (no network, no lock). `answers` are the exit
 * codes that are answers (check-update: 100 = upgrades available); any other is a cache
 * dnf cannot use, which AptUpdate (dnf makecache) refreshes.
 */
async function dnfCached(host: Host, args: string[], answers: number[] = [0]): Promise<CommandOutput> {
  const r = await host.run('dnf', ['--cacheonly', ...args]);
  if (!answers.includes(r.code)) {
    throw new AirlockError('execution', 'dnf_cache_unreadable', `dnf could not answer from its metadata cache: ${firstError(r.stderr)}`, 'refresh the metadata with AptUpdate (dnf makecache)');
  }
  return r;
}

const NAME_ARCH = /^(.+)\.([^.]+)$/;

/**
 * What `dnf check-update` lists: one "NAME.ARCH EVR REPO" line per upgrade (dnf4 puts a long
 * NAME.ARCH on a line of its own and the rest, indented, on the next); then, under "Obsoleting
 * packages", each package that replaces installed ones, with those indented below it. Other
 * lines (metadata age, security notices) have other fields, or no NAME.ARCH first.
 *
 * An obsoleting package removes what it obsoletes, a removal the preview would not show: like
 * apt's plain upgrade with what needs a removal, it is kept back (dnf5 lists it in both places).
 */
export function parseCheckUpdate(stdout: string): { upgrades: Nevra[]; keptBack: string[] } {
  const lines = stdout.split('\n');
  const listed: Nevra[] = [];
  const keptBack: string[] = [];
  let obsoleting = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^Obsoleting packages/i.test(line)) obsoleting = true;
    let f = line.trim().split(/\s+/);
    const na = NAME_ARCH.exec(f[0]!);
    if (obsoleting) {
      // The replacing package starts its line; what it replaces is indented.
      if (na && !/^\s/.test(line) && (f.length === 1 || f.length === 3) && RPM_NAME.test(na[1]!) && ARCH.test(na[2]!)) keptBack.push(f[0]!);
      continue;
    }
    const wrapped = lines[i + 1]?.match(/^\s+(\S+)\s+(\S+)\s*$/);
    if (f.length === 1 && wrapped) {
      f = [f[0]!, wrapped[1]!, wrapped[2]!];
      i++;
    }
    if (na && f.length === 3) listed.push(readNevra(na[1]!, f[1]!, na[2]!));
  }
  return { upgrades: listed.filter((p) => !keptBack.includes(`${p.name}.${p.arch}`)), keptBack };
}

/** `dnf repoquery --unneeded` in UNNEEDED_FORMAT: "NAME EVR ARCH" lines (dnf4 adds blank lines). */
export function parseUnneeded(stdout: string): Nevra[] {
  return stdout
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter((f) => f.length === 3)
    .map(([name, evr, arch]) => readNevra(name!, evr!, arch!));
}

/**
 * One argv element, no shell: dnf5 expands the `\n` escape but not `\t`, and dnf4 takes the real
 * newline this string holds (adding one of its own). The architecture tells the builds of a
 * multilib package apart: removing libfoo-1.0-1 by name and version alone would take the other,
 * needed, architecture and what requires it.
 */
const UNNEEDED_FORMAT = '--queryformat=%{name} %{evr} %{arch}\n';

/** The plan a manager makes, as apt's simulation describes it, and the exact builds dnf is given. */
interface Plan {
  manager: PackageManager;
  sim: Simulation;
  keptBack: string[];
  /** dnf: the builds the mechanism names. apt: none (the change binds its set). */
  builds: Nevra[];
}

/** dnf's upgrades, with the installed version(s) of each from rpm (several for kernels, which are installed side by side). */
async function dnfUpgradePlan(host: Host): Promise<Plan> {
  const r = await dnfCached(host, ['check-update'], [0, 100]);
  const { upgrades, keptBack } = r.code === 100 ? parseCheckUpdate(r.stdout) : { upgrades: [], keptBack: [] };
  if (r.code === 100 && upgrades.length === 0 && keptBack.length === 0) {
    throw new AirlockError('execution', 'dnf_output_unreadable', 'dnf check-update reports upgrades, but Airlock could not read which', 'ListUpgradable shows what dnf lists');
  }
  const installed = await rpmEntries(host, [...new Set(upgrades.map((p) => p.name))]);
  const from = (p: Nevra) => {
    const same = installed.filter((e) => e.name === p.name);
    const arch = same.filter((e) => e.arch === p.arch);
    return (arch.length ? arch : same).map((e) => e.version).join(', ') || '(not installed)';
  };
  const sim = { install: [], remove: [], upgrade: upgrades.map((p) => ({ name: `${p.name}.${p.arch}`, from: from(p), to: p.evr })) };
  return { manager: 'dnf', sim, keptBack, builds: upgrades };
}

async function dnfAutoremovePlan(host: Host): Promise<Plan> {
  const builds = parseUnneeded((await dnfCached(host, ['repoquery', '--unneeded', UNNEEDED_FORMAT])).stdout);
  return { manager: 'dnf', sim: { install: [], upgrade: [], remove: builds.map((p) => ({ name: p.name, version: p.evr })) }, keptBack: [], builds };
}

/** The plan for an upgrade or an autoremove on this host, from the package manager it has. */
async function plan(host: Host, verb: 'upgrade' | 'autoremove', aptOpts: string[]): Promise<Plan> {
  const manager = packageManager(host.platform);
  if (manager === 'dnf') return verb === 'upgrade' ? dnfUpgradePlan(host) : dnfAutoremovePlan(host);
  return { manager, ...(await aptPlan(host, verb, aptOpts)), builds: [] };
}

async function gpgAvailable(host: Host): Promise<boolean> {
  try {
    return (await host.run('gpg', ['--version'])).code === 0;
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'program_missing') return false;
    throw e;
  }
}

const noUserInfo = (uri: string) => uri.replace(/^([a-z+]+:\/\/)[^/@\s]*@/i, '$1');
const withSlash = (uri: string) => (uri.endsWith('/') ? uri : `${uri}/`);

// ---------------------------------------------------------------------------
// Purge, upgrade, autoremove

type RemoveState = Awaited<ReturnType<typeof removePackage.current>>;

export const purgePackage = action({
  name: 'PurgePackage',
  family: 'packages',
  description: 'Remove one package and delete its configuration files (apt-get purge), or delete what a removed package left behind; same refusals as RemovePackage.',
  risk: 'high',
  readOnly: false,
  params: params({ package: packageName }),
  files: [],
  example: { package: 'htop' },
  current: async (p, host): Promise<RemoveState & { leftover: string | null }> => {
    const cur = await removePackage.current(p, host);
    // Removed earlier with its configuration kept (dpkg state "rc"): only the files are left to purge.
    const rc = cur.version ? undefined : cur.dpkg.find((e) => e.status === 'config-files');
    return { ...cur, leftover: rc ? requireVersion(p.package, rc.version) : null };
  },
  check: (p, cur) => {
    if (!cur.leftover) return removePackage.check!(p, cur);
    const why = protectedSelf(p.package, cur.dpkg);
    if (why) throw new AirlockError('authorization', 'protected_package', `${p.package} is ${why}; Airlock never purges it`, 'this needs a person at the console');
  },
  preview: ({ package: name }, cur) => {
    const gone = cur.leftover ? [{ name, version: cur.leftover }] : (cur.sim?.remove ?? []);
    const also = gone.filter((p) => p.name !== name);
    return {
      summary: cur.leftover ? `Purge the configuration files ${name} ${cur.leftover} left behind` : `Purge ${name} ${cur.version ?? ''}`.trim() + (also.length ? ` and ${also.length} package(s) that depend on it` : ''),
      change: { purge: list(gone), deletes: 'the packages and their configuration files, including ones an administrator edited' },
      sideEffects: ['configuration under /etc that belongs to these packages is deleted for good', 'package maintainer scripts run as root'],
      warnings: also.length ? [`also removes and purges ${also.map((p) => p.name).join(', ')}`] : [],
    };
  },
  // Pinned to the version dpkg has, so the name is exact and never a pattern apt could widen.
  mechanism: ({ package: name }, cur) => [
    command('apt-get', ['purge', '-y', ...DPKG_NONINTERACTIVE, '--', `${name}=${cur.leftover ?? cur.version}`], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS }),
  ],
});

/**
 * Plain `upgrade`: never installs a new package and never removes one (both also forced off,
 * whatever apt.conf says), so what needs either is kept back rather than done behind a person's back.
 */
const UPGRADE_OPTS = ['-o', 'APT::Get::Upgrade-Allow-New=false', '-o', 'APT::Get::AutomaticRemove=false', '--no-remove'];
const UPGRADE_TIMEOUT_MS = 1_800_000;
/** Packages whose upgrade only takes full effect after a reboot. */
const NEEDS_REBOOT: Record<PackageManager, RegExp> = { apt: /^(linux-image-|libc6$|systemd$|dbus$)/, dnf: /^(kernel(-core|-modules)?|glibc|systemd|dbus|dbus-broker)$/ };
/** dnf installs a new kernel next to the old ones rather than upgrading it, and removes the oldest beyond installonly_limit. */
const KERNEL = /^kernel(-core)?$/;

export const upgradeAll = action({
  name: 'UpgradeAll',
  family: 'packages',
  description:
    'Upgrade every installed package that has a newer candidate, exactly the list the preview shows (apt-get upgrade: nothing new installed, nothing removed; dnf upgrade of each build dnf check-update lists, installing what they need).',
  risk: 'high',
  readOnly: false,
  platforms: ALL_PLATFORMS,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => plan(host, 'upgrade', UPGRADE_OPTS),
  check: (_p, cur) => {
    if (cur.sim.upgrade.length === 0) {
      throw new AirlockError('conflict', 'nothing_to_upgrade', `no installed package has a newer candidate${cur.keptBack.length ? ` (kept back: ${cur.keptBack.join(', ')})` : ''}`, `refresh the lists with AptUpdate first; ListUpgradable shows what ${cur.manager} would do`);
    }
    if (cur.sim.install.length || cur.sim.remove.length) {
      throw new AirlockError('conflict', 'unexpected_changes', 'apt plans to install or remove packages during a plain upgrade', 'inspect the apt configuration (ListUpgradable shows the plan)');
    }
  },
  preview: (_p, cur) => {
    // Package names without the architecture (apt's simulation says name[:arch]).
    const names = cur.manager === 'apt' ? cur.sim.upgrade.map((u) => u.name.replace(/:.*$/, '')) : cur.builds.map((p) => p.name);
    const reboot = cur.manager === 'apt' ? names.filter((n) => NEEDS_REBOOT.apt.test(n)) : cur.builds.filter((p) => NEEDS_REBOOT.dnf.test(p.name)).map((p) => `${p.name}.${p.arch}`);
    return {
      summary: `Upgrade ${cur.sim.upgrade.length} installed package(s) to their candidate versions`,
      change: { upgrade: cur.sim.upgrade.map((u) => `${u.name} ${u.from} -> ${u.to}`), install: [], remove: [] },
      sideEffects:
        cur.manager === 'apt'
          ? ['downloads the new packages', 'package maintainer scripts run as root; services of upgraded packages may restart', 'conffiles an administrator changed are kept (the new default is saved as .dpkg-dist)']
          : [
              'downloads the new packages',
              'package scriptlets run as root; services of upgraded packages may restart',
              'configuration files an administrator changed are kept where the package marks them noreplace (the new default is saved as .rpmnew), otherwise replaced (the edited copy is saved as .rpmsave)',
            ],
      warnings: [
        ...(cur.keptBack.length ? [`kept back (they need new or removed packages): ${cur.keptBack.join(', ')}`] : []),
        ...(reboot.length ? [`${reboot.join(', ')} only take full effect after a reboot`] : []),
        ...(cur.manager === 'dnf' ? ['dnf resolves the dependencies when it runs: new packages an upgrade needs are installed and not listed here; it removes none to make room (no --allowerasing)'] : []),
        ...(cur.manager === 'dnf' && names.some((n) => KERNEL.test(n)) ? ['a new kernel is installed next to the running one; dnf removes the oldest kernels beyond installonly_limit'] : []),
      ],
    };
  },
  // dnf: exactly the previewed builds, by name-version-release.arch, so nothing else it offers comes along.
  mechanism: (_p, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-get', ['upgrade', '-y', ...UPGRADE_OPTS, ...DPKG_NONINTERACTIVE], { resource: 'dpkg', timeoutMs: UPGRADE_TIMEOUT_MS })],
      dnf: () => [command('dnf', ['upgrade', '-y', ...DNF_INSTALL_OPTS, ...cur.builds.map(nevraSpec)], { timeoutMs: UPGRADE_TIMEOUT_MS })],
    }),
});

export const autoremove = action({
  name: 'Autoremove',
  family: 'packages',
  description: 'Remove the packages that were installed only as dependencies and are no longer needed (apt-get autoremove; dnf remove of each build dnf repoquery --unneeded lists), exactly the set the preview shows.',
  risk: 'high',
  readOnly: false,
  platforms: ALL_PLATFORMS,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const { manager, sim, builds } = await plan(host, 'autoremove', []);
    // The package database's description of each (dpkg: essential flag, priority), to refuse what must stay.
    return { manager, sim, builds, removed: await installedEntries(host, manager, [...new Set(sim.remove.map((p) => p.name))]) };
  },
  check: (_p, cur) => {
    if (cur.sim.remove.length === 0) throw new AirlockError('conflict', 'nothing_to_remove', 'no package is unused: there is nothing to autoremove');
    if (cur.sim.install.length || cur.sim.upgrade.length) throw new AirlockError('conflict', 'unexpected_changes', 'apt plans to install or upgrade packages during an autoremove');
    const bad = cur.sim.remove
      .map((p) => p.name)
      .flatMap((n) => {
        const why = protectedSelf(n.replace(/:.*$/, ''), cur.removed.filter((e: DpkgEntry) => e.name === n.replace(/:.*$/, '')), cur.manager);
        return why ? [`${n} (${why})`] : [];
      });
    if (bad.length) {
      const hint = cur.manager === 'apt' ? 'mark them as manually installed (apt-mark manual) at the console' : 'mark them as installed by the user (dnf mark install; dnf5: dnf mark user) at the console';
      throw new AirlockError('authorization', 'protected_package', `autoremove would remove ${bad.join(', ')}, which Airlock never removes`, hint);
    }
  },
  preview: (_p, cur) => ({
    summary: `Remove ${cur.sim.remove.length} package(s) nothing depends on any more`,
    change:
      cur.manager === 'apt'
        ? { remove: list(cur.sim.remove), keeps: 'configuration files (no purge)' }
        : { remove: cur.builds.map(nevraSpec), keeps: 'configuration files an administrator changed (saved as .rpmsave)' },
    sideEffects: ['services shipped by the removed packages are stopped', `package ${cur.manager === 'apt' ? 'maintainer scripts' : 'scriptlets'} run as root`],
    warnings: cur.removed.filter((e) => e.priority === 'important').map((e) => `removes priority-important package ${e.name}`),
  }),
  // dnf: exactly the previewed builds, and nothing they leave unneeded (clean_requirements_on_remove off): the set is closed anyway, since dnf lists a dependency only with all that needs it.
  mechanism: (_p, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-get', ['autoremove', '-y', ...DPKG_NONINTERACTIVE], { resource: 'dpkg', timeoutMs: APT_TIMEOUT_MS })],
      dnf: () => [command('dnf', ['remove', '-y', '--setopt=clean_requirements_on_remove=False', ...cur.builds.map(nevraSpec)], { timeoutMs: APT_TIMEOUT_MS })],
    }),
});

// ---------------------------------------------------------------------------
// Pins

const PREFERENCES = '/etc/apt/preferences';
const PIN_DIR = '/etc/apt/preferences.d';
const PIN_PRIORITY = 1001;
/** apt silently skips preferences.d files whose name has other characters or another extension. */
const APT_READS_PREFERENCE = /^[A-Za-z0-9_.-]+$/;

/**
 * Airlock's pin file for a package. apt reads only names of [A-Za-z0-9_.-] that end in
 * ".pref" or have no dot at all, so the name ends in .pref and '+' becomes '_' (which never
 * occurs in a package name, so two packages never share a file).
 */
export const pinFile = (name: string) => `${PIN_DIR}/60-airlock-${name.replace(/\+/g, '_')}.pref`;
export const pinContent = (name: string, version: string) =>
  `Explanation: written by Airlock (PinPackageVersion); remove it with UnpinPackage\nPackage: ${name}\nPin: version ${version}\nPin-Priority: ${PIN_PRIORITY}\n`;
const pinnedVersion = (text: string | null) => (text === null ? null : (/^Pin: version (\S+)$/m.exec(text)?.[1] ?? null));

/** Other apt preferences files with a stanza naming this package (their pins and ours interact). */
async function otherPins(host: Host, name: string, own: string): Promise<string[]> {
  const files = [PREFERENCES, ...(await listDir(host, PIN_DIR)).filter((f) => APT_READS_PREFERENCE.test(f) && (!f.includes('.') || f.endsWith('.pref'))).map((f) => `${PIN_DIR}/${f}`)];
  const hits: string[] = [];
  for (const path of files.filter((f) => f !== own)) {
    const text = await host.readFile(path).catch(() => null);
    if (text && [...text.matchAll(/^Package:(.*)$/gm)].some((m) => m[1]!.trim().split(/\s+/).includes(name))) hits.push(path);
  }
  return hits;
}

interface PinState {
  name: string;
  path: string;
  existing: string | null;
  policy: PolicyWithVersions;
  others: string[];
}

async function pinState(host: Host, name: string): Promise<PinState> {
  const path = pinFile(name);
  return { name, path, existing: await host.readFile(path), policy: await policyWithVersions(host, name), others: await otherPins(host, name, path) };
}

/** apt reads the preferences back: a file it cannot parse fails the job (exit 100) and is restored. */
const policyCheck = (name: string) => command('apt-cache', ['policy', '--', name]);

export const pinPackageVersion = action({
  name: 'PinPackageVersion',
  family: 'packages',
  description: 'Pin a package to one version apt offers (apt preferences, priority 1001): installs and upgrades keep it there, downgrading if needed.',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ package: packageName, version: debianVersion }),
  files: [`${PIN_DIR}/60-airlock-*.pref`],
  example: { package: 'nginx', version: '1.22.1-9' },
  current: async ({ package: name, version }, host) => {
    const cur = await pinState(host, name);
    // dpkg answers whether the pin is below what is installed (0 = yes): that is a downgrade.
    const installed = cur.policy.installed;
    const downgrade = installed !== null && installed !== version && (await host.run('dpkg', ['--compare-versions', requireVersion(name, installed), 'gt', version])).code === 0;
    return { ...cur, downgrade };
  },
  check: ({ package: name, version }, cur) => {
    if (!cur.policy.known) throw new AirlockError('validation', 'no_such_package', `apt knows no package named ${name}`, 'check the name, or refresh the lists with AptUpdate');
    if (!cur.policy.versions.some((v) => v.version === version)) {
      throw new AirlockError('validation', 'no_such_version', `apt offers no version ${version} of ${name} (it has ${cur.policy.versions.map((v) => v.version).join(', ') || 'none'})`, 'PackagePolicy lists the versions apt knows');
    }
    if (cur.existing === pinContent(name, version)) throw new AirlockError('conflict', 'already_pinned', `${name} is already pinned to ${version} by ${cur.path}`);
  },
  preview: ({ package: name, version }, cur) => ({
    summary: `Pin ${name} to ${version} (priority ${PIN_PRIORITY})`,
    change: { file: cur.path, content: pinContent(name, version), replaces_pin: pinnedVersion(cur.existing), candidate: { from: cur.policy.candidate, to: version } },
    sideEffects: [`InstallPackage and UpgradeAll now choose ${name} ${version}, even over newer versions (security updates included), until UnpinPackage`],
    warnings: [
      ...(cur.downgrade ? [`${name} ${cur.policy.installed} is installed: the next upgrade DOWNGRADES it to ${version}`] : []),
      ...cur.others.map((f) => `${f} also has a stanza for ${name}; apt applies the first matching pin in file order`),
    ],
  }),
  mechanism: ({ package: name, version }, cur) => [fileWrite(cur.path, pinContent(name, version), { mode: 0o644, parent: { mode: 0o755 } }), policyCheck(name)],
});

export const unpinPackage = action({
  name: 'UnpinPackage',
  family: 'packages',
  description: "Remove Airlock's version pin of a package (its file in /etc/apt/preferences.d), so apt's default candidate applies again.",
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ package: packageName }),
  files: [`${PIN_DIR}/60-airlock-*.pref`],
  example: { package: 'nginx' },
  current: ({ package: name }, host) => pinState(host, name),
  check: ({ package: name }, cur) => {
    if (cur.existing === null) {
      throw new AirlockError('conflict', 'not_pinned', `Airlock has no pin for ${name} (${cur.path} does not exist)`, cur.others.length ? `pins in ${cur.others.join(', ')} are not Airlock's: edit them at the console` : undefined);
    }
  },
  preview: ({ package: name }, cur) => ({
    summary: `Unpin ${name} (pinned to ${pinnedVersion(cur.existing) ?? 'an unreadable version'})`,
    change: { delete: cur.path, pinned_version: pinnedVersion(cur.existing), installed: cur.policy.installed },
    sideEffects: [`the next UpgradeAll may move ${name} to the newest version apt offers`],
    warnings: cur.others.map((f) => `${f} still has a stanza for ${name}`),
  }),
  mechanism: ({ package: name }, cur) => [fileDelete(cur.path), policyCheck(name)],
});

// ---------------------------------------------------------------------------
// Search and repositories

/**
 * apt-cache search takes a POSIX regular expression, where '.' matches any character and '+'
 * repeats: the term is escaped so it matches literally (the term's alphabet has no other
 * metacharacter). Case does not matter to apt-cache.
 */
export const literalPattern = (term: string) => term.replace(/[.+]/g, '\\$&');

export const searchPackages = action({
  name: 'SearchPackages',
  family: 'packages',
  description: 'List the packages whose name contains a term, with their one-line description (apt-cache search --names-only; dnf search, which also matches the one-line summaries).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: ALL_PLATFORMS,
  params: params({ query: searchTerm }),
  files: [],
  example: { query: 'nginx' },
  current: async (_p, host) => ({ manager: packageManager(host.platform) }),
  preview: ({ query }, cur) => ({ summary: `Search package names ${cur.manager === 'apt' ? '' : 'and summaries '}containing "${query}" (as of the last AptUpdate)`, change: null }),
  mechanism: ({ query }, cur) =>
    stepsFor(cur.manager, {
      apt: () => [command('apt-cache', ['search', '--names-only', '--', literalPattern(query)])],
      // dnf matches a substring literally (the term has no glob character), from the cache; no `--` (dnf5 refuses it), and the term never starts with '-'.
      dnf: () => [command('dnf', ['--cacheonly', 'search', query])],
    }),
});

const SOURCES_LIST = '/etc/apt/sources.list';
const SOURCES_DIR = '/etc/apt/sources.list.d';
const KEYRING_DIR = '/etc/apt/keyrings';
/** The names apt reads in sources.list.d; it ignores every other file there. */
const APT_SOURCE_FILE = /^[A-Za-z0-9_.-]+\.(list|sources)$/;

/**
 * The sources files apt reads, split into those anyone on the host may read (shown by the low
 * read) and those readable by root only (maybe holding credentials: left out), plus the
 * names apt ignores.
 */
async function sourceFiles(host: Host): Promise<{ files: string[]; skipped: string[]; ignored: string[] }> {
  const names = await listDir(host, SOURCES_DIR);
  const candidates = [SOURCES_LIST, ...names.filter((n) => APT_SOURCE_FILE.test(n)).map((n) => `${SOURCES_DIR}/${n}`)];
  const files: string[] = [];
  const skipped: string[] = [];
  for (const path of candidates) {
    const st = await host.stat(path);
    if (!st) continue;
    if (!st.isFile) skipped.push(`${path} (not a regular file)`);
    else if ((st.mode & 0o004) === 0) skipped.push(`${path} (readable by root only: it may hold credentials)`);
    else files.push(path);
  }
  return { files, skipped, ignored: names.filter((n) => !APT_SOURCE_FILE.test(n)) };
}

export const listRepositories = action({
  name: 'ListRepositories',
  family: 'packages',
  description: 'Show the apt sources: /etc/apt/sources.list and the .list and .sources files in /etc/apt/sources.list.d.',
  risk: 'low',
  readOnly: true,
  // Sensitive: the apt sources files, whose URIs may carry credentials.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [SOURCES_LIST, `${SOURCES_DIR}/*.list`, `${SOURCES_DIR}/*.sources`],
  example: {},
  current: (_p, host) => sourceFiles(host),
  check: (_p, cur) => {
    if (cur.files.length === 0) throw new AirlockError('execution', 'no_sources', `no world-readable apt sources file${cur.skipped.length ? ` (left out: ${cur.skipped.join(', ')})` : ''}`);
  },
  preview: (_p, cur) => ({
    summary: `Read ${cur.files.length} apt sources file(s): ${cur.files.join(', ')}`,
    change: null,
    warnings: [...cur.skipped.map((s) => `left out ${s}`), ...(cur.ignored.length ? [`apt ignores (and this read skips) ${cur.ignored.map((n) => `${SOURCES_DIR}/${n}`).join(', ')}`] : [])],
  }),
  mechanism: (_p, cur) => cur.files.map(fileScan),
});

const sourcesPath = (name: string) => `${SOURCES_DIR}/airlock-${name}.sources`;
const keyringPath = (name: string) => `${KEYRING_DIR}/airlock-${name}.asc`;
const REPOSITORY_FILES = [`${SOURCES_DIR}/airlock-*.sources`, `${KEYRING_DIR}/airlock-*.asc`];

export function sourcesContent(p: { name: string; uri: string; suite: string; components: string[] }): string {
  return [
    `# Added by Airlock (AddRepository ${p.name}); remove it with RemoveRepository.`,
    'Types: deb',
    `URIs: ${p.uri}`,
    `Suites: ${p.suite}`,
    `Components: ${p.components.join(' ')}`,
    `Signed-By: ${keyringPath(p.name)}`,
    '',
  ].join('\n');
}

const keyringContent = (armored: string) => (armored.endsWith('\n') ? armored : `${armored}\n`);

/**
 * gpg reads the written keyring back without importing it anywhere: no keyring of its own
 * (/dev/null), no trust database, and a home directory it writes nothing to. A file gpg cannot
 * read fails the job; its colon listing (fingerprints, validity) goes into the job output.
 */
const gpgShowKeys = (file: string): CommandStep =>
  command('gpg', ['--batch', '--no-options', '--homedir', KEYRING_DIR, '--no-permission-warning', '--no-default-keyring', '--keyring', '/dev/null', '--trust-model', 'always', '--no-auto-check-trustdb', '--show-keys', '--with-colons', '--', file]);

/**
 * apt reads every sources file back: exit 100 when one does not parse or two disagree (another
 * Signed-By for the same source stops apt from reading any). It lists this file's index
 * targets once AptUpdate has fetched them; before that the list is empty.
 */
const aptReadsSource = (file: string) => command('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE) $(COMPONENT) $(TARGET_OF)', `Sourcesentry: ${file}:1`]);

/**
 * Whether apt already has a source for URI and SUITE, fetched or not: `--print-uris update`
 * prints the Release files apt would fetch and fetches nothing (no lock, no network). Only a
 * yes/no leaves this function, since other sources may carry credentials in their URIs.
 */
async function alreadyConfigured(host: Host, uri: string, suite: string): Promise<boolean> {
  const r = await host.run('apt-get', ['--print-uris', 'update']);
  if (r.code !== 0) throw new AirlockError('conflict', 'sources_unreadable', `apt cannot read its sources now: ${firstError(r.stderr)}`, 'fix the sources at the console before adding one');
  const release = `'${withSlash(uri)}dists/${suite}/`;
  return r.stdout.split('\n').some((l) => l.startsWith(release) && /\/(In)?Release' /.test(l));
}

export const addRepository = action({
  name: 'AddRepository',
  family: 'packages',
  description: 'Add an apt repository in deb822 form, trusted only with its own OpenPGP public key (Signed-By); does not refresh the lists (AptUpdate does).',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: repositoryName, uri: repositoryUri, suite: suiteName, components: componentList, key: armoredPublicKey }),
  files: REPOSITORY_FILES,
  example: {
    name: 'example',
    uri: 'https://packages.example.org/debian',
    suite: 'bookworm',
    components: ['main'],
    key: [
      ARMOR_BEGIN,
      '',
      'mDMEawyRnRYJKwYBBAHaRw8BAQdAFqGZ4EnqbnGkUMLyqLSzSx9y4nquQ450y3GJ',
      '3LlYL8W0LUFpcmxvY2sgRXhhbXBsZSBSZXBvc2l0b3J5IDxyZXBvQGV4YW1wbGUu',
      'b3JnPoiQBBMWCAA4FiEE5dCZ+59E6rFkE8ToPiQic0oQjBYFAmsMkZ0CGwMFCwkI',
      'BwIGFQoJCAsCBBYCAwECHgECF4AACgkQPiQic0oQjBbR5QD+PwgFfQdoMIxLvrKb',
      'L8Vn2eN4HjXtxa1ZpaLz2sfdcskBALyrY7BgSXaDUKQk1xBNa3PU0pj+Q64R49yt',
      'aP5tD7gK',
      '=7Wv+',
      ARMOR_END,
      '',
    ].join('\n'),
  },
  current: async ({ name, uri, suite, key }, host) => ({
    sources: sourcesPath(name),
    keyring: keyringPath(name),
    sourcesExists: (await host.stat(sourcesPath(name))) !== null,
    keyringExists: (await host.stat(keyringPath(name))) !== null,
    alreadyConfigured: await alreadyConfigured(host, uri, suite),
    gpg: await gpgAvailable(host),
    keys: keysOf(key),
  }),
  check: ({ name, uri, suite }, cur) => {
    if (cur.sourcesExists || cur.keyringExists) {
      throw new AirlockError('conflict', 'already_exists', `a repository named ${name} exists (${cur.sourcesExists ? cur.sources : cur.keyring})`, 'pick another name, or remove it first with RemoveRepository');
    }
    if (cur.alreadyConfigured) {
      throw new AirlockError('conflict', 'already_configured', `apt already has a source for ${uri} ${suite}; a second one with another key would stop apt from reading any source`, 'see ListRepositories');
    }
  },
  preview: (p, cur) => ({
    summary: `Add repository ${p.name}: ${p.uri} ${p.suite} ${p.components.join(' ')}, signed by ${cur.keys.map((k) => k.fingerprint).join(', ')}`,
    change: {
      sources_file: cur.sources,
      sources: sourcesContent(p),
      keyring_file: cur.keyring,
      keyring_sha256: createHash('sha256').update(keyringContent(p.key)).digest('hex'),
      keys: cur.keys.map(describeKey),
      checked_by: cur.gpg ? 'gpg --show-keys, then apt-get indextargets' : 'apt-get indextargets (gpg is not installed)',
    },
    sideEffects: [
      'after AptUpdate, packages from this repository can be installed, and their maintainer scripts run as root',
      'a package it offers at a higher version than Debian does replaces Debian\'s at the next UpgradeAll (use PinPackageVersion to hold one back)',
      'the lists are not refreshed: run AptUpdate',
    ],
    warnings: [
      ...(p.uri.startsWith('http://') ? ['plain http: apt still checks every index against this key, but which packages this host fetches is visible on the network'] : []),
      ...(cur.gpg ? [] : ["gpg is not installed: the key was checked by Airlock's own OpenPGP reader only (armor, checksum, packet structure, fingerprints), not its self-signatures"]),
      ...keyWarnings(cur.keys),
    ],
  }),
  mechanism: (p, cur) => [
    fileWrite(cur.keyring, keyringContent(p.key), { mode: 0o644, parent: { mode: 0o755 } }),
    ...(cur.gpg ? [gpgShowKeys(cur.keyring)] : []),
    fileWrite(cur.sources, sourcesContent(p), { mode: 0o644, parent: { mode: 0o755 } }),
    aptReadsSource(cur.sources),
  ],
});

export const removeRepository = action({
  name: 'RemoveRepository',
  family: 'packages',
  description: 'Remove a repository that AddRepository added: its airlock-NAME.sources file and its keyring.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: repositoryName }),
  files: REPOSITORY_FILES,
  example: { name: 'example' },
  current: async ({ name }, host) => {
    const sources = await host.readFile(sourcesPath(name));
    const keyring = await host.readFile(keyringPath(name));
    const field = (f: string) => (sources === null ? null : (new RegExp(`^${f}:[ \\t]*(.*)$`, 'm').exec(sources)?.[1]?.trim() ?? null));
    const keys = keyring === null ? null : parseArmoredPublicKey(keyring);
    return {
      sources: sourcesPath(name),
      keyring: keyringPath(name),
      sourcesExists: sources !== null,
      keyringExists: keyring !== null,
      uris: field('URIs')?.split(/\s+/).map(noUserInfo) ?? [],
      suites: field('Suites'),
      components: field('Components'),
      fingerprints: Array.isArray(keys) ? keys.map((k) => k.fingerprint) : [],
    };
  },
  check: ({ name }, cur) => {
    if (!cur.sourcesExists && !cur.keyringExists) throw new AirlockError('conflict', 'no_such_repository', `Airlock added no repository named ${name} (neither ${cur.sources} nor ${cur.keyring} exists)`, 'ListRepositories shows the sources; others are not Airlock\'s to remove');
  },
  preview: ({ name }, cur) => ({
    summary: `Remove repository ${name}${cur.uris.length ? ` (${cur.uris.join(' ')} ${cur.suites ?? ''})`.replace(/ \)$/, ')') : ''}`,
    change: { delete: [...(cur.sourcesExists ? [cur.sources] : []), ...(cur.keyringExists ? [cur.keyring] : [])], uris: cur.uris, suites: cur.suites, components: cur.components, key_fingerprints: cur.fingerprints },
    sideEffects: ['packages already installed from it stay installed but get no more updates', 'its lists stay in /var/lib/apt/lists until the next AptUpdate'],
  }),
  mechanism: (_p, cur) => [...(cur.sourcesExists ? [fileDelete(cur.sources)] : []), ...(cur.keyringExists ? [fileDelete(cur.keyring)] : [])],
});

// ---------------------------------------------------------------------------
// Unattended upgrades

const AUTO_UPGRADES = '/etc/apt/apt.conf.d/20auto-upgrades';
const UU_CONFIG = '/etc/apt/apt.conf.d/50unattended-upgrades';
const UU_PACKAGE = 'unattended-upgrades';
const PERIODIC_KEYS = ['APT::Periodic::Update-Package-Lists', 'APT::Periodic::Unattended-Upgrade'] as const;
const PERIODIC_DUMP = ['dump', '--format', '%f=%v%n', 'APT::Periodic'];
const PERIODIC_LINE = /^\s*(APT::Periodic::(?:Update-Package-Lists|Unattended-Upgrade))\s+"([^"]*)"\s*;\s*$/;

/** The two settings as a file sets them, one per line ("KEY "VALUE";"), or as apt resolves them from all files. */
function periodicValues(lines: string[], re: RegExp): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines) {
    const m = re.exec(l);
    if (m && (PERIODIC_KEYS as readonly string[]).includes(m[1]!)) out[m[1]!] = m[2]!;
  }
  return out;
}

/**
 * 20auto-upgrades with both settings at `enabled`: lines setting them are rewritten in
 * place, missing ones appended, every other line kept as it is.
 */
export function autoUpgradesText(existing: string | null, enabled: boolean): string {
  const value = enabled ? '1' : '0';
  const lines = existing ? existing.replace(/\n$/, '').split('\n') : [];
  const seen = new Set<string>();
  const out = lines.map((l) => {
    const m = PERIODIC_LINE.exec(l);
    if (!m) return l;
    seen.add(m[1]!);
    return `${m[1]} "${value}";`;
  });
  for (const k of PERIODIC_KEYS) if (!seen.has(k)) out.push(`${k} "${value}";`);
  return out.join('\n') + '\n';
}

async function unattendedState(host: Host) {
  const dpkg = await dpkgEntries(host, [UU_PACKAGE]);
  const text = await host.readFile(AUTO_UPGRADES);
  const r = await host.run('apt-config', PERIODIC_DUMP);
  if (r.code !== 0) throw new AirlockError('execution', 'apt_config_failed', `apt cannot read its configuration: ${firstError(r.stderr)}`);
  return {
    installed: installedVersion(dpkg),
    file: text,
    fileSets: periodicValues((text ?? '').split('\n'), PERIODIC_LINE),
    effective: periodicValues(r.stdout.split('\n'), /^(APT::Periodic::[A-Za-z-]+)=(.*)$/),
    config: (await host.stat(UU_CONFIG))?.isFile ?? false,
  };
}

export const unattendedUpgradesStatus = action({
  name: 'UnattendedUpgradesStatus',
  family: 'packages',
  description: 'Show whether unattended upgrades are installed and switched on: the package, apt\'s effective APT::Periodic settings, 20auto-upgrades and 50unattended-upgrades.',
  risk: 'low',
  readOnly: true,
  // Sensitive: the unattended-upgrades configuration files, in full.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [AUTO_UPGRADES, UU_CONFIG],
  example: {},
  current: (_p, host) => unattendedState(host),
  preview: (_p, cur) => ({
    summary: `Show the unattended-upgrades state (package ${cur.installed ? `${cur.installed} installed` : 'not installed'}, Unattended-Upgrade=${cur.effective['APT::Periodic::Unattended-Upgrade'] ?? 'unset'})`,
    change: null,
  }),
  mechanism: (_p, cur) => [
    command('dpkg-query', ['-W', '--showformat=${db:Status-Abbrev} ${Package} ${Version}\n', '--', UU_PACKAGE], { okCodes: [0, 1] }),
    command('apt-config', PERIODIC_DUMP),
    ...(cur.file !== null ? [fileScan(AUTO_UPGRADES)] : []),
    ...(cur.config ? [fileScan(UU_CONFIG)] : []),
  ],
});

export const setUnattendedUpgrades = action({
  name: 'SetUnattendedUpgrades',
  family: 'packages',
  description: 'Switch the daily list refresh and unattended upgrades on or off (APT::Periodic settings in /etc/apt/apt.conf.d/20auto-upgrades).',
  risk: 'medium',
  rollback: true,
  readOnly: false,
  params: params({ enabled: z.boolean() }),
  files: [AUTO_UPGRADES],
  example: { enabled: true },
  current: (_p, host) => unattendedState(host),
  check: ({ enabled }, cur) => {
    if (enabled && !cur.installed) throw new AirlockError('conflict', 'not_installed', `${UU_PACKAGE} is not installed, so nothing would run the upgrades`, `install it first: InstallPackage {"package": "${UU_PACKAGE}"}`);
    if (cur.file === autoUpgradesText(cur.file, enabled)) {
      throw new AirlockError('conflict', 'already_set', `${AUTO_UPGRADES} already switches them ${enabled ? 'on' : 'off'} (effective: ${PERIODIC_KEYS.map((k) => `${k}=${cur.effective[k] ?? 'unset'}`).join(', ')})`);
    }
  },
  preview: ({ enabled }, cur) => {
    const value = enabled ? '1' : '0';
    const overridden = PERIODIC_KEYS.filter((k) => cur.fileSets[k] !== undefined && cur.effective[k] !== undefined && cur.effective[k] !== cur.fileSets[k]);
    return {
      summary: `Switch unattended upgrades ${enabled ? 'on' : 'off'}`,
      change: { file: AUTO_UPGRADES, content: autoUpgradesText(cur.file, enabled), from: PERIODIC_KEYS.map((k) => `${k}=${cur.effective[k] ?? 'unset'}`), to: PERIODIC_KEYS.map((k) => `${k}=${value}`) },
      sideEffects: [
        enabled
          ? 'apt-daily.timer refreshes the lists and apt-daily-upgrade.timer installs the upgrades allowed by 50unattended-upgrades (security updates by default), unattended'
          : 'security updates are no longer installed automatically: someone must run UpgradeAll',
      ],
      warnings: overridden.map((k) => `another apt.conf.d file overrides ${k} (effective ${cur.effective[k]}, while ${AUTO_UPGRADES} says ${cur.fileSets[k]})`),
    };
  },
  // apt reads its whole configuration back: a file it cannot parse fails the job and is restored.
  mechanism: ({ enabled }, cur) => [fileWrite(AUTO_UPGRADES, autoUpgradesText(cur.file, enabled), { mode: 0o644 }), command('apt-config', PERIODIC_DUMP)],
});
