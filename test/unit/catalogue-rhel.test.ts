/**
 * Fedora and RHEL. The Debian test bed cannot run dnf, firewalld or SELinux, so what
 * differs there is tested at the level of the mechanism built: every action whose
 * platforms include fedora or rhel is built on a fixture host of each, and its argv
 * asserted exactly, next to the Debian argv it must keep. Then the distribution
 * detection, and the daemon's own platform check (Debian-only actions refused on
 * Fedora, RHEL-only ones on Debian).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import type { AnyAction, Platform } from '../../src/catalogue/action.js';
import { CATALOGUE } from '../../src/catalogue/index.js';
import type { Step } from '../../src/catalogue/mechanism.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { parseRichRule, parseZone, richRule } from '../../src/catalogue/families/firewall/firewalld.js';
import { JAIL_DROPIN } from '../../src/catalogue/families/firewall/jail-options.js';
import { NFT_FILE, NFT_UNIT } from '../../src/catalogue/families/firewall/nft-table.js';
import { packageManager } from '../../src/catalogue/families/packages/manager.js';
import { parseCheckUpdate, parseRepolist, parseRepoquery, parseRpmEntries, parseUnneeded } from '../../src/catalogue/lib/dnf.js';
import { detectPlatform } from '../../src/daemon/platform.js';
import { DEFAULT_POLICY } from '../../src/policy/policy.js';
import { VerbContext } from '../../src/daemon/verbs/context.js';
import { describeAction } from '../../src/daemon/verbs/catalogue.js';
import { preview } from '../../src/daemon/verbs/preview.js';
import type { Identity } from '../../src/daemon/identity.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { actionRunner, argvOnly, assertNoChange, FixtureHost, type Node } from './catalogue-fixture-host.js';

const ALL = [...CATALOGUE.values()];
const { run, refused } = actionRunner(ALL);
const RHEL: Platform[] = ['fedora', 'rhel'];

// ---------------------------------------------------------------- a host of either family

const ok = (stdout = '') => ({ code: 0, stdout, stderr: '' });

interface Zone {
  target: string;
  services: string[];
  ports: string[];
  richRules: string[];
}
const ZONE: Zone = { target: 'default', services: ['cockpit', 'dhcpv6-client', 'ssh'], ports: [], richRules: [] };

/** `firewall-cmd --list-all` as firewalld 1.3 prints it. */
const listAll = (name: string, z: Zone) =>
  `${name} (active)\n  target: ${z.target}\n  icmp-block-inversion: no\n  interfaces: eth0\n  sources: \n  services: ${z.services.join(' ')}\n  ports: ${z.ports.join(' ')}\n  protocols: \n  forward: yes\n  masquerade: no\n  forward-ports: \n  source-ports: \n  icmp-blocks: \n  rich rules: \n${z.richRules.map((r) => `\t${r}\n`).join('')}`;

const LISTEN = 'tcp   LISTEN 0      128          0.0.0.0:22        0.0.0.0:*    users:(("sshd",pid=42,fd=3))\ntcp   LISTEN 0      511          0.0.0.0:443       0.0.0.0:*    users:(("nginx",pid=90,fd=6))\n';
const TABLE7 = `table inet airlock { # handle 4
	chain input { # handle 1
		type filter hook input priority filter; policy accept;
		tcp dport 8080 accept comment "airlock: allow tcp/8080" # handle 7
	}

	chain forward { # handle 2
		type filter hook forward priority filter; policy accept;
	}
}
`;

interface Machine {
  firewalld?: 'running' | 'stopped' | 'absent';
  zone?: Partial<Zone>;
  /** What firewalld runs, when it differs from the stored zone. */
  runtimeZone?: Partial<Zone>;
  activeZones?: string;
  sessions?: string;
  /** table inet airlock (null: absent). */
  table?: string | null;
  /** rpm: name -> [arch, evr]. */
  rpms?: Record<string, [string, string]>;
  /** dnf's cache: name -> "name arch evr" lines it answers. */
  repo?: Record<string, string>;
  /** dnf repoquery --whatrequires: name -> "name evr" lines. */
  requiredBy?: Record<string, string>;
  /** dnf check-update: its exit code (100 = upgrades) and output. */
  checkUpdate?: { code: number; stdout: string };
  /** dnf repoquery --unneeded: "name evr arch" lines. */
  unneeded?: string;
  dnfCache?: boolean;
  selinux?: string;
  /** What --get-default-zone answers (public). */
  defaultZone?: string;
}

const RPMS: Record<string, [string, string]> = {
  hello: ['x86_64', '2.12.1-2.fc40'],
  NetworkManager: ['x86_64', '1:1.46.0-1.fc40'],
  glibc: ['x86_64', '2.39-8.fc40'],
  libfoo: ['x86_64', '1.0-1.fc40'],
};
const REPO: Record<string, string> = { htop: 'htop x86_64 3.3.0-1.fc40\nhtop i686 3.3.0-1.fc40\n', hello: 'hello x86_64 2.12.1-2.fc40\n' };
/** dnf5's check-upgrade output (libsmartcols columns, no heading). */
const CHECK_UPDATE = 'hello.x86_64           2.12.1-3.fc40    updates\nNetworkManager.x86_64  1:1.46.2-1.fc40  updates\n\n';
/** dnf4's repoquery output, with the blank line it adds after each formatted package. */
const UNNEEDED = 'libfoo 1.0-1.fc40 x86_64\n\nfoo-tools 1.0-1.fc40 x86_64\n\n';
const REQUIRED_BY: Record<string, string> = { NetworkManager: 'NetworkManager-wifi 1:1.46.0-1.fc40\nNetworkManager 1:1.46.0-1.fc40\n', libfoo: 'foo-tools 1.0-1.fc40\nsystemd 255.4-1.fc40\n' };

/**
 * A host of `platform` answering as Fedora 40 (rpm, dnf, firewalld, SELinux), or as
 * Debian 12 (dpkg, apt) on a Debian one; nft, ss and fail2ban on both.
 */
