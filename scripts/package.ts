/**
 * `npm run package`: the Debian package, package/airlock_VERSION_ARCH.deb and its .sha256.
 * VERSION is package.json's (AIRLOCK_PACKAGE_VERSION overrides it), ARCH dpkg's.
 *
 * Built offline from this checkout: dist/ compiled afresh by tsc; node_modules copied from the
 * checkout's (already built for this architecture, better-sqlite3's addon included) and pruned
 * with `npm prune --omit=dev --offline --ignore-scripts`, so npm's own reading of the lock
 * decides what production needs, no registry is asked and no install script runs; the native
 * addon's build output. Every generated file comes from the generator `airlock install` uses
 * (installation.ts, console-unit.ts, sysusers.ts, example-policy.ts; the man page and
 * completions from the staged CLI itself). All root:root (dpkg-deb --root-owner-group),
 * directories 0755, files 0644 or 0755: what checkDaemonCode demands of /usr/lib/airlock.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, createReadStream, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { PACKAGE_LAYOUT, tmpfilesConf, unitFile } from '../src/cli/installation.js';
import { consoleUnitFile } from '../src/cli/console-unit.js';
import { SYSUSERS_PATH, sysusersConf } from '../src/cli/sysusers.js';
import { EXAMPLE_POLICY } from '../src/cli/example-policy.js';
import { COMPLETION_PATHS, SHELLS } from '../src/cli/completion.js';
import { DEFAULT_POLICY_PATH } from '../src/protocol/defaults.js';
import { controlFile, postinst, postrm, prerm } from './deb-scripts.js';

export const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PACKAGE_DIR = join(PROJECT, 'package');
const LIB = PACKAGE_LAYOUT.dir;
const UNIT_DIR = '/usr/lib/systemd/system';
const TMPFILES = '/usr/lib/tmpfiles.d/airlock.conf';
const MAN = '/usr/share/man/man1/airlock.1.gz';
/** Only what runs or is read at run time: the compiled code, not its sources or their maps. */
const RUNTIME_DATA = ['src/protocol/catalogue-metadata.json'];
/** Build leftovers inside better-sqlite3 the loaded addon does not need (its C sources and objects: 26 of its 27 MB). */
const SQLITE_UNUSED = ['deps', 'src', 'build/Release/obj.target', 'build/Release/obj', 'build/Release/test_extension.node', 'build/Release/.deps', 'build/deps'];

const run = (file: string, args: string[], cwd = PROJECT) => execFileSync(file, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 }).toString();

export interface BuiltPackage {
  deb: string;
  version: string;
  sha256: string;
  bytes: number;
  ms: number;
}

export function debName(version: string, arch = run('/usr/bin/dpkg', ['--print-architecture']).trim()): string {
  return `airlock_${version}_${arch}.deb`;
}

