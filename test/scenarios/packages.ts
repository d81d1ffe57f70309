/**
 * packages family, for real in the throwaway overlay (the network is shared, so apt
 * reaches the Debian mirror). Order matters: lists are refreshed, a tiny package that
 * this host does not have is installed, held, released and removed again. Every
 * check asks dpkg or apt directly, outside the daemon.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

/** GNU hello: one small binary, no dependencies beyond libc. */
const PKG = 'hello';

const out = (r: { output: string[] }) => r.output.join('\n');

/** dpkg's own view: "want status version", or null when dpkg has never heard of the package. */
async function dpkgStatus(box: SandboxView, name: string): Promise<{ want: string; status: string; version: string } | null> {
  const r = await box.run('/usr/bin/dpkg-query', ['-W', '--showformat=${db:Status-Want} ${db:Status-Status} ${Version}', '--', name]);
  if (r.code !== 0) return null;
  const [want, status, version] = r.stdout.trim().split(' ');
  return { want: want!, status: status!, version: version ?? '' };
}

async function candidate(box: SandboxView, name: string): Promise<string> {
  const r = await box.run('/usr/bin/apt-cache', ['policy', '--', name]);
  const m = /^ {2}Candidate: (\S+)$/m.exec(r.stdout);
  assert.ok(m && m[1] !== '(none)', `apt has no candidate for ${name}:\n${r.stdout}`);
  return m[1]!;
}

/** Apt installs and removes a package with the rollback rounds: about two ordinary scenarios' time each (87 s alone for 15 on 2026-12-07; catalogue shards, test/support/catalogue-scenarios.ts). */
export const weight = 2;

