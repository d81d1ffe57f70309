/**
 * Repositories, pins, upgrades and unattended upgrades (family packages), for real in the
 * throwaway overlay of this host (its network reaches deb.debian.org). Order matters:
 *
 *  - kitty-terminfo (85 kB, no dependency) exists in two versions (bookworm and
 *    bookworm-security): it is pinned to the older one, installed (at that version), unpinned,
 *    and UpgradeAll takes it to the newer one (everything else upgradable here is held for
 *    that run, which keeps it short: the harness drops an approver connection idle for 120 s);
 *  - hello is installed and purged; hdparm (which ships /etc/hdparm.conf) is purged while
 *    installed with an edited conffile, then installed, removed and purged again from dpkg's
 *    "rc" state;
 *  - fstrcmp pulls libfstrcmp0 in as an automatic dependency; removing fstrcmp leaves the
 *    library for Autoremove;
 *  - bookworm-backports is added with Debian's own archive key (exported from this host's
 *    debian-archive-keyring), AptUpdate really fetches and verifies it with that .asc keyring,
 *    and it is removed again; a key gpg cannot read rolls both files back;
 *  - unattended-upgrades is installed, switched off and on.
 *
 * Every check asks dpkg, apt, gpg or the file system directly, outside the daemon.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

const out = (r: { output: string[] }) => r.output.join('\n');
const APT_GET = '/usr/bin/apt-get';
const APT_CACHE = '/usr/bin/apt-cache';

/** dpkg's own view: "want status version", or null when dpkg has never heard of the package. */
async function dpkgStatus(box: SandboxView, name: string): Promise<{ want: string; status: string; version: string } | null> {
  const r = await box.run('/usr/bin/dpkg-query', ['-W', '--showformat=${db:Status-Want} ${db:Status-Status} ${Version}', '--', name]);
  if (r.code !== 0) return null;
  const [want, status, version] = r.stdout.trim().split(' ');
  return { want: want!, status: status!, version: version ?? '' };
}

async function policy(box: SandboxView, name: string): Promise<{ installed: string; candidate: string; versions: string[] }> {
  const text = (await box.run(APT_CACHE, ['policy', '--', name])).stdout;
  const field = (f: string) => new RegExp(`^ {2}${f}: (\\S+)$`, 'm').exec(text)?.[1] ?? '';
  const versions = [...text.matchAll(/^ (?:\*\*\*| {3}) (\S+) -?\d+$/gm)].map((m) => m[1]!);
  return { installed: field('Installed'), candidate: field('Candidate'), versions };
}