function machine(platform: Platform, m: Machine = {}): FixtureHost {
  const firewalld = m.firewalld ?? 'running';
  const tree: Record<string, Node> = {
    '/usr/bin/fail2ban-client': 'x',
    '/etc/selinux/config': 'SELINUX=enforcing\nSELINUXTYPE=targeted\n',
  };
  if (firewalld !== 'absent') tree['/usr/bin/firewall-cmd'] = 'x';
  const rpms = m.rpms ?? RPMS;
  const repo = m.repo ?? REPO;
  const zone = { ...ZONE, ...m.zone };
  return new FixtureHost(
    tree,
    (program: ProgramName, args: string[]) => {
      const a = args.join(' ');
      const operands = args.slice(args.indexOf('--') + 1);
      switch (program) {
        case 'rpm': {
          const lines = operands.filter((n) => rpms[n]).map((n) => `${n}\t${rpms[n]![0]}\t${rpms[n]![1]}\n`);
          return { code: operands.length - lines.length, stdout: lines.join('') + operands.filter((n) => !rpms[n]).map((n) => `package ${n} is not installed\n`).join(''), stderr: '' };
        }
        case 'dnf':
          if (m.dnfCache === false) return { code: 1, stdout: '', stderr: "Error: Cache-only enabled but no cache for 'fedora'\n" };
          if (a.startsWith('--cacheonly repoquery --available')) return ok(repo[args.at(-1)!] ?? '');
          if (a.startsWith('--cacheonly repoquery --installed')) return ok((m.requiredBy ?? REQUIRED_BY)[/--whatrequires=(\S+)/.exec(a)![1]!] ?? '');
          if (a === '--cacheonly check-update') return { ...(m.checkUpdate ?? { code: 100, stdout: CHECK_UPDATE }), stderr: '' };
          if (a === '--cacheonly repoquery --unneeded --queryformat=%{name} %{evr} %{arch}\n') return ok(m.unneeded ?? UNNEEDED);
          if (a === '--cacheonly repolist --enabled') return ok('repo id                       repo name\nfedora                        Fedora 40 - x86_64\nupdates                       Fedora 40 - x86_64 - Updates\n');
          break;
        case 'dpkg-query': {
          const dpkg: Record<string, string> = { hello: '2.10-3' };
          const lines = operands.filter((n) => dpkg[n]).map((n) => `${n}\tamd64\t${dpkg[n]}\tinstall\tinstalled\tno\toptional\n`);
          return { code: lines.length === operands.length ? 0 : 1, stdout: lines.join(''), stderr: '' };
        }
        case 'apt-cache': {
          const candidates: Record<string, string> = { htop: '3.2.2-2', hello: '2.10-3' };
          const n = operands[0]!;
          return ok(candidates[n] ? `${n}:\n  Installed: ${n === 'hello' ? '2.10-3' : '(none)'}\n  Candidate: ${candidates[n]}\n` : '');
        }
        case 'apt-get':
          if (args[0] === 'indextargets') return ok('http://deb.debian.org/debian bookworm main [deb]\n');
          if (a.startsWith('-s install')) return ok('Inst htop (3.2.2-2 Debian:12.5/stable [amd64])\n');
          if (a.startsWith('-s remove')) return ok('Remv hello [2.10-3]\n');
          if (a.startsWith('-s upgrade')) return ok('Inst hello [2.10-3] (2.10-3+deb12u1 Debian-Security:12/stable-security [amd64])\n');
          if (a.startsWith('-s autoremove')) return ok('Remv libfoo1 [1.0-1]\n');
          break;
        case 'firewall-cmd':
          if (a === '--state') return firewalld === 'running' ? ok('running\n') : { code: 252, stdout: 'not running\n', stderr: '' };
          if (a === '--get-default-zone') return ok(`${m.defaultZone ?? 'public'}\n`);
          if (a === '--permanent --zone=public --list-all') return ok(listAll('public', zone));
          if (a === '--zone=public --list-all') return ok(listAll('public', { ...zone, ...m.runtimeZone }));
          if (a === '--get-active-zones') return ok(m.activeZones ?? 'public (default)\n  interfaces: eth0\n');
          break;
        case 'ss':
          return ok(args.includes('-l') ? LISTEN : (m.sessions ?? ''));
        case 'nft':
          if (a === '--handle --stateless list table inet airlock') {
            const t = m.table === undefined ? null : m.table;
            return t === null ? { code: 1, stdout: '', stderr: 'Error: No such file or directory\n' } : ok(t);
          }
          if (a === 'list tables') return ok(m.table ? 'table inet airlock\n' : '');
          break;
        case 'fail2ban-client':
          if (a === 'status') return ok('Status\n|- Number of jail:\t1\n`- Jail list:\tsshd\n');
          if (a === '-- status sshd') return ok('Status for the jail: sshd\n`- Actions\n   `- Banned IP list:\t198.51.100.9\n');
          if (a === '-- get sshd maxretry') return ok('5\n');
          break;
        case 'getenforce':
          return ok(`${m.selinux ?? 'Enforcing'}\n`);
        case 'getsebool':
          return args.at(-1) === 'httpd_can_network_connect' ? ok('httpd_can_network_connect --> off\n') : { code: 1, stdout: '', stderr: 'Error getting active value\n' };
        case 'ls':
          return { code: 2, stdout: '', stderr: 'No such file or directory' };
      }
      return { code: 127, stdout: '', stderr: `unscripted ${program} ${a}` };
    },
    platform,
  );
}

/** A mechanism as argv lines: [program, ...args] per command (its undo on the next line), [kind, path] per file step. */
function argv(steps: Step[]): string[][] {
  return steps.flatMap((s) => (s.kind === 'command' ? [[s.program, ...s.args], ...(s.undo ? [['undo:', s.undo.program, ...s.undo.args]] : [])] : [[s.kind, s.path]]));
}

// ---------------------------------------------------------------- the argv of every action Fedora and RHEL run

const FC = ['firewall-cmd', '--permanent', '--zone=public'];
const RELOAD = ['firewall-cmd', '--reload'];
const NFT_UNIT_PATH = '/etc/systemd/system/airlock-nftables.service';
/** What an nft change builds when table inet airlock does not exist yet: the whole file, checked, loaded at boot, loaded now. */
const NFT_FULL_LOAD = [
  ['fileWrite', NFT_FILE],
  ['nft', '--check', '--file', NFT_FILE],
  ['fileWrite', NFT_UNIT_PATH],
  ['systemctl', 'enable', '--', NFT_UNIT],
  ['undo:', 'systemctl', 'disable', '--', NFT_UNIT],
  ['nft', '--file', NFT_FILE],
  // There was no table: undone, the table goes (issue 27).
  ['undo:', 'nft', 'delete', 'table', 'inet', 'airlock'],
];
/** firewalld: a read first carries the reload's undo, so undone the stored zone is set back and then reloaded (issue 27). */
const STATE = [['firewall-cmd', '--state'], ['undo:', ...RELOAD]];
/** Undone, the rule RemoveFirewallRule deleted goes back first in chain input, where it was (issue 27). */
const RULE7_BACK = ['undo:', 'nft', 'insert', 'rule', 'inet', 'airlock', 'input', 'tcp dport 8080 accept comment "airlock: allow tcp/8080"'];
const DPKG_OPTS = ['-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold', '-o', 'Dpkg::Use-Pty=0'];

interface Case {
  action: string;
  params: Record<string, unknown>;
  title?: string;
  machine?: Machine;
  /** The argv on Fedora and on RHEL, or the refusal code there. */
  rhel: string[][] | { refused: string } | { unchanged: RegExp };
  /** The argv on Debian: for actions Debian runs too. */
  debian?: string[][];
}

