#!/usr/bin/env node
// `npm test`: unit tests, then integration tests that start real daemons on
// throwaway overlays of / and run clients as real Unix users. Those need root and
// a few Debian tools; as root this script installs any that are missing.
// `npm run test:unit` (`node scripts/test.js unit`): the unit tests alone, no root needed.
// `npm run test:integration` (`node scripts/test.js integration`): the integration tests alone, as root.
// The typecheck is its own script (`npm run typecheck`), which .ci/run runs first.
// How to run one test, one family's scenarios or the attacks: docs/TESTING.md.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { availableParallelism, setPriority, tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { planInstall } from './apt-plan.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (s) => process.stdout.write(`[airlock test] ${s}\n`);

// Tool the tests use -> the Debian package that ships it.
const NEEDED = {
  '/usr/bin/unshare': 'util-linux',
  '/usr/bin/nsenter': 'util-linux',
  '/usr/bin/setpriv': 'util-linux',
  '/usr/bin/lsblk': 'util-linux',
  '/usr/bin/findmnt': 'util-linux',
  '/usr/bin/mount': 'mount',
  '/usr/sbin/chroot': 'coreutils',
  '/usr/sbin/useradd': 'passwd',
  '/usr/bin/chattr': 'e2fsprogs',
  '/usr/bin/ssh-keygen': 'openssh-client',
  '/usr/sbin/ip': 'iproute2',
  '/usr/bin/ss': 'iproute2',
  '/usr/bin/ps': 'procps',
  '/usr/bin/free': 'procps',
  '/usr/sbin/sysctl': 'procps',
  '/usr/bin/getent': 'libc-bin',
  '/usr/bin/apt-get': 'apt',
  '/usr/bin/python3': 'python3-minimal', // holds a dpkg lock in the conflict test
  '/usr/bin/script': 'bsdutils', // a pseudo-terminal for the interactive approval test
  '/usr/sbin/debootstrap': 'debootstrap', // builds the test bed's Debian root
  '/usr/bin/systemd-nspawn': 'systemd-container', // boots it
  '/usr/sbin/lvm': 'lvm2', // LvmReport, ExtendLogicalVolume (test/scenarios/volumes.ts)
  '/usr/sbin/losetup': 'mount', // loop devices for the volumes scenarios
  '/usr/sbin/mkfs.ext4': 'e2fsprogs', // the ext4 the swap-file scenarios put their swap file on
  '/usr/bin/zsh': 'zsh', // the zsh completion test
  '/usr/bin/fish': 'fish', // the fish completion test
  '/usr/bin/man': 'man-db', // the man page renders without warnings
  '/usr/bin/chromium': 'chromium', // the web console's browser tests (headless, playwright-core)
};

const isRoot = process.getuid?.() === 0;

/**
 * Installs the missing packages and nothing else: no installed package is upgraded unless
 * AIRLOCK_TEST_ALLOW_UPGRADES=1 says so (CI sets it; its machine is thrown away).
 */
