/**
 * TLS certificates: the listing of the certificate directories and the subject, issuer
 * and dates of one PEM certificate (openssl x509), links followed only within the
 * certificate locations, and anything that is or holds a private key refused unread.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { command } from '../../mechanism.js';
import { matchesGlob, params, pathMatching } from '../../params.js';
import { linkTarget } from '../../lib/host-files.js';
import { occurrences } from '../../lib/line-patch.js';
import { firstSymlink } from './host-paths.js';

/** Directories whose listing (names, link targets, sizes) ListCertificates shows. */
export const CERT_DIRS = ['/etc/ssl/certs', '/usr/local/share/ca-certificates', '/etc/letsencrypt/live'] as const;
/** What CertificateExpiry may be asked about. */
export const CERT_PATHS = [
  '/etc/ssl/certs/*',
  '/usr/local/share/ca-certificates/*',
  '/usr/local/share/ca-certificates/*/*',
  '/etc/letsencrypt/live/*/cert.pem',
  '/etc/letsencrypt/live/*/chain.pem',
  '/etc/letsencrypt/live/*/fullchain.pem',
];
/** Where a link among those may lead: the same places, the distribution's CA store and certbot's archive (never privkey*.pem). */
export const CERT_TARGETS = [
  ...CERT_PATHS,
  '/usr/share/ca-certificates/*/*',
  '/etc/letsencrypt/archive/*/cert*.pem',
  '/etc/letsencrypt/archive/*/chain*.pem',
  '/etc/letsencrypt/archive/*/fullchain*.pem',
];
/** key.pem, server.key, privkey1.pem, tls-key.crt: names of key files (a CA called WISeKey is not one). */
const looksLikeKey = (p: string) => /(^|[._-])(priv)?key([._\d-]|$)|privkey/i.test(posix.basename(p));
export const certificatePath = pathMatching(CERT_PATHS, 'certificate path')
  // Letters of any script (NetLock_Arany_=Class_Gold=_Főtanúsítvány.pem), digits and . _ = + @ , - only.
  .refine((p) => p.split('/').slice(1).every((seg) => /^[\p{L}\p{N}._=+@,][\p{L}\p{N}._=+@,-]*$/u.test(seg)), "certificate path may hold letters, digits and . _ = + @ , - only, and no part may start with '-'")
  .refine((p) => !looksLikeKey(p), 'a file named like a key (key.pem, *.key, privkey*.pem) is never read');
const MAX_LINKS = 8;
const MAX_CERT_BYTES = 1024 * 1024;

interface CertState {
  path: string;
  /** The regular file the links lead to; openssl reads exactly this file. */
  file: string;
  links: string[];
  size: number;
  certificates: number;
}

/** Follows `path` to a regular certificate file within CERT_TARGETS, refusing anything that could be a private key. */
async function readCertificate(path: string, host: Host): Promise<CertState> {
  let file = path;
  const links: string[] = [];
  for (;;) {
    const link = await firstSymlink(host, file);
    if (link === null) break;
    const refuse = (code: string, why: string) => new AirlockError('authorization', code, `${path}: ${why}`);
    if (link !== file) throw refuse('symlink_in_path', `${link} is a symbolic link to a directory; Airlock follows links to files only`);
    if (links.length >= MAX_LINKS) throw refuse('too_many_links', `more than ${MAX_LINKS} links to follow`);
    const next = await linkTarget(host, file);
    if (next === null) throw refuse('dangling_link', `${file} is a link Airlock cannot resolve`);
    links.push(file);
    file = next;
  }
  if (!CERT_TARGETS.some((g) => matchesGlob(file, g)) || looksLikeKey(file)) {
    throw new AirlockError('authorization', 'link_outside_allowlist', `${path} leads to ${file}, which is not a certificate location Airlock reads`);
  }
  await host.trustedPath(file); // openssl opens it by name
  const st = await host.stat(file);
  if (!st) throw new AirlockError('validation', 'no_such_file', `${file} does not exist`);
  if (!st.isFile) throw new AirlockError('validation', 'not_a_file', `${file} is not a regular file`);
  if (st.size > MAX_CERT_BYTES) throw new AirlockError('validation', 'too_large', `${file} is ${st.size} bytes: not a certificate file`);
  const text = (await host.readFile(file)) ?? '';
  // The bytes stay here: the preview shows counts, never content.
  if (/PRIVATE KEY/.test(text)) throw new AirlockError('authorization', 'holds_private_key', `${file} holds a private key; Airlock does not read such a file as a certificate`);
  if (!text.trimStart().startsWith('-----BEGIN CERTIFICATE-----')) throw new AirlockError('validation', 'not_a_certificate', `${file} does not begin with a PEM certificate`);
  return { path, file, links, size: st.size, certificates: occurrences(text, '-----BEGIN CERTIFICATE-----') };
}

export const certificateExpiry = action({
  name: 'CertificateExpiry',
  family: 'security',
  description: 'Show the subject, issuer and validity dates of a PEM certificate under /etc/ssl/certs, /usr/local/share/ca-certificates or /etc/letsencrypt/live (links followed within those; key files refused).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ path: certificatePath }),
  files: CERT_TARGETS,
  example: { path: '/etc/letsencrypt/live/example.org/fullchain.pem' },
  current: ({ path }, host) => readCertificate(path, host),
  preview: ({ path }, cur) => ({
    summary: `Read the subject, issuer and dates of ${path}${cur.file !== path ? ` (${cur.file})` : ''}`,
    change: null,
    warnings: cur.certificates > 1 ? [`${cur.file} holds ${cur.certificates} certificates; openssl shows the first (the server's own in a fullchain.pem)`] : [],
  }),
  mechanism: (_p, cur) => [command('openssl', ['x509', '-noout', '-subject', '-issuer', '-startdate', '-enddate', '-in', cur.file], { paths: [cur.file] })],
});

export const listCertificates = action({
  name: 'ListCertificates',
  family: 'security',
  description: `List the certificate files (and the links to them) of one of: ${CERT_DIRS.join(', ')}.`,
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ dir: z.enum(CERT_DIRS) }),
  files: [...CERT_DIRS],
  example: { dir: '/etc/ssl/certs' },
  current: async ({ dir }, host) => {
    await host.trustedPath(dir); // ls lists it by name
    return { stat: await host.stat(dir), link: await firstSymlink(host, dir) };
  },
  shown: (cur) => ({ exists: cur.stat !== null, link: cur.link }),
  check: ({ dir }, cur) => {
    if (cur.link) throw new AirlockError('authorization', 'symlink_in_path', `${cur.link} is a symbolic link; Airlock lists real directories only`);
    if (!cur.stat) throw new AirlockError('validation', 'no_such_directory', `${dir} does not exist on this host`);
    if (!cur.stat.isDir) throw new AirlockError('validation', 'not_a_directory', `${dir} is not a directory`);
  },
  preview: ({ dir }) => ({ summary: `List ${dir}`, change: null }),
  // -b escapes non-printable characters, so a crafted file name cannot forge output lines.
  mechanism: ({ dir }) => [command('ls', ['-l', '-b', '--time-style=long-iso', '--', dir], { paths: [dir] })],
});
