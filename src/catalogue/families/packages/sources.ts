/** The apt sources files: which apt reads, and the read that shows those anyone on the host may read. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { fileScan } from '../../mechanism.js';
import { params } from '../../params.js';
import { listDirectory } from '../../lib/host-files.js';

export const SOURCES_LIST = '/etc/apt/sources.list';
export const SOURCES_DIR = '/etc/apt/sources.list.d';

/** The names apt reads in sources.list.d; it ignores every other file there. */
const APT_SOURCE_FILE = /^[A-Za-z0-9_.-]+\.(list|sources)$/;

/**
 * The sources files apt reads, split into those anyone on the host may read (shown by the low
 * read) and those readable by root only (maybe holding credentials: left out), plus the
 * names apt ignores.
 */
async function sourceFiles(host: Host): Promise<{ files: string[]; skipped: string[]; ignored: string[] }> {
  const names = ((await listDirectory(host, SOURCES_DIR)) ?? []).sort();
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