const CASES: Case[] = [
  // packages: apt and dpkg on Debian, dnf and rpm on Fedora and RHEL
  { action: 'AptUpdate', params: {}, rhel: [['dnf', 'makecache', '--refresh', '--setopt=skip_if_unavailable=False']], debian: [['apt-get', 'update', '-o', 'APT::Update::Error-Mode=any']] },
  {
    action: 'InstallPackage',
    params: { package: 'htop' },
    rhel: [['dnf', 'install', '-y', '--setopt=install_weak_deps=False', 'htop-3.3.0-1.fc40.x86_64']],
    debian: [['apt-get', 'install', '-y', '--no-install-recommends', '--no-remove', ...DPKG_OPTS, '--', 'htop=3.2.2-2'], ['undo:', 'dpkg', '--purge', '--', 'htop']],
  },
  {
    action: 'RemovePackage',
    params: { package: 'hello' },
    rhel: [['dnf', 'remove', '-y', '--setopt=clean_requirements_on_remove=False', 'hello-2.12.1-2.fc40']],
    debian: [['apt-get', 'remove', '-y', ...DPKG_OPTS, '--', 'hello=2.10-3']],
  },
  { action: 'RemovePackage', title: 'an RPM name with capitals and an epoch', params: { package: 'NetworkManager' }, rhel: [['dnf', 'remove', '-y', '--setopt=clean_requirements_on_remove=False', 'NetworkManager-1:1.46.0-1.fc40']] },
  {
    action: 'ListInstalledPackages',
    params: {},
    rhel: [['rpm', '--query', '--all', '--queryformat=%{NAME} %|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE} %{ARCH}\n']],
    debian: [['dpkg-query', '-W', '--showformat=${db:Status-Abbrev} ${binary:Package} ${Version}\n']],
  },
  { action: 'ListUpgradable', params: {}, rhel: [['dnf', '--cacheonly', 'check-update']], debian: [['apt-get', '-s', 'upgrade']] },
  { action: 'PackagePolicy', params: { package: 'hello' }, rhel: [['dnf', '--cacheonly', 'list', '--showduplicates', 'hello']], debian: [['apt-cache', 'policy', '--', 'hello']] },
  { action: 'PackageInfo', params: { package: 'hello' }, rhel: [['dnf', '--cacheonly', 'info', 'hello']], debian: [['apt-cache', 'show', '--', 'hello']] },
  { action: 'ListPackageFiles', params: { package: 'hello' }, rhel: [['rpm', '--query', '--list', '--', 'hello']], debian: [['dpkg-query', '--listfiles', '--', 'hello']] },
  { action: 'WhichPackageOwns', params: { path: '/usr/bin/hello' }, rhel: [['rpm', '--query', '--file', '--', '/usr/bin/hello']], debian: [['dpkg-query', '--search', '--', '/usr/bin/hello']] },
  { action: 'VerifyPackage', params: { package: 'hello' }, rhel: [['rpm', '--verify', '--', 'hello']], debian: [['dpkg', '--verify', '--', 'hello']] },
  {
    action: 'UpgradeAll',
    params: {},
    rhel: [['dnf', 'upgrade', '-y', '--setopt=install_weak_deps=False', 'hello-2.12.1-3.fc40.x86_64', 'NetworkManager-1:1.46.2-1.fc40.x86_64']],
    debian: [['apt-get', 'upgrade', '-y', '-o', 'APT::Get::Upgrade-Allow-New=false', '-o', 'APT::Get::AutomaticRemove=false', '--no-remove', ...DPKG_OPTS]],
  },
  {
    action: 'UpgradeAll',
    title: "dnf4's wrapped lines; an obsoleting package kept back",
    params: {},
    machine: {
      checkUpdate: {
        code: 100,
        stdout: [
          'Last metadata expiration check: 0:12:03 ago on Mon 06 May 2024 10:00:00 AM UTC.',
          '',
          'hello.x86_64                        2.12.1-3.fc40                      updates',
          'python3-a-rather-long-package-name.noarch',
          '                                    4.2-1.fc40                         updates',
          'grub2-tools.x86_64                  1:2.06-120.fc40                    updates',
          'Obsoleting Packages',
          'grub2-tools.x86_64                  1:2.06-120.fc40                    updates',
          '    grub2-tools-efi.x86_64          1:2.06-110.fc40                    @updates',
          '',
        ].join('\n'),
      },
    },
    rhel: [['dnf', 'upgrade', '-y', '--setopt=install_weak_deps=False', 'hello-2.12.1-3.fc40.x86_64', 'python3-a-rather-long-package-name-4.2-1.fc40.noarch']],
  },
  { action: 'UpgradeAll', title: 'nothing upgradable', params: {}, machine: { checkUpdate: { code: 0, stdout: '' } }, rhel: { unchanged: /no installed package has a newer candidate/ } },
  {
    action: 'Autoremove',
    params: {},
    rhel: [['dnf', 'remove', '-y', '--setopt=clean_requirements_on_remove=False', 'libfoo-1.0-1.fc40.x86_64', 'foo-tools-1.0-1.fc40.x86_64']],
    debian: [['apt-get', 'autoremove', '-y', ...DPKG_OPTS]],
  },
  { action: 'Autoremove', title: 'nothing unneeded', params: {}, machine: { unneeded: '' }, rhel: { unchanged: /nothing to autoremove/ } },
  { action: 'Autoremove', title: 'a protected package among the unneeded', params: {}, machine: { unneeded: 'libfoo 1.0-1.fc40 x86_64\nsudo 1.9.15-5.p5.fc40 x86_64\n' }, rhel: { refused: 'protected_package' } },
  { action: 'SearchPackages', params: { query: 'g++-12' }, rhel: [['dnf', '--cacheonly', 'search', 'g++-12']], debian: [['apt-cache', 'search', '--names-only', '--', 'g\\+\\+-12']] },

  // firewall: firewalld's default zone where it runs, table inet airlock elsewhere
  { action: 'AllowPort', params: { port: 443, protocol: 'tcp' }, rhel: [...STATE, [...FC, '--add-port=443/tcp'], ['undo:', ...FC, '--remove-port=443/tcp'], RELOAD], debian: NFT_FULL_LOAD },
  {
    action: 'AllowPort',
    title: 'from one network: a rich rule',
    params: { port: 5432, protocol: 'tcp', source: '192.0.2.0/24' },
    rhel: [
      ...STATE,
      [...FC, '--add-rich-rule=rule family="ipv4" source address="192.0.2.0/24" port port="5432" protocol="tcp" accept'],
      ['undo:', ...FC, '--remove-rich-rule=rule family="ipv4" source address="192.0.2.0/24" port port="5432" protocol="tcp" accept'],
      RELOAD,
    ],
    debian: NFT_FULL_LOAD,
  },
  { action: 'AllowPort', title: 'firewalld stopped: the nft table, as on Debian', params: { port: 443, protocol: 'tcp' }, machine: { firewalld: 'stopped' }, rhel: NFT_FULL_LOAD },
  { action: 'AllowPort', title: 'firewalld not installed', params: { port: 443, protocol: 'tcp' }, machine: { firewalld: 'absent' }, rhel: NFT_FULL_LOAD },
  {
    action: 'DenyPort',
    params: { port: 3306, protocol: 'tcp' },
    rhel: [...STATE, [...FC, '--add-rich-rule=rule port port="3306" protocol="tcp" drop'], ['undo:', ...FC, '--remove-rich-rule=rule port port="3306" protocol="tcp" drop'], RELOAD],
    debian: NFT_FULL_LOAD,
  },
  {
    action: 'AllowSource',
    params: { source: '192.0.2.0/24' },
    rhel: [...STATE, [...FC, '--add-rich-rule=rule family="ipv4" source address="192.0.2.0/24" accept'], ['undo:', ...FC, '--remove-rich-rule=rule family="ipv4" source address="192.0.2.0/24" accept'], RELOAD],
    debian: NFT_FULL_LOAD,
  },
  {
    action: 'DenySource',
    params: { source: '2001:db8::/32' },
    rhel: [...STATE, [...FC, '--add-rich-rule=rule family="ipv6" source address="2001:db8::/32" drop'], ['undo:', ...FC, '--remove-rich-rule=rule family="ipv6" source address="2001:db8::/32" drop'], RELOAD],
    debian: NFT_FULL_LOAD,
  },
  {
    action: 'RemoveFirewallRule',
    params: { rule: 'allow', port: 8080, protocol: 'tcp' },
    machine: { zone: { ports: ['8080/tcp'] }, table: TABLE7 },
    rhel: [...STATE, [...FC, '--remove-port=8080/tcp'], ['undo:', ...FC, '--add-port=8080/tcp'], RELOAD],
    debian: [['fileWrite', NFT_FILE], ['nft', '--check', '--file', NFT_FILE], ['fileWrite', NFT_UNIT_PATH], ['systemctl', 'enable', '--', NFT_UNIT], ['undo:', 'systemctl', 'disable', '--', NFT_UNIT], ['nft', 'delete', 'rule', 'inet', 'airlock', 'input', 'handle', '7'], RULE7_BACK],
  },
  {
    action: 'RemoveFirewallRule',
    title: 'a handle names a rule of table inet airlock, even where firewalld runs',
    params: { handle: 7 },
    machine: { table: TABLE7 },
    rhel: [['fileWrite', NFT_FILE], ['nft', '--check', '--file', NFT_FILE], ['fileWrite', NFT_UNIT_PATH], ['systemctl', 'enable', '--', NFT_UNIT], ['undo:', 'systemctl', 'disable', '--', NFT_UNIT], ['nft', 'delete', 'rule', 'inet', 'airlock', 'input', 'handle', '7'], RULE7_BACK],
  },
  { action: 'SetDefaultPolicy', params: { chain: 'forward', policy: 'drop' }, rhel: { refused: 'firewalld_manages' }, debian: NFT_FULL_LOAD },
  { action: 'SetDefaultPolicy', title: 'firewalld stopped', params: { chain: 'forward', policy: 'drop' }, machine: { firewalld: 'stopped' }, rhel: NFT_FULL_LOAD },
  {
    action: 'FirewallStatus',
    params: {},
    rhel: [['firewall-cmd', '--state'], ['firewall-cmd', '--get-active-zones'], ['firewall-cmd', '--zone=public', '--list-all'], [...FC, '--list-all'], ['fail2ban-client', 'status']],
    debian: [['nft', 'list', 'tables'], ['systemctl', 'is-enabled', '--', NFT_UNIT], ['fail2ban-client', 'status']],
  },
  { action: 'FirewallStatus', title: 'firewalld stopped', params: {}, machine: { firewalld: 'stopped' }, rhel: [['nft', 'list', 'tables'], ['systemctl', 'is-enabled', '--', NFT_UNIT], ['fail2ban-client', 'status']] },
  { action: 'ListRuleset', params: {}, rhel: [['nft', '--handle', 'list', 'ruleset']], debian: [['nft', '--handle', 'list', 'ruleset']] },
  // fail2ban: the same client and jail.d everywhere
  { action: 'Fail2banStatus', params: { jail: 'sshd' }, rhel: [['fail2ban-client', '--', 'status', 'sshd']], debian: [['fail2ban-client', '--', 'status', 'sshd']] },
  {
    action: 'Fail2banBan',
    params: { jail: 'sshd', ip: '203.0.113.7' },
    rhel: [['fail2ban-client', '--', 'set', 'sshd', 'banip', '203.0.113.7'], ['undo:', 'fail2ban-client', '--', 'set', 'sshd', 'unbanip', '203.0.113.7']],
    debian: [['fail2ban-client', '--', 'set', 'sshd', 'banip', '203.0.113.7'], ['undo:', 'fail2ban-client', '--', 'set', 'sshd', 'unbanip', '203.0.113.7']],
  },
  {
    action: 'Fail2banUnban',
    params: { jail: 'sshd', ip: '198.51.100.9' },
    rhel: [['fail2ban-client', '--', 'set', 'sshd', 'unbanip', '198.51.100.9'], ['undo:', 'fail2ban-client', '--', 'set', 'sshd', 'banip', '198.51.100.9']],
    debian: [['fail2ban-client', '--', 'set', 'sshd', 'unbanip', '198.51.100.9'], ['undo:', 'fail2ban-client', '--', 'set', 'sshd', 'banip', '198.51.100.9']],
  },
  {
    action: 'SetJailOption',
    params: { jail: 'sshd', option: 'maxretry', value: 3 },
    // The first read carries the reload's undo: undone, the drop-in is restored and then the jail reloaded (issue 27).
    rhel: [['fail2ban-client', '--', 'status'], ['undo:', 'fail2ban-client', '--', 'reload', 'sshd'], ['fileWrite', JAIL_DROPIN], ['fail2ban-client', '--test'], ['fail2ban-client', '--', 'reload', 'sshd']],
    debian: [['fail2ban-client', '--', 'status'], ['undo:', 'fail2ban-client', '--', 'reload', 'sshd'], ['fileWrite', JAIL_DROPIN], ['fail2ban-client', '--test'], ['fail2ban-client', '--', 'reload', 'sshd']],
  },

  // SELinux: Fedora and RHEL only
  { action: 'SelinuxStatus', params: {}, rhel: [['sestatus']] },
  { action: 'SetSelinuxMode', params: { mode: 'permissive' }, rhel: [['filePatch', '/etc/selinux/config'], ['setenforce', 'Permissive'], ['undo:', 'setenforce', 'Enforcing']] },
  { action: 'SetSelinuxMode', title: 'already permissive now: only the file', params: { mode: 'permissive' }, machine: { selinux: 'Permissive' }, rhel: [['filePatch', '/etc/selinux/config']] },
  { action: 'ListSelinuxBooleans', params: {}, rhel: [['getsebool', '-a']] },
  {
    action: 'SetSelinuxBoolean',
    params: { name: 'httpd_can_network_connect', value: true },
    rhel: [['setsebool', '-P', '--', 'httpd_can_network_connect', 'on'], ['undo:', 'setsebool', '-P', '--', 'httpd_can_network_connect', 'off']],
  },
];