function installMissing(missing) {
  say(`installing the Debian packages the tests need that are missing: ${missing.join(' ')}`);
  execFileSync('/usr/bin/apt-get', ['update', '-q'], { stdio: 'inherit' });
  const { specs, upgrades } = planInstall(missing);
  if (upgrades.length) {
    const list = upgrades.map((u) => `${u.name} ${u.from} -> ${u.to}`).join(', ');
    if (process.env.AIRLOCK_TEST_ALLOW_UPGRADES !== '1') {
      say(`installing ${specs.join(' ')} would also upgrade packages installed here: ${list}.`);
      say('Nothing was installed. Upgrade them yourself (apt-get upgrade), or allow it for this run:');
      say('  AIRLOCK_TEST_ALLOW_UPGRADES=1 npm test');
      process.exit(1);
    }
    say(`AIRLOCK_TEST_ALLOW_UPGRADES=1: this also upgrades ${list}`);
  }
  execFileSync('/usr/bin/apt-get', ['install', '-y', '-q', '--no-install-recommends', ...specs], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}
const only = process.argv[2];
if (only !== undefined && only !== 'unit' && only !== 'integration') {
  say(`usage: node scripts/test.js [unit|integration] (got ${only})`);
  process.exit(2);
}
const testFiles = (dir) => readdirSync(join(root, 'test', dir)).filter((f) => f.endsWith('.test.ts')).map((f) => join('test', dir, f));

if (!existsSync(join(root, 'native', 'build', 'Release', 'airlock_native.node'))) {
  say('the peer-credential addon is not built: run `npm install` first (it needs g++, make and python3)');
  process.exit(1);
}

const wantUnit = only !== 'integration';
let wantIntegration = only !== 'unit';
if (wantIntegration && !isRoot) {
  if (only === 'integration') {
    say('the integration tests mount overlays of / and run clients as other Unix users, which needs root:');
    say('run `sudo npm run test:integration`.');
    process.exit(2);
  }
  say('not root: running unit tests only. The integration tests mount overlays of / and run');
  say('clients as other Unix users, which needs root: run `sudo npm test` for the whole suite.');
  wantIntegration = false;
}

if (wantIntegration) {
  const missing = [...new Set(Object.entries(NEEDED).filter(([bin]) => !existsSync(bin)).map(([, pkg]) => pkg))];
  if (missing.length) installMissing(missing);
}

/**
 * The booted Debian test bed's root is built once per run (skipped when a complete one exists),
 * while the unit tests run: debootstrap waits mostly on the mirror and the disk. Its output goes
 * to a log file, shown when it fails.
 */
function buildTestbedRoot() {
  const log = join(mkdtempSync(join(tmpdir(), 'airlock-testbed-build-')), 'build.log');
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'sandbox', 'testbed-root.ts')], { cwd: root, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  // Below the unit tests, some of which measure ratios of timings.
  if (child.pid) setPriority(child.pid, 10);
  const done = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  return { log, done };
}
const testbed = wantIntegration ? buildTestbedRoot() : null;

/**
 * node --test over `files`; `concurrency`: how many files run at once; `preload`: modules each file's process imports first.
 * Beside the usual report (TAP, or spec at a terminal), scripts/file-times.js prints the slowest files at the end.
 * A file may take 15 minutes: a catalogue shard with its rollback rounds (the packages family's apt runs alone take five)
 * shares two cores with two other files, the fleet's among them (four booted hosts, a Debian package built and installed).
 */
const reporters = ['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout', '--test-reporter', pathToFileURL(join(root, 'scripts', 'file-times.js')).href, '--test-reporter-destination', 'stdout'];
const run = (files, concurrency, preload = []) =>
  spawnSync(process.execPath, ['--import', 'tsx', ...preload.flatMap((m) => ['--import', pathToFileURL(join(root, m)).href]), '--test', ...reporters, '--test-timeout=900000', `--test-concurrency=${concurrency}`, ...files], { cwd: root, stdio: 'inherit' }).status ?? 1;

// Unit tests hold no machine-wide resource (temporary directories, loopback ports of their own):
// one file per core at once. Integration files share nothing either (docs/TESTING.md, "What
// integration files share"): each takes its own overlay or test-bed container, a uid block
// reserved across processes, its own PostgreSQL schema and loop devices. Much of their time is
// spent waiting (for a TOTP step, a booting container, cron's next minute, apt), so three at once
// keep two cores busy: measured on 2026-12-07, the integration suite took about 20 minutes three
// at a time against 24.5 two at a time, with the cores then idle under 5% of the time (docs/TESTING.md).
// A file whose assertions are tight latency bounds runs alone (test/support/machine-share.ts).
const INTEGRATION_FILES_AT_ONCE = 3;
const unitStatus = wantUnit ? run(testFiles('unit'), availableParallelism()) : 0;
if (testbed) {
  const status = await testbed.done;
  process.stdout.write(readFileSync(testbed.log, 'utf8'));
  if (status !== 0) {
    say('could not build the test bed root (debootstrap needs the Debian mirror); see above');
    process.exit(1);
  }
}
const integrationStatus = wantIntegration ? run(testFiles('integration'), INTEGRATION_FILES_AT_ONCE, ['test/support/machine-share.ts']) : 0;
const status = unitStatus || integrationStatus;
if (!isRoot && only === undefined && status === 0) {
  say('unit tests passed; integration tests were NOT run (not root)');
  process.exit(3);
}
process.exit(status);