export function packageVersion(): string {
  return process.env.AIRLOCK_PACKAGE_VERSION || (JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')) as { version: string }).version;
}

export async function buildPackage(version = packageVersion()): Promise<BuiltPackage> {
  const started = Date.now();
  // dpkg's own grammar, checked before minutes of work; also keeps the name a plain file name.
  if (!/^[0-9][A-Za-z0-9.+~-]*$/.test(version)) throw new Error(`not a Debian version: ${JSON.stringify(version)}`);
  const arch = run('/usr/bin/dpkg', ['--print-architecture']).trim();
  mkdirSync(PACKAGE_DIR, { recursive: true });
  const stage = join(PACKAGE_DIR, `.stage-${process.pid}`);
  rmSync(stage, { recursive: true, force: true });
  const at = (p: string) => join(stage, p);
  const put = (p: string, text: string | Buffer, mode = 0o644) => {
    mkdirSync(dirname(at(p)), { recursive: true });
    writeFileSync(at(p), text, { mode });
  };
  try {
    const lib = at(LIB);
    mkdirSync(lib, { recursive: true });
    cpSync(join(PROJECT, 'package-lock.json'), join(lib, 'package-lock.json'));
    // The package's version is the one `airlock --version` prints (src/cli/version.ts reads it here).
    put(join(LIB, 'package.json'), `${JSON.stringify({ ...JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')), version }, null, 2)}\n`);
    for (const d of ['bin', 'console']) cpSync(join(PROJECT, d), join(lib, d), { recursive: true });
    for (const f of RUNTIME_DATA) cpSync(join(PROJECT, f), join(lib, f));
    run(process.execPath, [join(PROJECT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--outDir', join(lib, 'dist'), '--sourceMap', 'false']);
    const addon = join('native', 'build', 'Release', 'airlock_native.node'); // where src/native/addon.ts loads it
    if (!existsSync(join(PROJECT, addon))) throw new Error(`${addon} is not built: run npm install first`);
    cpSync(join(PROJECT, addon), join(lib, addon));
    // From its real path: a worktree's node_modules may be a link to another checkout's. Links inside stay links.
    cpSync(realpathSync(join(PROJECT, 'node_modules')), join(lib, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    // The npm running `npm run package` (npm_execpath: its npm-cli.js), by this Node; else the distribution's.
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['/usr/bin/npm'];
    run(npm[0]!, [...npm.slice(1), 'prune', '--omit=dev', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], lib);
    for (const p of SQLITE_UNUSED) rmSync(join(lib, 'node_modules', 'better-sqlite3', p), { recursive: true, force: true });
    rmSync(join(lib, 'node_modules', '.bin'), { recursive: true, force: true }); // links to dev tools' commands
    if (!existsSync(join(lib, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))) throw new Error('better-sqlite3 is not built in node_modules: run npm install first');
    mkdirSync(at('/usr/bin'));
    symlinkSync(`../lib/airlock/bin/airlock.js`, at('/usr/bin/airlock'));

    put(join(UNIT_DIR, 'airlock.service'), unitFile(PACKAGE_LAYOUT));
    put(join(UNIT_DIR, 'airlock-console.service'), consoleUnitFile(PACKAGE_LAYOUT));
    put(TMPFILES, tmpfilesConf('the airlock package'));
    put(SYSUSERS_PATH, sysusersConf());
    put(DEFAULT_POLICY_PATH, EXAMPLE_POLICY);
    // The man page and completions from the staged CLI itself: the same generators as install, and a first run of what ships.
    const cli = (args: string[]) => run(process.execPath, [join(lib, 'bin', 'airlock.js'), ...args], stage);
    put(MAN, gzipSync(cli(['man']), { level: 9 }));
    for (const shell of SHELLS) put(COMPLETION_PATHS[shell], cli(['completion', shell]));
    const doc = PACKAGE_LAYOUT.docs;
    put(join(doc, 'README.md'), readFileSync(join(PROJECT, 'README.md')));
    for (const f of readdirSync(join(PROJECT, 'docs')).filter((n) => n.endsWith('.md'))) put(join(doc, 'docs', f), readFileSync(join(PROJECT, 'docs', f)));
    put(join(doc, 'copyright'), 'Airlock\nLicense: MIT (package.json); the bundled Node modules under /usr/lib/airlock/node_modules carry their own licences.\n');

    normaliseModes(stage);
    const installedKiB = Math.ceil(duBytes(stage) / 1024);
    const meta = at('DEBIAN');
    mkdirSync(meta, { mode: 0o755 });
    put('DEBIAN/control', controlFile({ version, arch, installedKiB }));
    put('DEBIAN/conffiles', `${DEFAULT_POLICY_PATH}\n`);
    put('DEBIAN/postinst', postinst(), 0o755);
    put('DEBIAN/prerm', prerm(), 0o755);
    put('DEBIAN/postrm', postrm(), 0o755);
    put('DEBIAN/md5sums', await md5sums(stage));

    const name = debName(version, arch);
    const deb = join(PACKAGE_DIR, name);
    const tmp = join(PACKAGE_DIR, `.${name}.${process.pid}`);
    run('/usr/bin/dpkg-deb', ['--root-owner-group', '-Zxz', '--build', stage, tmp]);
    const sha256 = createHash('sha256').update(readFileSync(tmp)).digest('hex');
    renameSync(tmp, deb); // whole or absent: a concurrent build of the same name never reads half a file
    writeFileSync(`${deb}.sha256`, `${sha256}  ${name}\n`);
    return { deb, version, sha256, bytes: statSync(deb).size, ms: Date.now() - started };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Directories 0755; files 0755 when anyone may execute them, else 0644: no group or other write, no setuid. */
function normaliseModes(root: string): void {
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      chmodSync(p, 0o755);
      for (const n of readdirSync(p)) walk(join(p, n));
    } else chmodSync(p, st.mode & 0o111 ? 0o755 : 0o644);
  };
  walk(root);
}

function duBytes(root: string): number {
  let total = 0;
  const walk = (p: string) => {
    const st = lstatSync(p);
    total += Math.ceil(st.size / 4096) * 4096;
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(root);
  return total;
}

/** DEBIAN/md5sums: every regular file's md5 and path relative to /, as dpkg --verify reads it. */
async function md5sums(root: string): Promise<string> {
  const files: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isDirectory()) {
      if (p !== join(root, 'DEBIAN')) for (const n of readdirSync(p).sort()) walk(join(p, n));
    } else if (st.isFile()) files.push(p);
  };
  walk(root);
  const lines: string[] = [];
  for (const f of files) {
    const h = createHash('md5');
    for await (const chunk of createReadStream(f)) h.update(chunk as Buffer);
    lines.push(`${h.digest('hex')}  ${relative(root, f)}\n`);
  }
  return lines.join('');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const b = await buildPackage();
  process.stdout.write(`${relative(process.cwd(), b.deb) || basename(b.deb)}: ${(b.bytes / 1024 / 1024).toFixed(1)} MB, built in ${(b.ms / 1000).toFixed(1)} s\nsha256 ${b.sha256}\nverify: cd ${relative(process.cwd(), PACKAGE_DIR) || '.'} && sha256sum -c ${basename(b.deb)}.sha256\n`);
}