for (const c of CASES) {
  test(`${c.action}${c.title ? ` (${c.title})` : ''}: argv on Fedora and RHEL${c.debian ? ', unchanged on Debian' : ''}`, async () => {
    for (const platform of RHEL) {
      const host = machine(platform, c.machine);
      if ('refused' in c.rhel) await refused(c.action, c.params, host, c.rhel.refused);
      else if ('unchanged' in c.rhel) await assertNoChange(run(c.action, c.params, host), c.rhel.unchanged);
      else assert.deepEqual(argv((await run(c.action, c.params, host)).steps), c.rhel, platform);
    }
    if (c.debian) assert.deepEqual(argv((await run(c.action, c.params, machine('debian', c.machine))).steps), c.debian, 'debian');
  });
}

test('every action Fedora or RHEL runs has its argv asserted here; every case names one of them', () => {
  const onRhel = ALL.filter((a) => a.platforms.some((p) => RHEL.includes(p))).map((a) => a.name);
  const covered = new Set(CASES.map((c) => c.action));
  assert.deepEqual(onRhel.filter((n) => !covered.has(n)), [], 'actions for fedora/rhel without an argv case');
  for (const c of CASES) {
    const a = CATALOGUE.get(c.action);
    assert.ok(a, c.action);
    for (const p of RHEL) assert.ok(a.platforms.includes(p), `${c.action} lists ${p}`);
    // The first case of an action Debian runs too says what Debian runs; an action Debian never runs has no Debian argv.
    if (!a.platforms.includes('debian')) assert.equal(c.debian, undefined, c.action);
    else if (c.title === undefined) assert.ok(c.debian, `${c.action}: the Debian argv`);
  }
  // The actions a Debian scenario cannot run are exactly the RHEL-only ones, and each has a case.
  const rhelOnly = ALL.filter(argvOnly).map((a) => a.name).sort();
  assert.deepEqual(rhelOnly, ['ListSelinuxBooleans', 'SelinuxStatus', 'SetSelinuxBoolean', 'SetSelinuxMode']);
  for (const n of rhelOnly) assert.ok(covered.has(n), n);
});

