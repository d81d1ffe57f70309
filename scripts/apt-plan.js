// What `npm test` may install on the machine it runs on: the Debian packages its tests need
// that are missing, and nothing else. apt-get would happily upgrade installed packages to
// satisfy a new one (systemd-container wants exactly the systemd it was built with, so a
// newer systemd-container upgraded systemd, libsystemd0 and seven more on a test run). So
// every install is simulated first (`apt-get install -s` changes nothing), a version that
// needs no upgrade is looked for, and an upgrade that cannot be avoided is named and left
// to the person (or CI) to allow.
import { execFileSync } from 'node:child_process';

const APT_GET = '/usr/bin/apt-get';
const APT_CACHE = '/usr/bin/apt-cache';
const ENV = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C' };

/**
 * The lines `apt-get install -s` prints for what it would install: "Inst NAME (NEW ...)" for a
 * new package, "Inst NAME [OLD] (NEW ...)" for an upgrade (or downgrade) of an installed one,
 * "Remv NAME [OLD]" for one it would remove (counted with the upgrades: a change to what is here).
 */
export function parseSimulation(text) {
  const installs = [];
  const upgrades = [];
  for (const line of text.split('\n')) {
    // A package apt would remove changes the machine as much as one it would upgrade.
    const removed = /^Remv (\S+) \[([^\]]+)\]/.exec(line);
    if (removed) upgrades.push({ name: removed[1], from: removed[2], to: '(removed)' });
    const m = /^Inst (\S+) (?:\[([^\]]+)\] )?\((\S+)/.exec(line);
    if (!m) continue;
    if (m[2] === undefined) installs.push({ name: m[1], version: m[3] });
    else upgrades.push({ name: m[1], from: m[2], to: m[3] });
  }
  return { installs, upgrades };
}

/** The versions apt knows of a package, newest first, from `apt-cache madison`. */
export function parseMadison(text) {
  const versions = [];
  for (const line of text.split('\n')) {
    const v = line.split('|')[1]?.trim();
    if (v && !versions.includes(v)) versions.push(v);
  }
  return versions;
}

function simulate(specs) {
  try {
    return parseSimulation(execFileSync(APT_GET, ['install', '-s', '--no-install-recommends', ...specs], { env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  } catch {
    return null; // apt cannot resolve this set at all
  }
}

/**
 * The package specs to install (NAME or NAME=VERSION) so that no installed package changes,
 * and what would still be upgraded when that is impossible.
 */
export function planInstall(packages) {
  const whole = simulate(packages);
  if (whole && whole.upgrades.length === 0) return { specs: packages, upgrades: [] };
  // Each package on its own: the newest of its versions whose install upgrades nothing.
  const specs = [];
  for (const name of packages) {
    const alone = simulate([name]);
    if (alone && alone.upgrades.length === 0) {
      specs.push(name);
      continue;
    }
    let madison = '';
    try {
      madison = execFileSync(APT_CACHE, ['madison', name], { env: ENV, encoding: 'utf8' });
    } catch {}
    const quiet = parseMadison(madison).find((v) => simulate([`${name}=${v}`])?.upgrades.length === 0);
    specs.push(quiet ? `${name}=${quiet}` : name);
  }
  const together = simulate(specs);
  return { specs, upgrades: together ? together.upgrades : whole?.upgrades ?? [] };
}
