/**
 * The Debian package for tests: `buildPackage(version)` builds it with scripts/package.ts, or
 * reuses the one already built for the same version from the same code (HEAD and the working
 * tree's uncommitted diff, recorded beside the .deb); `installPackage(box, deb)` installs it on
 * a bare booted test bed as a server's admin would, offline: the `nodejs` stand-in (node-deb.ts)
 * with dpkg, then `apt-get install ./airlock_*.deb`.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage as build, debName, PACKAGE_DIR, packageVersion } from '../../scripts/package.js';
import type { CommandResult, Sandbox } from '../../src/sandbox/overlay.js';
import { nodeDeb } from './node-deb.js';

const PROJECT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const git = (args: string[]) => execFileSync('/usr/bin/git', args, { cwd: PROJECT, maxBuffer: 256 * 1024 * 1024 }).toString();

/** What scripts/package.ts reads from the checkout (a test's own edits do not make a new package). */
const PACKAGED_PATHS = ['src', 'bin', 'console', 'scripts', 'native', 'package.json', 'package-lock.json', 'tsconfig.json', 'README.md', 'docs'];

/** What the package is built from: HEAD, and what the working tree changes there on top of it. */
function codeKey(): string {
  return `${git(['rev-parse', 'HEAD']).trim()} ${createHash('sha256').update(git(['diff', 'HEAD', '--binary', '--', ...PACKAGED_PATHS])).digest('hex')}`;
}

export async function buildPackage(version = packageVersion()): Promise<{ deb: string; built: boolean; ms: number }> {
  const deb = join(PACKAGE_DIR, debName(version));
  const stamp = `${deb}.code`;
  const key = codeKey();
  const cached = () => existsSync(deb) && existsSync(stamp) && readFileSync(stamp, 'utf8') === key;
  if (cached()) return { deb, built: false, ms: 0 };
  // Test files run at once (the package test, the fleet's): one builds, the others wait for it and reuse it.
  mkdirSync(PACKAGE_DIR, { recursive: true });
  const lock = `${deb}.lock`;
  let fd: number | null = null;
  for (const until = Date.now() + 15 * 60_000; fd === null; ) {
    try {
      fd = openSync(lock, 'wx');
    } catch {
      if (Date.now() > until) throw new Error(`another build of ${deb} held ${lock} for 15 minutes`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (cached()) return { deb, built: false, ms: 0 };
    const b = await build(version);
    writeFileSync(stamp, key);
    return { deb: b.deb, built: true, ms: b.ms };
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

/** A command in the test bed with a clean environment (nothing of this test process's leaks into dpkg or the CLI). */
export const clean = (box: Sandbox, argv: string[]): Promise<CommandResult> =>
  box.run('/usr/bin/env', ['-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'DEBIAN_FRONTEND=noninteractive', 'LANG=C.UTF-8', ...argv]);

async function must(box: Sandbox, argv: string[]): Promise<string> {
  const r = await clean(box, argv);
  if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code} in the test bed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** The nodejs stand-in, installed with dpkg when the test bed has no nodejs package yet. */
export async function installNode(box: Sandbox): Promise<void> {
  if ((await clean(box, ['/usr/bin/dpkg-query', '-W', 'nodejs'])).code === 0) return;
  const node = nodeDeb();
  copyFileSync(node, join(box.shared, basename(node)));
  await must(box, ['/usr/bin/dpkg', '-i', join(box.shared, basename(node))]);
}

/** Installs (or upgrades to) `deb` on a bare booted test bed, with the nodejs stand-in first when Node is not there yet; apt's output. */
export async function installPackage(box: Sandbox, deb: string): Promise<string> {
  await installNode(box);
  copyFileSync(deb, join(box.shared, basename(deb)));
  return must(box, ['/usr/bin/apt-get', 'install', '-y', '--no-install-recommends', join(box.shared, basename(deb))]);
}