test('the package manager comes from the detected distribution, and the state says which', async () => {
  assert.equal(packageManager('fedora'), 'dnf');
  assert.equal(packageManager('rhel'), 'dnf');
  assert.equal(packageManager('debian'), 'apt');
  assert.equal(packageManager('ubuntu'), 'apt');
  assert.equal(packageManager(null), 'apt');
  const r = await run('InstallPackage', { package: 'htop' }, machine('fedora'));
  assert.equal((r.cur as { manager: string }).manager, 'dnf');
  assert.match(r.preview.summary, /^Install htop 3\.3\.0-1\.fc40$/);
  assert.match(r.preview.warnings!.join(' '), /resolves the dependencies when it runs/);
  // The candidate came from the cache, without the network, and named exactly htop.
  const host = machine('rhel');
  await run('InstallPackage', { package: 'htop' }, host);
  assert.ok(host.calls.some(([p, a]) => p === 'dnf' && a.join(' ') === '--cacheonly repoquery --available --latest-limit=1 --queryformat=%{name} %{arch} %{evr}\n htop'));
  assert.ok(host.calls.every(([p]) => !['apt-get', 'apt-cache', 'dpkg-query', 'dpkg'].includes(p)), 'no apt or dpkg on RHEL');
});

// ---------------------------------------------------------------- dnf and rpm: reading and refusing

test('rpm, repoquery and repolist answers are read for exactly the package asked about', () => {
  assert.deepEqual(parseRpmEntries('hello\tx86_64\t2.12.1-2.fc40\nhello-devel\tx86_64\t1-1\npackage nosuch is not installed\n', ['hello']), [
    { name: 'hello', arch: 'x86_64', version: '2.12.1-2.fc40', want: 'install', status: 'installed', essential: false, priority: '' },
  ]);
  assert.deepEqual(parseRepoquery('htop', 'htop i686 3.3.0-1.fc40\nhtop x86_64 3.3.0-1.fc40\n'), { arch: 'x86_64', evr: '3.3.0-1.fc40' });
  assert.deepEqual(parseRepoquery('htop', '\nhtop i686 3-1\n\nhtop x86_64 3-1\n', 'i686'), { arch: 'i686', evr: '3-1' }, 'the installed architecture first; dnf4 adds blank lines');
  assert.equal(parseRepoquery('lib', 'libfoo x86_64 1-1\n'), null, 'another package is not this one');
  assert.deepEqual(parseRepolist('repo id              repo name\nappstream            Rocky Linux 9 - AppStream\nbaseos               Rocky Linux 9 - BaseOS\n'), ['appstream', 'baseos']);
});

test('dnf refusals: installed, unknown, odd versions, protected packages (also as consequences), no cache', async () => {
  await assertNoChange(run('InstallPackage', { package: 'hello' }, machine('fedora')), /already/);
  await refused('InstallPackage', { package: 'nosuch' }, machine('fedora'), 'no_such_package');
  await refused('InstallPackage', { package: 'weird' }, machine('fedora', { repo: { weird: 'weird x86_64 1.0;rm-1\n' } }), 'odd_version');
  await refused('InstallPackage', { package: 'weird' }, machine('fedora', { repo: { weird: 'weird x86_64 --oops\n' } }), 'odd_version');
  await refused('InstallPackage', { package: 'htop' }, machine('fedora', { dnfCache: false }), 'dnf_cache_unreadable');
  for (const name of ['glibc', 'dnf', 'rpm', 'systemd', 'openssh-server', 'sudo', 'kernel-core']) {
    const host = machine('rhel', { rpms: { ...RPMS, [name]: ['x86_64', '1-1.el9'] } });
    await refused('RemovePackage', { package: name }, host, 'protected_package');
    assert.ok(!host.calls.some(([p]) => p === 'dnf'), `${name}: dnf is not even asked`);
  }
  const e = await run('RemovePackage', { package: 'libfoo' }, machine('fedora')).catch((x: unknown) => x);
  assert.ok(e instanceof AirlockError && e.code === 'protected_package' && /systemd/.test(e.message), String(e));
  await assertNoChange(run('RemovePackage', { package: 'htop' }, machine('fedora')), /not|no /);
  const nm = await run('RemovePackage', { package: 'NetworkManager' }, machine('fedora'));
  assert.deepEqual((nm.preview.change as { remove: string[] }).remove, ['NetworkManager 1:1.46.0-1.fc40', 'NetworkManager-wifi 1:1.46.0-1.fc40']);
  assert.match(nm.preview.warnings!.join(' '), /also removes NetworkManager-wifi/);
  for (const n of ['ListPackageFiles', 'VerifyPackage']) await refused(n, { package: 'htop' }, machine('rhel'), 'not_installed');
  // The owner lookup runs as nobody on both families.
  const owns = await run('WhichPackageOwns', { path: '/usr/bin/hello' }, machine('fedora'));
  assert.deepEqual(owns.steps, [{ kind: 'command', program: 'rpm', args: ['--query', '--file', '--', '/usr/bin/hello'], okCodes: [0, 1], unprivileged: true }]);
  // dnf's argv never carries `--` (dnf5 refuses it); rpm's always does before names.
  for (const c of CASES) {
    if (!Array.isArray(c.rhel)) continue;
    for (const line of c.rhel) if (line[0] === 'dnf') assert.ok(!line.includes('--'), line.join(' '));
  }
});

// ---------------------------------------------------------------- dnf: whole-system upgrade, autoremove, search

test('check-update and repoquery --unneeded answers are read line by line, odd builds refused', () => {
  assert.deepEqual(parseCheckUpdate(CHECK_UPDATE), {
    upgrades: [
      { name: 'hello', evr: '2.12.1-3.fc40', arch: 'x86_64' },
      { name: 'NetworkManager', evr: '1:1.46.2-1.fc40', arch: 'x86_64' },
    ],
    keptBack: [],
  });
  // A dot in the name: the architecture is what follows the last one.
  assert.deepEqual(parseCheckUpdate('python3.12.x86_64  3.12.3-2.fc40  updates\n').upgrades, [{ name: 'python3.12', evr: '3.12.3-2.fc40', arch: 'x86_64' }]);
  // dnf5 lists an obsoleting package twice; it and it alone is kept back, and what it replaces is not read as one.
  const obs = parseCheckUpdate('a.noarch 2-1.fc40 updates\nb.x86_64 3-1.fc40 updates\n\nObsoleting packages\nb.x86_64 3-1.fc40 updates\n    b-old.x86_64 1-1.fc40 fedora\n');
  assert.deepEqual(obs, { upgrades: [{ name: 'a', evr: '2-1.fc40', arch: 'noarch' }], keptBack: ['b.x86_64'] });
  for (const odd of ['evil.x86_64 1.0;id-1 updates', 'evil.x86_64 --help updates', '-rf.x86_64 1-1 updates', 'evil.x$6 1-1 updates']) {
    assert.throws(() => parseCheckUpdate(`${odd}\n`), (e: unknown) => e instanceof AirlockError && ['odd_version', 'odd_package'].includes(e.code), odd);
  }
  assert.deepEqual(parseUnneeded(UNNEEDED), [
    { name: 'libfoo', evr: '1.0-1.fc40', arch: 'x86_64' },
    { name: 'foo-tools', evr: '1.0-1.fc40', arch: 'x86_64' },
  ]);
  assert.throws(() => parseUnneeded('libfoo $(id)-1 x86_64\n'), /odd_version|will not pass on/);
});

