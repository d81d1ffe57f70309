/**
 * A stand-in for the `nodejs` package (NodeSource's, or Debian trixie's): this host's own
 * /usr/bin/node in a minimal deb, Version its `node --version`, so a bare test bed (which has no
 * network and no Node) satisfies the airlock package's `Depends: nodejs (>= 20)` the way a server
 * does. Built once per Node version into package/ (gitignored), renamed into place whole.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_DIR } from '../../scripts/package.js';

const NODE = '/usr/bin/node';

export function nodeDeb(): string {
  const version = execFileSync(NODE, ['--version']).toString().trim().replace(/^v/, '');
  const arch = execFileSync('/usr/bin/dpkg', ['--print-architecture']).toString().trim();
  const deb = join(PACKAGE_DIR, `nodejs-fixture_${version}_${arch}.deb`);
  if (existsSync(deb)) return deb;
  const stage = join(PACKAGE_DIR, `.nodejs-stage-${process.pid}`);
  rmSync(stage, { recursive: true, force: true });
  try {
    mkdirSync(join(stage, 'usr', 'bin'), { recursive: true, mode: 0o755 });
    mkdirSync(join(stage, 'DEBIAN'), { mode: 0o755 });
    cpSync(NODE, join(stage, 'usr', 'bin', 'node'));
    writeFileSync(
      join(stage, 'DEBIAN', 'control'),
      `Package: nodejs\nVersion: ${version}\nArchitecture: ${arch}\nMaintainer: Airlock tests <tests@example.org>\nDepends: libc6, libstdc++6\nDescription: this host's Node ${version} (a test fixture)\n`,
      { mode: 0o644 },
    );
    const tmp = `${deb}.${process.pid}`;
    // No compression: the fixture never leaves this machine, and 100 MB of xz would take a minute.
    execFileSync('/usr/bin/dpkg-deb', ['--root-owner-group', '-Znone', '--build', stage, tmp], { stdio: ['ignore', 'ignore', 'inherit'] });
    renameSync(tmp, deb);
    return deb;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