export const scenarios: Scenario[] = [
  {
    action: 'AptUpdate',
    params: {},
    check: async (box, r) => {
      // Every configured repository was contacted (Get: or Hit:), and apt now has lists to answer from.
      const text = out(r);
      assert.match(text, /^(Get|Hit):\d+ http/m);
      assert.match(text, /Reading package lists/);
      const lists = (await box.run('/usr/bin/ls', ['--', '/var/lib/apt/lists'])).stdout;
      assert.match(lists, /_InRelease$|_Release$/m);
      await candidate(box, PKG);
    },
  },
  {
    action: 'ListUpgradable',
    params: {},
    check: async (box, r) => {
      const text = out(r);
      const m = /^(\d+) upgraded, (\d+) newly installed, (\d+) to remove and (\d+) not upgraded\.$/m.exec(text);
      assert.ok(m, `apt's summary line is missing:\n${text.slice(0, 2000)}`);
      const inst = text.split('\n').filter((l) => l.startsWith('Inst '));
      assert.equal(inst.length, Number(m[1]) + Number(m[2]), 'one Inst line per package the upgrade would change');
      // Each upgradable package really is installed at the old version the simulation shows.
      for (const line of inst.slice(0, 5)) {
        const u = /^Inst (\S+) \[(\S+)\]/.exec(line);
        if (!u) continue;
        const st = await dpkgStatus(box, u[1]!.replace(/:.*$/, ''));
        assert.equal(st?.version, u[2], `${u[1]} installed version`);
      }
      assert.equal(await dpkgStatus(box, PKG), null, `${PKG} must not be installed on the test host`);
    },
  },
  {
    action: 'PackagePolicy',
    params: { package: PKG },
    check: async (box, r) => {
      const text = out(r);
      assert.match(text, new RegExp(`^${PKG}:$`, 'm'));
      assert.match(text, /^ {2}Installed: \(none\)$/m);
      assert.match(text, new RegExp(`^ {2}Candidate: ${(await candidate(box, PKG)).replace(/[.+]/g, '\\$&')}$`, 'm'));
    },
  },
  {
    action: 'PackageInfo',
    params: { package: PKG },
    check: async (box, r) => {
      const text = out(r);
      assert.match(text, new RegExp(`^Package: ${PKG}$`, 'm'));
      assert.match(text, /^Description(-en)?: /m);
      assert.ok(text.includes(`Version: ${await candidate(box, PKG)}`));
    },
  },
  {
    action: 'InstallPackage',
    params: { package: PKG },
    setup: async (box) => {
      assert.equal((await dpkgStatus(box, PKG))?.status ?? 'absent', 'absent', `${PKG} is already known to dpkg here; pick another package`);
    },
    check: async (box) => {
      const st = await dpkgStatus(box, PKG);
      assert.ok(st, `dpkg does not know ${PKG}`);
      assert.equal(st.status, 'installed');
      assert.equal(st.want, 'install');
      const hello = await box.run('/usr/bin/hello', []);
      assert.equal(hello.code, 0);
      assert.equal(hello.stdout.trim(), 'Hello, world!');
    },
  },
  {
    action: 'ListInstalledPackages',
    params: {},
    check: async (box, r) => {
      const lines = out(r).split('\n');
      const version = (await dpkgStatus(box, PKG))!.version;
      assert.ok(lines.includes(`ii  ${PKG} ${version}`), `ii line for ${PKG} ${version}`);
      const dpkg = (await dpkgStatus(box, 'dpkg'))!.version;
      assert.ok(lines.includes(`ii  dpkg ${dpkg}`), 'ii line for dpkg itself');
    },
  },
  {
    action: 'ListPackageFiles',
    params: { package: PKG },
    check: async (box, r) => {
      const listed = out(r).split('\n').filter(Boolean);
      assert.ok(listed.includes('/usr/bin/hello'), 'the binary is listed');
      // Exactly dpkg's own list, asked from outside the daemon.
      assert.deepEqual(listed, (await box.run('/usr/bin/dpkg-query', ['--listfiles', '--', PKG])).stdout.split('\n').filter(Boolean));
    },
  },
  {
    action: 'WhichPackageOwns',
    params: { path: '/usr/bin/hello' },
    check: async (_box, r) => assert.match(out(r), /^hello: \/usr\/bin\/hello$/m),
  },
  {
    title: 'a merged-/usr path dpkg records under /bin',
    action: 'WhichPackageOwns',
    params: { path: '/usr/bin/ls' },
    setup: async (box) => {
      assert.equal((await box.run('/usr/bin/readlink', ['--', '/bin'])).stdout.trim(), 'usr/bin', 'this host has merged /usr');
      assert.notEqual((await box.run('/usr/bin/dpkg-query', ['--search', '--', '/usr/bin/ls'])).code, 0, 'dpkg does not know /usr/bin/ls by that name');
    },
    check: async (_box, r) => assert.match(out(r), /^coreutils: \/bin\/ls$/m),
  },
  {
    title: 'not owned by any package: an empty answer, not a failure',
    action: 'WhichPackageOwns',
    params: { path: '/etc/airlock-no-package-owns-this' },
    check: async (box, r) => {
      assert.equal(out(r).trim(), '');
      assert.equal((await box.run('/usr/bin/dpkg-query', ['--search', '--', '/etc/airlock-no-package-owns-this'])).code, 1, 'dpkg knows no owner');
    },
  },
  {
    action: 'VerifyPackage',
    params: { package: PKG },
    check: async (box, r) => {
      assert.equal(out(r).trim(), '', 'nothing differs right after the install');
      assert.equal((await box.run('/usr/bin/dpkg', ['--verify', '--', PKG])).stdout, '');
    },
  },
  {
    title: 'a changed file is reported',
    action: 'VerifyPackage',
    params: { package: PKG },
    setup: async (box) => box.writeFile!('/usr/bin/hello', 'not the packaged binary\n'),
    check: async (box, r) => {
      assert.match(out(r), /^\?\?5\?{6} +\/usr\/bin\/hello$/m, 'the checksum of /usr/bin/hello differs');
      assert.equal(out(r).trim(), (await box.run('/usr/bin/dpkg', ['--verify', '--', PKG])).stdout.trim(), "dpkg's own answer");
    },
  },
  {
    action: 'HoldPackage',
    params: { package: PKG },
    check: async (box) => {
      assert.equal((await dpkgStatus(box, PKG))?.want, 'hold');
      const held = await box.run('/usr/bin/apt-mark', ['showhold']);
      assert.ok(held.stdout.split('\n').includes(PKG), `apt-mark showhold lists ${PKG}`);
    },
  },
  {
    action: 'UnholdPackage',
    params: { package: PKG },
    check: async (box) => {
      assert.equal((await dpkgStatus(box, PKG))?.want, 'install');
      const held = await box.run('/usr/bin/apt-mark', ['showhold']);
      assert.ok(!held.stdout.split('\n').includes(PKG), `apt-mark showhold no longer lists ${PKG}`);
    },
  },
  {
    action: 'RemovePackage',
    params: { package: PKG },
    check: async (box) => {
      const st = await dpkgStatus(box, PKG);
      assert.notEqual(st?.status, 'installed', `${PKG} is still installed`);
      assert.equal((await box.run('/usr/bin/stat', ['--', '/usr/bin/hello'])).code === 0, false, '/usr/bin/hello is gone');
    },
  },
];