test('UpgradeAll on dnf: the previewed builds are the change and the argv, read from the cache', async () => {
  const host = machine('fedora');
  const r = await run('UpgradeAll', {}, host);
  assert.deepEqual(r.steps, [{ kind: 'command', program: 'dnf', args: ['upgrade', '-y', '--setopt=install_weak_deps=False', 'hello-2.12.1-3.fc40.x86_64', 'NetworkManager-1:1.46.2-1.fc40.x86_64'], timeoutMs: 1_800_000 }]);
  assert.equal(r.preview.summary, 'Upgrade 2 installed package(s) to their candidate versions');
  assert.deepEqual(r.preview.change, { upgrade: ['hello.x86_64 2.12.1-2.fc40 -> 2.12.1-3.fc40', 'NetworkManager.x86_64 1:1.46.0-1.fc40 -> 1:1.46.2-1.fc40'], install: [], remove: [] });
  assert.match(r.preview.warnings!.join('\n'), /resolves the dependencies when it runs/);
  assert.match(r.preview.sideEffects!.join('\n'), /\.rpmnew/);
  assert.deepEqual(host.calls.filter(([p]) => p === 'dnf').map(([, a]) => a), [['--cacheonly', 'check-update']]);
  assert.ok(host.calls.every(([p]) => !['apt-get', 'apt-cache', 'dpkg-query', 'dpkg'].includes(p)), 'no apt or dpkg on Fedora');
  // Kept back and reboot warnings, as apt's.
  const kept = await run('UpgradeAll', {}, machine('rhel', { rpms: { ...RPMS, 'kernel-core': ['x86_64', '5.14.0-427.el9'] }, checkUpdate: { code: 100, stdout: 'kernel-core.x86_64 5.14.0-503.el9 baseos\nObsoleting Packages\nhello.x86_64 2.13-1.el9 appstream\n    hello-old.x86_64 1-1.el9 @anaconda\n' } }));
  assert.deepEqual(argv(kept.steps), [['dnf', 'upgrade', '-y', '--setopt=install_weak_deps=False', 'kernel-core-5.14.0-503.el9.x86_64']]);
  const w = kept.preview.warnings!.join('\n');
  assert.match(w, /kept back .*: hello\.x86_64/);
  assert.match(w, /kernel-core\.x86_64 only take full effect after a reboot/);
  assert.match(w, /installonly_limit/);
  // Nothing left but what is kept back: no change, as apt says, naming them.
  await assertNoChange(run('UpgradeAll', {}, machine('fedora', { checkUpdate: { code: 100, stdout: 'Obsoleting packages\nhello.x86_64 3-1.fc40 updates\n    hello-old.x86_64 1-1.fc40 fedora\n' } })), /kept back: hello\.x86_64/);
});

test('UpgradeAll, Autoremove on dnf refuse what they cannot read: no cache, unreadable or odd output', async () => {
  for (const n of ['UpgradeAll', 'Autoremove']) await refused(n, {}, machine('rhel', { dnfCache: false }), 'dnf_cache_unreadable', 'execution');
  await refused('UpgradeAll', {}, machine('fedora', { checkUpdate: { code: 1, stdout: '' } }), 'dnf_cache_unreadable');
  await refused('UpgradeAll', {}, machine('fedora', { checkUpdate: { code: 100, stdout: 'Updating and loading repositories:\nRepositories loaded.\n' } }), 'dnf_output_unreadable', 'execution');
  await refused('UpgradeAll', {}, machine('fedora', { checkUpdate: { code: 100, stdout: 'evil.x86_64 1.0;id-1 updates\n' } }), 'odd_version');
  await refused('Autoremove', {}, machine('rhel', { unneeded: 'libfoo 1.0-1 $(id)\n' }), 'odd_package');
});

test('Autoremove on dnf: the unneeded builds are the change and the argv; protected names refuse it', async () => {
  const host = machine('rhel');
  const r = await run('Autoremove', {}, host);
  assert.deepEqual(r.steps, [{ kind: 'command', program: 'dnf', args: ['remove', '-y', '--setopt=clean_requirements_on_remove=False', 'libfoo-1.0-1.fc40.x86_64', 'foo-tools-1.0-1.fc40.x86_64'], timeoutMs: 600_000 }]);
  assert.equal(r.preview.summary, 'Remove 2 package(s) nothing depends on any more');
  assert.deepEqual(r.preview.change, { remove: ['libfoo-1.0-1.fc40.x86_64', 'foo-tools-1.0-1.fc40.x86_64'], keeps: 'configuration files an administrator changed (saved as .rpmsave)' });
  // One argv element holds the whole format (spaces and a real newline), no shell.
  assert.deepEqual(host.calls.find(([p]) => p === 'dnf')![1], ['--cacheonly', 'repoquery', '--unneeded', '--queryformat=%{name} %{evr} %{arch}\n']);
  // The architecture tells multilib builds apart: only the unneeded one goes.
  const multilib = await run('Autoremove', {}, machine('fedora', { unneeded: 'libfoo 1.0-1.fc40 i686\n' }));
  assert.deepEqual(argv(multilib.steps), [['dnf', 'remove', '-y', '--setopt=clean_requirements_on_remove=False', 'libfoo-1.0-1.fc40.i686']]);
  for (const name of ['glibc', 'systemd', 'dnf', 'openssh-server', 'kernel-core']) {
    const e = await run('Autoremove', {}, machine('rhel', { unneeded: `libfoo 1.0-1.el9 x86_64\n${name} 1-1.el9 x86_64\n` })).catch((x: unknown) => x);
    assert.ok(e instanceof AirlockError && e.code === 'protected_package' && e.message.includes(name) && /dnf mark/.test(e.hint ?? ''), `${name}: ${String(e)}`);
  }
});

test('SearchPackages on dnf searches names and summaries from the cache; Debian\'s preview is as before', async () => {
  const f = await run('SearchPackages', { query: 'nginx' }, machine('fedora'));
  assert.deepEqual(f.steps, [{ kind: 'command', program: 'dnf', args: ['--cacheonly', 'search', 'nginx'] }]);
  assert.equal(f.preview.summary, 'Search package names and summaries containing "nginx" (as of the last AptUpdate)');
  const d = await run('SearchPackages', { query: 'nginx' }, machine('debian'));
  assert.equal(d.preview.summary, 'Search package names containing "nginx" (as of the last AptUpdate)');
});

// ---------------------------------------------------------------- firewalld: refusals and warnings

/** firewalld 1.3.3's own output (firewall-offline-cmd --zone=public --list-all) after the rich rules below were added with the argv of this file. */
const FIREWALLD_LIST_ALL = `public
  target: default
  icmp-block-inversion: no
  interfaces: 
  sources: 
  services: dhcpv6-client ssh
  ports: 443/tcp
  protocols: 
  forward: yes
  masquerade: no
  forward-ports: 
  source-ports: 
  icmp-blocks: 
  rich rules: 
\trule family="ipv4" source address="192.0.2.0/24" port port="5432" protocol="tcp" accept
\trule port port="3306" protocol="tcp" drop
\trule family="ipv6" source address="2001:db8::/32" drop
\trule family="ipv4" source address="192.0.2.0/24" accept
`;

