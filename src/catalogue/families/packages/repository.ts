/**
 * Adding and removing an apt repository: a deb822 sources file and its keyring, both files
 * Airlock owns (`/etc/apt/sources.list.d/airlock-*.sources`, `/etc/apt/keyrings/airlock-*.asc`).
 * apt reads the result back before the job counts as done: a file apt cannot parse fails the
 * job, and the executor restores every file it wrote.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileDelete, fileWrite } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { firstError } from '../../lib/apt.js';
import { ARMOR_BEGIN, ARMOR_END, armoredPublicKey, keysOf, parseArmoredPublicKey } from '../../lib/openpgp.js';
import { describeKey, gpgAvailable, gpgShowKeys, KEYRING_DIR, keyWarnings } from './keys.js';
import { SOURCES_DIR } from './sources.js';
import { exact } from '../../rollback.js';

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

const noUserInfo = (uri: string) => uri.replace(/^([a-z+]+:\/\/)[^/@\s]*@/i, '$1');
const withSlash = (uri: string) => (uri.endsWith('/') ? uri : `${uri}/`);

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
 * apt reads every sources file back: exit 100 when one does not parse or two disagree (another
 * Signed-By for the same source stops apt from reading any). It lists this file's index
 * targets once AptUpdate has fetched them; before that the list is empty.
 */
const aptReadsSource = (file: string) => command('apt-get', ['indextargets', '--format', '$(REPO_URI) $(RELEASE) $(COMPONENT) $(TARGET_OF)', `Sourcesentry: ${file}:1`], { noUndo: 'changes_nothing' });

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
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
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
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
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
    if (!cur.sourcesExists && !cur.keyringExists) return unchanged(`Airlock added no repository named ${name} (neither ${cur.sources} nor ${cur.keyring} exists)`);
  },
  preview: ({ name }, cur) => ({
    summary: `Remove repository ${name}${cur.uris.length ? ` (${cur.uris.join(' ')} ${cur.suites ?? ''})`.replace(/ \)$/, ')') : ''}`,
    change: { delete: [...(cur.sourcesExists ? [cur.sources] : []), ...(cur.keyringExists ? [cur.keyring] : [])], uris: cur.uris, suites: cur.suites, components: cur.components, key_fingerprints: cur.fingerprints },
    sideEffects: ['packages already installed from it stay installed but get no more updates', 'its lists stay in /var/lib/apt/lists until the next AptUpdate'],
  }),
  mechanism: (_p, cur) => [...(cur.sourcesExists ? [fileDelete(cur.sources)] : []), ...(cur.keyringExists ? [fileDelete(cur.keyring)] : [])],
});