/** `apt-get -s upgrade` as the daemon runs it: name -> new version. */
async function upgradePlan(box: SandboxView): Promise<Map<string, string>> {
  const r = await box.run(APT_GET, ['-s', 'upgrade', '-o', 'APT::Get::Upgrade-Allow-New=false', '-o', 'APT::Get::AutomaticRemove=false', '--no-remove']);
  assert.equal(r.code, 0, r.stderr);
  return new Map([...r.stdout.matchAll(/^Inst (\S+) \[\S+\] \((\S+)/gm)].map((m) => [m[1]!.replace(/:.*$/, ''), m[2]!]));
}

const notInstalled = async (box: SandboxView, name: string) => {
  const st = await dpkgStatus(box, name);
  assert.ok(st === null || st.status === 'not-installed' || st.status === 'config-files', `${name} is still ${st?.status}`);
};
const absentFromDpkg = async (box: SandboxView, name: string) => {
  // `dpkg -s` exits 1: "package 'NAME' is not installed and no information is available".
  const r = await box.run('/usr/bin/dpkg', ['-s', '--', name]);
  assert.equal(r.code, 1, `dpkg still knows ${name}: ${r.stdout}`);
  assert.equal(await dpkgStatus(box, name), null);
};
const exists = async (box: SandboxView, path: string) => (await box.run('/usr/bin/stat', ['--', path])).code === 0;

const OLD_NEW = 'kitty-terminfo';
const PIN_FILE = `/etc/apt/preferences.d/60-airlock-${OLD_NEW}.pref`;
const pin = { package: OLD_NEW, version: '' };
let upgrades = new Map<string, string>();
let held = new Map<string, string>();

const CONF_PKG = 'hdparm';
const CONFFILE = '/etc/hdparm.conf';
const WITH_DEP = 'fstrcmp';
const DEP = 'libfstrcmp0';

/** Debian Archive Automatic Signing Key (12/bookworm): it signs bookworm-backports' InRelease. */
const ARCHIVE_KEY = 'B8B80B5B623EAB6AD8775C45B7C5D7D6350947F8';
/** Debian Stable Release Key (12/bookworm): small (ed25519), used for the key gpg refuses. */
const RELEASE_KEY = '4D64FEC119C2029067D6E791F8D2585B8783D481';
const REPO = { name: 'backports', uri: 'http://deb.debian.org/debian', suite: 'bookworm-backports', components: ['main'], key: '' };
const BROKEN = { name: 'broken', uri: 'http://deb.debian.org/debian', suite: 'bookworm-proposed-updates', components: ['main'], key: '' };
const SOURCES = (name: string) => `/etc/apt/sources.list.d/airlock-${name}.sources`;
const KEYRING = (name: string) => `/etc/apt/keyrings/airlock-${name}.asc`;

/** Exports one key of the host's Debian archive keyring, as armor, with gpg inside the sandbox. */
async function exportKey(box: SandboxView, fpr: string, armor: boolean): Promise<string> {
  const home = '/tmp/airlock-scenario-gnupg';
  await box.run('/usr/bin/mkdir', ['-p', '-m', '700', '--', home]);
  const r = await box.run('/usr/bin/gpg', [
    '--batch',
    '--homedir',
    home,
    '--no-default-keyring',
    '--keyring',
    '/usr/share/keyrings/debian-archive-keyring.gpg',
    '--export',
    ...(armor ? ['--armor'] : ['--output', `${home}/key.bin`]),
    fpr,
  ]);
  assert.equal(r.code, 0, `gpg --export ${fpr}: ${r.stderr}`);
  if (armor) return r.stdout;
  const b64 = await box.run('/usr/bin/base64', ['-w', '64', '--', `${home}/key.bin`]);
  return b64.stdout;
}

/** The release key with one byte of its self-signature flipped, re-armored (no checksum line: it is optional). */
async function keyWithBrokenSignature(box: SandboxView): Promise<string> {
  const raw = Buffer.from((await exportKey(box, RELEASE_KEY, false)).replace(/\s/g, ''), 'base64');
  raw[raw.length - 10] = raw[raw.length - 10]! ^ 0x55;
  const lines = raw.toString('base64').match(/.{1,64}/g)!;
  return ['-----BEGIN PGP PUBLIC KEY BLOCK-----', '', ...lines, '-----END PGP PUBLIC KEY BLOCK-----', ''].join('\n');
}

const AUTO = '/etc/apt/apt.conf.d/20auto-upgrades';
async function periodic(box: SandboxView): Promise<string> {
  return (await box.run('/usr/bin/apt-config', ['dump', '--format', '%f=%v%n', 'APT::Periodic'])).stdout;
}

/** Apt installs, removes and purges a package in most of them, three to five times with the rollback rounds: about two ordinary scenarios' time each since the overlay keeps apt's package cache (147 s alone for 27 on 2026-12-07; catalogue shards, test/support/catalogue-scenarios.ts). */
export const weight = 2;

export const scenarios: Scenario[] = [
  {
    title: 'fresh lists for the overlay',
    action: 'AptUpdate',
    params: {},
    check: async (box) => {
      assert.ok((await policy(box, OLD_NEW)).versions.length >= 2, `${OLD_NEW} must have two versions in the mirror`);
    },
  },
  {
    action: 'ListRepositories',
    params: {},
    check: async (box, r) => {
      const text = out(r);
      const debian = await box.readFile('/etc/apt/sources.list.d/debian.sources');
      assert.ok(debian, 'this host has /etc/apt/sources.list.d/debian.sources');
      assert.ok(text.includes(debian.trim()), 'the whole debian.sources is shown');
      // Files apt ignores (this host has *.disabled-by-farm ones) are not.
      const disabled = (await box.run('/usr/bin/ls', ['-1', '--', '/etc/apt/sources.list.d'])).stdout.split('\n').filter((n) => n.endsWith('.disabled-by-farm'));
      for (const n of disabled) {
        const content = await box.readFile(`/etc/apt/sources.list.d/${n}`);
        if (content?.trim()) assert.ok(!text.includes(content.trim()), `${n} is ignored by apt and left out`);
      }
    },
  },
  {
    action: 'SearchPackages',
    params: { query: OLD_NEW },
    check: async (_box, r) => {
      const lines = out(r).split('\n').filter(Boolean);
      assert.ok(lines.includes(`${OLD_NEW} - fast, featureful, GPU based terminal emulator (terminfo file)`) || lines.some((l) => l.startsWith(`${OLD_NEW} - `)), out(r));
      for (const l of lines) assert.ok(l.split(' - ')[0]!.includes(OLD_NEW), l);
    },
  },
  {
    title: "'+' and '.' match literally, not as regular-expression operators",
    action: 'SearchPackages',
    params: { query: 'g++-12' },
    check: async (box, r) => {
      const names = out(r)
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' - ')[0]!);
      assert.ok(names.includes('g++-12'), out(r).slice(0, 500));
      for (const n of names) assert.ok(n.includes('g++-12'), `${n} does not contain g++-12`);
      // Unescaped, the term is the regex (g+)+-12, which never matches "g++-12" itself.
      const raw = (await box.run(APT_CACHE, ['search', '--names-only', '--', 'g++-12'])).stdout.split('\n').map((l) => l.split(' - ')[0]!);
      assert.ok(!raw.includes('g++-12'), 'the raw regex misses the literal name');
    },
  },
  {
    action: 'PinPackageVersion',
    params: pin,
    setup: async (box) => {
      const p = await policy(box, OLD_NEW);
      assert.equal(p.installed, '(none)', `${OLD_NEW} must not be installed on this host`);
      pin.version = p.versions.find((v) => v !== p.candidate)!;
      assert.ok(pin.version, `${OLD_NEW} has a version below the candidate`);
    },
    check: async (box) => {
      assert.equal(await box.readFile(PIN_FILE), `Explanation: written by Airlock (PinPackageVersion); remove it with UnpinPackage\nPackage: ${OLD_NEW}\nPin: version ${pin.version}\nPin-Priority: 1001\n`);
      assert.equal((await box.run('/usr/bin/stat', ['-c', '%a %U', '--', PIN_FILE])).stdout.trim(), '644 root');
      assert.equal((await policy(box, OLD_NEW)).candidate, pin.version, 'apt now chooses the pinned version');
    },
  },
  {
    title: 'installs the pinned, older version',
    action: 'InstallPackage',
    params: { package: OLD_NEW },
    rollbackRounds: { skip: "packages.ts's InstallPackage shows an install's failure, rollback and revert; the pin changes the version installed, not how it is undone (each round is minutes of apt)" },
    check: async (box) => {
      assert.equal((await dpkgStatus(box, OLD_NEW))?.version, pin.version);
    },
  },
  {
    action: 'UnpinPackage',
    params: { package: OLD_NEW },
    check: async (box) => {
      assert.equal(await box.readFile(PIN_FILE), null);
      const p = await policy(box, OLD_NEW);
      assert.notEqual(p.candidate, pin.version, 'the newer version is the candidate again');
      assert.equal(p.installed, pin.version);
    },
  },
  {
    action: 'UpgradeAll',
    params: {},
    setup: async (box) => {
      // Whatever else this host could upgrade is held (kept back by apt), so the run stays short:
      // the test harness drops an approver connection idle for 120 s.
      const others = [...(await upgradePlan(box)).keys()].filter((n) => n !== OLD_NEW);
      held = new Map(await Promise.all(others.map(async (n) => [n, (await dpkgStatus(box, n))!.version] as const)));
      if (others.length) assert.equal((await box.run('/usr/bin/apt-mark', ['hold', '--', ...others])).code, 0);
      upgrades = await upgradePlan(box);
      assert.deepEqual([...upgrades.keys()], [OLD_NEW], `the plan upgrades ${OLD_NEW} only`);
    },
    check: async (box, r) => {
      assert.match(out(r), new RegExp(`Unpacking ${OLD_NEW} \\(`));
      for (const [name, version] of upgrades) assert.equal((await dpkgStatus(box, name))?.version, version, `${name} is at ${version}`);
      for (const [name, version] of held) assert.equal((await dpkgStatus(box, name))?.version, version, `held ${name} stays at ${version}`);
      assert.equal((await upgradePlan(box)).size, 0, 'nothing is left to upgrade');
      assert.equal((await policy(box, OLD_NEW)).installed, (await policy(box, OLD_NEW)).candidate);
      if (held.size) assert.equal((await box.run('/usr/bin/apt-mark', ['unhold', '--', ...held.keys()])).code, 0);
    },
  },
  {
    action: 'InstallPackage',
    params: { package: 'hello' },
    rollbackRounds: { skip: "packages.ts's InstallPackage shows them on this very package; here it is only what the purge after it removes" },
    check: async (box) => assert.equal((await dpkgStatus(box, 'hello'))?.status, 'installed'),
  },
  {
    title: 'an installed package',
    action: 'PurgePackage',
    params: { package: 'hello' },
    rollbackRounds: { skip: 'the purge of an installed package with an edited conffile shows the rounds, the harder case' },
    check: async (box) => {
      await absentFromDpkg(box, 'hello');
      assert.equal(await exists(box, '/usr/bin/hello'), false);
    },
  },
  {
    action: 'InstallPackage',
    params: { package: CONF_PKG },
    rollbackRounds: { skip: 'what the purge of an edited conffile after it needs; that purge shows its rounds' },
    setup: async (box) => assert.equal(await dpkgStatus(box, CONF_PKG), null, `${CONF_PKG} must be unknown to dpkg here`),
    check: async (box) => {
      assert.equal((await dpkgStatus(box, CONF_PKG))?.status, 'installed');
      assert.ok(await box.readFile(CONFFILE), `${CONFFILE} was installed`);
    },
  },
  {
    title: 'an installed package with an edited conffile',
    action: 'PurgePackage',
    params: { package: CONF_PKG },
    setup: async (box) => box.writeFile!(CONFFILE, `${await box.readFile(CONFFILE)}\n# edited by an administrator\n`),
    check: async (box) => {
      await absentFromDpkg(box, CONF_PKG);
      assert.equal(await box.readFile(CONFFILE), null, `${CONFFILE} is gone, edits and all`);
    },
  },
  {
    title: 'again, to leave configuration files behind',
    action: 'InstallPackage',
    params: { package: CONF_PKG },
    rollbackRounds: { skip: 'what the remove after it needs' },
    check: async (box) => assert.equal((await dpkgStatus(box, CONF_PKG))?.status, 'installed'),
  },
  {
    title: 'keeps the configuration (dpkg state rc)',
    action: 'RemovePackage',
    params: { package: CONF_PKG },
    rollbackRounds: { skip: "packages.ts's RemovePackage shows a removal's rounds; the purge of an edited conffile shows that configuration files come back as they were" },
    check: async (box) => {
      assert.equal((await dpkgStatus(box, CONF_PKG))?.status, 'config-files');
      assert.ok(await box.readFile(CONFFILE), `${CONFFILE} stays after a remove`);
    },
  },
  {
    title: 'what a removed package left behind',
    action: 'PurgePackage',
    params: { package: CONF_PKG },
    check: async (box) => {
      await absentFromDpkg(box, CONF_PKG);
      assert.equal(await box.readFile(CONFFILE), null);
    },
  },
  {
    title: 'a package with a dependency',
    action: 'InstallPackage',
    params: { package: WITH_DEP },
    setup: async (box) => {
      assert.equal(await dpkgStatus(box, WITH_DEP), null, `${WITH_DEP} must be unknown to dpkg here`);
      assert.equal(await dpkgStatus(box, DEP), null, `${DEP} must be unknown to dpkg here`);
    },
    check: async (box) => {
      assert.equal((await dpkgStatus(box, DEP))?.status, 'installed');
      assert.ok((await box.run('/usr/bin/apt-mark', ['showauto', '--', DEP])).stdout.split('\n').includes(DEP), `${DEP} is marked automatically installed`);
    },
  },
  {
    title: 'leaves its dependency unused',
    action: 'RemovePackage',
    params: { package: WITH_DEP },
    rollbackRounds: { skip: "packages.ts's RemovePackage shows a removal's rounds; the install of this package shows that an undo takes its dependency too" },
    check: async (box) => {
      await notInstalled(box, WITH_DEP);
      assert.match((await box.run(APT_GET, ['-s', 'autoremove'])).stdout, new RegExp(`^Remv ${DEP} `, 'm'));
    },
  },
  {
    action: 'Autoremove',
    params: {},
    check: async (box, r) => {
      assert.match(out(r), new RegExp(`Removing ${DEP} \\(`));
      await notInstalled(box, DEP);
      assert.match((await box.run(APT_GET, ['-s', 'autoremove'])).stdout, /^0 upgraded, 0 newly installed, 0 to remove/m);
    },
  },
  {
    action: 'AddRepository',
    params: REPO,
    setup: async (box) => {
      REPO.key = await exportKey(box, ARCHIVE_KEY, true);
      assert.ok(REPO.key.startsWith('-----BEGIN PGP PUBLIC KEY BLOCK-----\n'));
      assert.doesNotMatch((await box.run(APT_GET, ['indextargets', '--format', '$(RELEASE)'])).stdout, /bookworm-backports/, 'backports is not configured here yet');
    },
    check: async (box, r) => {
      assert.equal(
        await box.readFile(SOURCES('backports')),
        '# Added by Airlock (AddRepository backports); remove it with RemoveRepository.\nTypes: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /etc/apt/keyrings/airlock-backports.asc\n',
      );
      assert.equal(await box.readFile(KEYRING('backports')), REPO.key);
      for (const f of [SOURCES('backports'), KEYRING('backports')]) assert.equal((await box.run('/usr/bin/stat', ['-c', '%a %U %G', '--', f])).stdout.trim(), '644 root root', f);
      // gpg read the keyring back (its colon listing is in the output), and apt reads the new source.
      assert.match(out(r), new RegExp(`^fpr:::::::::${ARCHIVE_KEY}:$`, 'm'));
      const uris = await box.run(APT_GET, ['--print-uris', 'update']);
      assert.equal(uris.code, 0, uris.stderr);
      assert.match(uris.stdout, /^'http:\/\/deb\.debian\.org\/debian\/dists\/bookworm-backports\/InRelease' /m);
      // gpg wrote nothing into the keyring directory it used as its home.
      assert.equal((await box.run('/usr/bin/ls', ['-A', '--', '/etc/apt/keyrings'])).stdout.trim(), 'airlock-backports.asc');
    },
  },
  {
    title: 'fetches the added repository, its Release signature checked against the .asc keyring',
    action: 'AptUpdate',
    params: {},
    check: async (box, r) => {
      assert.match(out(r), /bookworm-backports InRelease/);
      assert.ok(await exists(box, '/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm-backports_InRelease'));
      assert.match((await box.run(APT_CACHE, ['policy'])).stdout, /^ 100 http:\/\/deb\.debian\.org\/debian bookworm-backports\/main amd64 Packages$/m);
      // The targets apt now knows come from Airlock's file.
      const targets = await box.run(APT_GET, ['indextargets', '--format', '$(SOURCESENTRY) $(RELEASE) $(COMPONENT)']);
      assert.match(targets.stdout, new RegExp(`^${SOURCES('backports')}:1 bookworm-backports main$`, 'm'));
    },
  },
  {
    title: 'a key gpg cannot accept rolls both files back',
    action: 'AddRepository',
    params: BROKEN,
    expect: 'RolledBack',
    setup: async (box) => {
      BROKEN.key = await keyWithBrokenSignature(box);
    },
    check: async (box, r) => {
      assert.match(r.summary, /gpg exited with status 2/);
      assert.equal(await box.readFile(KEYRING('broken')), null);
      assert.equal(await box.readFile(SOURCES('broken')), null);
      assert.doesNotMatch((await box.run(APT_GET, ['indextargets', '--format', '$(RELEASE)'])).stdout, /proposed-updates/);
    },
  },
  {
    action: 'RemoveRepository',
    params: { name: 'backports' },
    check: async (box) => {
      assert.equal(await box.readFile(SOURCES('backports')), null);
      assert.equal(await box.readFile(KEYRING('backports')), null);
      const targets = await box.run(APT_GET, ['indextargets', '--format', '$(RELEASE)']);
      assert.equal(targets.code, 0);
      assert.doesNotMatch(targets.stdout, /bookworm-backports/);
    },
  },
  {
    title: 'before the package is installed',
    action: 'UnattendedUpgradesStatus',
    params: {},
    setup: async (box) => assert.equal(await dpkgStatus(box, 'unattended-upgrades'), null, 'unattended-upgrades must not be installed here'),
    check: async (box, r) => {
      assert.doesNotMatch(out(r), /unattended-upgrades/);
      assert.equal(await box.readFile(AUTO), null);
    },
  },
  {
    action: 'InstallPackage',
    params: { package: 'unattended-upgrades' },
    check: async (box) => assert.equal((await dpkgStatus(box, 'unattended-upgrades'))?.status, 'installed'),
  },
  {
    title: 'off',
    action: 'SetUnattendedUpgrades',
    params: { enabled: false },
    check: async (box) => {
      assert.equal(await box.readFile(AUTO), 'APT::Periodic::Update-Package-Lists "0";\nAPT::Periodic::Unattended-Upgrade "0";\n');
      const eff = await periodic(box);
      assert.match(eff, /^APT::Periodic::Update-Package-Lists=0$/m);
      assert.match(eff, /^APT::Periodic::Unattended-Upgrade=0$/m);
    },
  },
  {
    title: 'on',
    action: 'SetUnattendedUpgrades',
    params: { enabled: true },
    check: async (box) => {
      assert.equal(await box.readFile(AUTO), 'APT::Periodic::Update-Package-Lists "1";\nAPT::Periodic::Unattended-Upgrade "1";\n');
      assert.match(await periodic(box), /^APT::Periodic::Unattended-Upgrade=1$/m);
    },
  },
  {
    action: 'UnattendedUpgradesStatus',
    params: {},
    check: async (box, r) => {
      const text = out(r);
      assert.match(text, new RegExp(`^ii  unattended-upgrades ${(await dpkgStatus(box, 'unattended-upgrades'))!.version.replace(/[.+]/g, '\\$&')}$`, 'm'));
      assert.match(text, /^APT::Periodic::Update-Package-Lists=1$/m);
      assert.ok(text.includes((await box.readFile('/etc/apt/apt.conf.d/50unattended-upgrades'))!.trim()), '50unattended-upgrades is shown');
    },
  },
];