test('firewalld zones and rich rules are read as firewalld prints them', () => {
  // What Airlock writes is what firewalld lists back, so presence checks compare like with like.
  assert.deepEqual(parseZone(FIREWALLD_LIST_ALL), {
    target: 'default',
    services: ['dhcpv6-client', 'ssh'],
    ports: ['443/tcp'],
    richRules: [
      richRule('accept', { source: '192.0.2.0/24', port: 5432, protocol: 'tcp' }),
      richRule('drop', { port: 3306, protocol: 'tcp' }),
      richRule('drop', { source: '2001:db8::/32' }),
      richRule('accept', { source: '192.0.2.0/24' }),
    ],
  });
  const z = parseZone(listAll('public', { target: 'default', services: ['ssh'], ports: ['443/tcp', '8000-8100/udp'], richRules: ['rule family="ipv4" source address="203.0.113.7" drop', 'rule service name="http" log prefix="x" accept'] }));
  assert.deepEqual(z, { target: 'default', services: ['ssh'], ports: ['443/tcp', '8000-8100/udp'], richRules: ['rule family="ipv4" source address="203.0.113.7" drop', 'rule service name="http" log prefix="x" accept'] });
  assert.deepEqual(parseZone('block\n  target: %%REJECT%%\n  services: \n  ports: \n  rich rules: \n').target, '%%REJECT%%');
  assert.equal(richRule('drop', { port: 22, protocol: 'tcp' }), 'rule port port="22" protocol="tcp" drop');
  assert.equal(richRule('accept', { source: '2001:0db8:0000::/32' }), 'rule family="ipv6" source address="2001:db8::/32" accept');
  assert.deepEqual(parseRichRule('rule family="ipv4" source address="10.0.0.0/8" port port="22" protocol="tcp" reject'), { source: { family: 4, bits: 0x0a000000n, prefix: 8 }, protocol: 'tcp', port: 22, verdict: 'drop' });
  assert.deepEqual(parseRichRule('rule service name="ssh" accept'), { source: undefined, protocol: 'tcp', port: 22, verdict: 'accept' });
  for (const other of ['rule service name="http" log prefix="x" accept', 'rule family="ipv6" source address="10.0.0.1" drop', 'rule family="ipv4" source NOT address="10.0.0.1" drop', 'rule priority="-1" port port="22" protocol="tcp" drop']) {
    assert.equal(parseRichRule(other), null, other);
  }
});

test('firewalld changes: a no-op is no change; they refuse missing rules and anything that could cut SSH off', async () => {
  await assertNoChange(run('AllowPort', { port: 443, protocol: 'tcp' }, machine('fedora', { zone: { ports: ['443/tcp'] } })), /already/);
  await refused('DenyPort', { port: 22, protocol: 'tcp' }, machine('fedora'), 'would_lock_out', 'authorization');
  await refused('DenySource', { source: '198.51.100.0/24' }, machine('rhel', { sessions: '0 0 10.1.2.3:22 198.51.100.20:50111\n' }), 'would_lock_out');
  await refused('DenySource', { source: '127.0.0.0/8' }, machine('rhel'), 'loopback', 'authorization');
  await refused('RemoveFirewallRule', { rule: 'deny', port: 3306, protocol: 'tcp' }, machine('fedora'), 'no_such_rule', 'validation');
  // SSH let in only by port 22/tcp: removing it locks out; with the ssh service as well, or target ACCEPT, it does not.
  const only22 = { zone: { services: ['dhcpv6-client'], ports: ['22/tcp'] } };
  await refused('RemoveFirewallRule', { rule: 'allow', port: 22, protocol: 'tcp' }, machine('fedora', only22), 'would_lock_out');
  await run('RemoveFirewallRule', { rule: 'allow', port: 22, protocol: 'tcp' }, machine('fedora', { zone: { ports: ['22/tcp'] } }));
  await run('RemoveFirewallRule', { rule: 'allow', port: 22, protocol: 'tcp' }, machine('fedora', { zone: { ...only22.zone, target: 'ACCEPT' } }));
  // A port range that holds SSH counts as letting it in.
  await run('RemoveFirewallRule', { rule: 'allow', port: 22, protocol: 'tcp' }, machine('fedora', { zone: { services: [], ports: ['22/tcp', '20-30/tcp'] } }));
  await refused('SetDefaultPolicy', { chain: 'input', policy: 'drop' }, machine('rhel'), 'firewalld_manages', 'conflict');
  // A zone name firewalld reports goes into an argv only when it is a plain name.
  for (const zone of ['-x', 'a b', '$(id)', '']) await refused('AllowPort', { port: 443, protocol: 'tcp' }, machine('fedora', { defaultZone: zone }), 'firewalld_unreadable', 'execution');
});

test('firewalld previews name the zone, the entry and the reload, and warn about runtime-only changes and other zones', async () => {
  const r = await run('AllowPort', { port: 443, protocol: 'tcp' }, machine('fedora', { runtimeZone: { ports: ['9090/tcp'] }, activeZones: 'public (default)\n  interfaces: eth0\ntrusted\n  sources: 10.0.0.0/8\n' }));
  assert.equal(r.preview.summary, 'Accept incoming tcp/443 in firewalld zone public');
  assert.deepEqual(r.preview.change, {
    firewall: 'firewalld',
    zone: 'public',
    adds: 'port 443/tcp',
    apply: 'firewall-cmd --permanent --zone=public changes the stored zone, then firewall-cmd --reload makes the stored configuration the running one',
  });
  const w = r.preview.warnings!.join('\n');
  assert.match(w, /never made permanent: the reload drops them/);
  assert.match(w, /zones trusted also have interfaces or sources/);
  assert.deepEqual((r.shown as { firewall: string; ports: string[] }).firewall, 'firewalld');
  // Debian's preview is the nft one, as before.
  const d = await run('AllowPort', { port: 443, protocol: 'tcp' }, machine('debian'));
  assert.equal(d.preview.summary, 'Accept incoming tcp/443 in table inet airlock');
  assert.equal((d.cur as { backend: string }).backend, 'nft');
  const status = await run('FirewallStatus', {}, machine('rhel'));
  assert.match(status.preview.summary, /^Firewall status: firewalld, default zone public \(target default, 0 ports, 3 services, 0 rich rules\); fail2ban$/);
});

// ---------------------------------------------------------------- distribution detection

const FEDORA_40 = `NAME="Fedora Linux"
VERSION="40 (Workstation Edition)"
ID=fedora
VERSION_ID=40
VERSION_CODENAME=""
PLATFORM_ID="platform:f40"
PRETTY_NAME="Fedora Linux 40 (Workstation Edition)"
ANSI_COLOR="0;38;2;60;110;180"
LOGO=fedora-logo-icon
CPE_NAME="cpe:/o:fedoraproject:fedora:40"
DEFAULT_HOSTNAME="fedora"
HOME_URL="https://fedoraproject.org/"
DOCUMENTATION_URL="https://docs.fedoraproject.org/en-US/fedora/f40/system-administrators-guide/"
SUPPORT_URL="https://ask.fedoraproject.org/"
BUG_REPORT_URL="https://bugzilla.redhat.com/"
REDHAT_BUGZILLA_PRODUCT="Fedora"
REDHAT_BUGZILLA_PRODUCT_VERSION=40
REDHAT_SUPPORT_PRODUCT="Fedora"
REDHAT_SUPPORT_PRODUCT_VERSION=40
SUPPORT_END=2025-05-13
VARIANT="Workstation Edition"
VARIANT_ID=workstation
`;
const RHEL_9 = `NAME="Red Hat Enterprise Linux"
VERSION="9.4 (Plow)"
ID="rhel"
ID_LIKE="fedora"
VERSION_ID="9.4"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Red Hat Enterprise Linux 9.4 (Plow)"
ANSI_COLOR="0;31"
LOGO="fedora-logo-icon"
CPE_NAME="cpe:/o:redhat:enterprise_linux:9::baseos"
HOME_URL="https://www.redhat.com/"
DOCUMENTATION_URL="https://access.redhat.com/documentation/en-us/red_hat_enterprise_linux/9"
BUG_REPORT_URL="https://bugzilla.redhat.com/"

REDHAT_BUGZILLA_PRODUCT="Red Hat Enterprise Linux 9"
REDHAT_BUGZILLA_PRODUCT_VERSION=9.4
REDHAT_SUPPORT_PRODUCT="Red Hat Enterprise Linux"
REDHAT_SUPPORT_PRODUCT_VERSION="9.4"
`;
const ROCKY_9 = `NAME="Rocky Linux"
VERSION="9.4 (Blue Onyx)"
ID="rocky"
ID_LIKE="rhel centos fedora"
VERSION_ID="9.4"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"
ANSI_COLOR="0;32"
LOGO="fedora-logo-icon"
CPE_NAME="cpe:/o:rocky:rocky:9::baseos"
HOME_URL="https://rockylinux.org/"
BUG_REPORT_URL="https://bugs.rockylinux.org/"
SUPPORT_END="2032-05-31"
ROCKY_SUPPORT_PRODUCT="Rocky-Linux-9"
ROCKY_SUPPORT_PRODUCT_VERSION="9.4"
REDHAT_SUPPORT_PRODUCT="Rocky Linux"
REDHAT_SUPPORT_PRODUCT_VERSION="9.4"
`;
const DEBIAN_12 = `PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
`;
const UBUNTU_2404 = `PRETTY_NAME="Ubuntu 24.04 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=noble
LOGO=ubuntu-logo
`;

test('detectPlatform maps real os-release files through a fixed table of IDs', () => {
  assert.equal(detectPlatform(FEDORA_40), 'fedora');
  assert.equal(detectPlatform(RHEL_9), 'rhel');
  assert.equal(detectPlatform(ROCKY_9), 'rhel');
  assert.equal(detectPlatform(ROCKY_9.replace('ID="rocky"', 'ID="almalinux"')), 'rhel');
  assert.equal(detectPlatform('NAME="CentOS Stream"\nVERSION="9"\nID="centos"\nID_LIKE="rhel fedora"\nVERSION_ID="9"\n'), 'rhel');
  assert.equal(detectPlatform(DEBIAN_12), 'debian');
  assert.equal(detectPlatform(UBUNTU_2404), 'ubuntu');
  assert.equal(detectPlatform('ID=debian\n'), 'debian', 'testing and sid have no VERSION_ID');
});

test('detectPlatform refuses what it cannot read strictly: unknown IDs, ID_LIKE, old RHELs, garbage, doubles', () => {
  const nulls: Record<string, string | null> = {
    'no file': null,
    empty: '',
    garbage: '\u0000\u0001\u00ff binary\nnot = a line\n',
    'no ID': 'NAME="Fedora Linux"\nVERSION_ID=40\n',
    'Linux Mint (ID_LIKE is never followed)': 'NAME="Linux Mint"\nID=linuxmint\nID_LIKE="ubuntu debian"\nVERSION_ID="21.3"\n',
    'Oracle Linux (not in the table)': 'NAME="Oracle Linux Server"\nID="ol"\nID_LIKE="fedora"\nVERSION_ID="9.4"\n',
    'Arch': 'NAME="Arch Linux"\nID=arch\n',
    'upper case ID': 'ID=Fedora\nVERSION_ID=40\n',
    'CentOS 7 (yum, no dnf)': 'NAME="CentOS Linux"\nID="centos"\nID_LIKE="rhel fedora"\nVERSION_ID="7"\n',
    'RHEL without VERSION_ID': 'NAME="Red Hat Enterprise Linux"\nID="rhel"\n',
    'RHEL with an odd VERSION_ID': 'ID="rhel"\nVERSION_ID="9.4beta"\n',
    'RHEL with two VERSION_IDs': 'ID="rhel"\nVERSION_ID="9.4"\nVERSION_ID="7"\n',
    'two IDs': 'ID=debian\nID=fedora\n',
    'an ID and an unparseable ID': 'ID=fedora\nID=$(touch /tmp/airlock-os-release-probe)\n',
    'command substitution': 'ID=$(echo debian)\n',
    'command substitution, quoted': 'ID="$(echo debian)"\n',
    backquotes: 'ID=`echo fedora`\nVERSION_ID=40\n',
    'backquotes, quoted': 'ID="`echo fedora`"\n',
    'a variable': 'ID="${DISTRO}"\n',
    'an escape': 'ID="fed\\ora"\n',
    'a trailing comment': 'ID=fedora # the distro\nVERSION_ID=40\n',
    'a space in the value': 'ID=fedora linux\n',
  };
  for (const [what, text] of Object.entries(nulls)) assert.equal(detectPlatform(text), null, what);
  // Parsed, never evaluated: nothing ran.
  assert.equal(existsSync('/tmp/airlock-os-release-probe'), false);
});

// ---------------------------------------------------------------- the daemon's platform check

/** The daemon's verbs with nothing behind them but a host of `platform`: the platform check refuses before any store is touched. */
function serviceOn(platform: Platform | null): VerbContext {
  return new VerbContext({
    store: {} as never,
    host: new FixtureHost({}, undefined, platform),
    executor: {} as never,
    pseudonymKey: Buffer.alloc(32),
    approvalKey: {} as never,
    policy: DEFAULT_POLICY,
    policyPath: '/nonexistent/policy.toml',
    tokensPath: '/nonexistent/tokens.toml',
    secondFactor: {} as never,
    approvalTtlMs: 60_000,
    receiptTtlMs: 60_000,
  });
}
const ADMIN: Identity = { uid: 1000, user: 'alice', role: 'admin', approver: true, pid: 1, person: { uid: 1000, user: 'alice', role: 'admin', approver: true, via: 'self' } };

async function refusedByPlatform(service: VerbContext, action: AnyAction): Promise<void> {
  assert.equal(describeAction(service, action.name).supported_here, false, action.name);
  await assert.rejects(preview(service, { caller: service.caller(ADMIN), params: { action_name: action.name, params: action.example }, signal: new AbortController().signal, notice: () => false }), (e: unknown) => {
    assert.ok(e instanceof AirlockError, String(e));
    assert.equal(e.category, 'unsupported_platform', action.name);
    return true;
  });
}

const lowRead = (a: AnyAction) => a.readOnly && a.risk === 'low';

test('the daemon refuses Debian-only changes on Fedora and RHEL, and RHEL-only ones on Debian and Ubuntu; low-risk reads run anywhere', async () => {
  const debianOnly = ALL.filter((a) => !a.platforms.some((p) => RHEL.includes(p)) && !lowRead(a));
  for (const name of ['HoldPackage', 'UnholdPackage', 'PurgePackage', 'UfwAllow', 'SetAppArmorMode']) {
    assert.ok(debianOnly.some((a) => a.name === name), `${name} is Debian-only`);
  }
  for (const platform of RHEL) {
    const service = serviceOn(platform);
    for (const a of debianOnly) await refusedByPlatform(service, a);
    for (const a of ALL.filter((x) => x.platforms.includes(platform) || lowRead(x))) assert.equal(describeAction(service, a.name).supported_here, true, a.name);
  }
  for (const platform of ['debian', 'ubuntu'] as const) {
    const service = serviceOn(platform);
    for (const a of ALL.filter((x) => argvOnly(x) && !lowRead(x))) await refusedByPlatform(service, a);
  }
  // An unrecognised distribution gets the low-risk reads only, RHEL's and Debian's alike.
  const unknown = serviceOn(null);
  assert.equal(describeAction(unknown, 'SelinuxStatus').supported_here, true);
  await refusedByPlatform(unknown, CATALOGUE.get('SetSelinuxMode')!);
  await refusedByPlatform(unknown, CATALOGUE.get('InstallPackage')!);
});
