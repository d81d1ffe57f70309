import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as purge from '../../src/catalogue/families/packages/purge.js';
import * as upgrade from '../../src/catalogue/families/packages/upgrade.js';
import * as pins from '../../src/catalogue/families/packages/pins.js';
import * as search from '../../src/catalogue/families/packages/search.js';
import * as sources from '../../src/catalogue/families/packages/sources.js';
import * as repository from '../../src/catalogue/families/packages/repository.js';
import * as unattended from '../../src/catalogue/families/packages/unattended.js';
import { parseKeptBack, parseVersionTable } from '../../src/catalogue/lib/apt.js';
import { parseArmoredPublicKey, type OpenPgpKey } from '../../src/catalogue/lib/openpgp.js';
import { autoUpgradesText } from '../../src/catalogue/families/packages/unattended.js';
import { isRepositoryUri, sourcesContent } from '../../src/catalogue/families/packages/repository.js';
import { literalPattern } from '../../src/catalogue/families/packages/search.js';
import { pinFile } from '../../src/catalogue/families/packages/pins.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';
import { PROTECTED_PACKAGES } from '../../src/catalogue/lib/guards.js';

// The actions once in families/repositories.ts: purge, upgrades, pins, search, sources and unattended upgrades.
const actions = [purge, upgrade, pins, search, sources, repository, unattended].flatMap((m) => Object.values(m)).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;
const ok = (stdout: string): CommandOutput => ({ code: 0, stdout, stderr: '' });
const DPKG = ['-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold', '-o', 'Dpkg::Use-Pty=0'];

/** Airlock Example Repository <repo@example.org>, ed25519, generated for these tests. */
const KEY = [
  '-----BEGIN PGP PUBLIC KEY BLOCK-----',
  '',
  'mDMEawyRnRYJKwYBBAHaRw8BAQdAFqGZ4EnqbnGkUMLyqLSzSx9y4nquQ450y3GJ',
  '3LlYL8W0LUFpcmxvY2sgRXhhbXBsZSBSZXBvc2l0b3J5IDxyZXBvQGV4YW1wbGUu',
  'b3JnPoiQBBMWCAA4FiEE5dCZ+59E6rFkE8ToPiQic0oQjBYFAmsMkZ0CGwMFCwkI',
  'BwIGFQoJCAsCBBYCAwECHgECF4AACgkQPiQic0oQjBbR5QD+PwgFfQdoMIxLvrKb',
  'L8Vn2eN4HjXtxa1ZpaLz2sfdcskBALyrY7BgSXaDUKQk1xBNa3PU0pj+Q64R49yt',
  'aP5tD7gK',
  '=7Wv+',
  '-----END PGP PUBLIC KEY BLOCK-----',
  '',
].join('\n');
const KEY_FPR = 'E5D099FB9F44EAB16413C4E83E2422734A108C16';
const keyBytes = () => Buffer.from(KEY.split('\n').slice(2, 8).join(''), 'base64');

/** Armor around raw packet bytes, without the optional checksum line. */
const armor = (data: Buffer, begin = 'PUBLIC KEY BLOCK') =>
  [`-----BEGIN PGP ${begin}-----`, '', ...data.toString('base64').match(/.{1,64}/g)!, `-----END PGP ${begin}-----`, ''].join('\n');
/** A new-format packet. */
const packet = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([0xc0 | tag, body.length]), body]);

interface PkgRow {
  version: string;
  want?: string;
  status?: string;
  essential?: boolean;
  priority?: string;
}

/** A fake apt/dpkg host: everything a test does not script answers "not scripted". */
function aptHost(
  opts: {
    tree?: Record<string, Node>;
    dpkg?: Record<string, PkgRow>;
    policy?: Record<string, string>;
    sim?: Record<string, CommandOutput>;
    gpg?: boolean;
    printUris?: CommandOutput;
    aptConfig?: string;
    ls?: Record<string, string[]>;
    newer?: (a: string, b: string) => boolean;
    /** Packages apt-mark showauto lists. */
    auto?: string[];
    /** .deb files in apt's archive cache. */
    debs?: string[];
  } = {},
) {
  const tree = { ...(opts.tree ?? {}), ...Object.fromEntries((opts.debs ?? []).map((d) => [d, 'a .deb'])) };
  return new FixtureHost(tree, (program: ProgramName, args: string[]) => {
    const operands = args.slice(args.indexOf('--') + 1);
    switch (program) {
      case 'apt-mark':
        if (args[0] === 'showauto') return ok(operands.filter((n) => opts.auto?.includes(n)).map((n) => `${n}\n`).join(''));
        break;
      case 'dpkg-query': {
        const lines = operands.flatMap((n) => {
          const r = opts.dpkg?.[n];
          return r ? [[n, 'amd64', r.version, r.want ?? 'install', r.status ?? 'installed', r.essential ? 'yes' : 'no', r.priority ?? 'optional'].join('\t') + '\n'] : [];
        });
        return { code: lines.length === operands.length ? 0 : 1, stdout: lines.join(''), stderr: '' };
      }
      case 'apt-cache':
        if (args[0] === 'policy') return ok(opts.policy?.[operands[0]!] ?? '');
        break;
      case 'apt-get':
        if (args[0] === '-s') return opts.sim?.[args[1]!] ?? { code: 100, stdout: '', stderr: 'E: not scripted' };
        if (args[0] === '--print-uris') return opts.printUris ?? ok('');
        break;
      case 'gpg':
        if (opts.gpg) return ok('gpg (GnuPG) 2.2.40\n');
        throw new AirlockError('unsupported_platform', 'program_missing', 'this host has no trusted gpg binary');
      case 'apt-config':
        return ok(opts.aptConfig ?? 'APT::Periodic=\n');
      case 'ls': {
        // Explicit listings first (names with no file behind them), else the tree's children.
        const dir = operands[0]!;
        const names = opts.ls?.[dir] ?? Object.keys(opts.tree ?? {}).flatMap((p) => (p.startsWith(`${dir}/`) && !p.slice(dir.length + 1).includes('/') ? [p.slice(dir.length + 1)] : []));
        return ok(names.map((n) => `${n}\n`).join(''));
      }
      case 'dpkg':
        if (args[0] === '--compare-versions') return { code: opts.newer?.(args[1]!, args[3]!) ? 0 : 1, stdout: '', stderr: '' };
        if (args[0] === '--print-architecture') return ok('amd64\n');
        break;
    }
    return { code: 127, stdout: '', stderr: `unscripted ${program} ${args.join(' ')}` };
  });
}

async function run(name: string, raw: Record<string, unknown>, host: FixtureHost) {
  const a = byName(name);
  const p = a.params.parse(raw);
  const cur = await a.current(p, host);
  checked(a, p, cur);
  return { steps: a.mechanism(p, cur), preview: a.preview(p, cur), cur };
}

async function refusal(name: string, raw: Record<string, unknown>, host: FixtureHost): Promise<AirlockError> {
  try {
    await run(name, raw, host);
  } catch (e) {
    assert.ok(e instanceof AirlockError, String(e));
    return e;
  }
  assert.fail(`${name} ${JSON.stringify(raw)} was not refused`);
}

const policyText = (name: string, installed: string | null, candidate: string, versions: [string, number][]) =>
  `${name}:\n  Installed: ${installed ?? '(none)'}\n  Candidate: ${candidate}\n  Version table:\n` +
  versions.map(([v, prio]) => `${v === installed ? ' ***' : '    '} ${v} ${prio}\n        500 http://deb.debian.org/debian bookworm/main amd64 Packages\n`).join('');

// ---------------------------------------------------------------------------

test('repository actions: names, risks, declarations', () => {
  const risks = Object.fromEntries(actions.map((a) => [a.name, [a.risk, a.readOnly]]));
  assert.deepEqual(risks, {
    PurgePackage: ['high', false],
    UpgradeAll: ['high', false],
    Autoremove: ['high', false],
    PinPackageVersion: ['medium', false],
    UnpinPackage: ['medium', false],
    SearchPackages: ['low', true],
    ListRepositories: ['low', true],
    AddRepository: ['high', false],
    RemoveRepository: ['high', false],
    UnattendedUpgradesStatus: ['low', true],
    SetUnattendedUpgrades: ['medium', false],
  });
  for (const a of actions) {
    assert.equal(a.family, 'packages');
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
    assert.ok(!a.params.safeParse({ ...a.example, extra: 1 }).success, `${a.name} is strict`);
  }
  assert.deepEqual(byName('PinPackageVersion').files, ['/etc/apt/preferences.d/60-airlock-*.pref']);
  assert.deepEqual(byName('AddRepository').files, ['/etc/apt/sources.list.d/airlock-*.sources', '/etc/apt/keyrings/airlock-*.asc']);
  assert.deepEqual(byName('ListRepositories').files, ['/etc/apt/sources.list', '/etc/apt/sources.list.d/*.list', '/etc/apt/sources.list.d/*.sources']);
  assert.deepEqual(byName('SetUnattendedUpgrades').files, ['/etc/apt/apt.conf.d/20auto-upgrades']);
  for (const n of ['PurgePackage', 'UpgradeAll', 'Autoremove', 'SearchPackages']) assert.deepEqual(byName(n).files, [], n);
});

test('package, version and search-term parameters refuse injections and patterns', () => {
  const badNames = [...INJECTIONS, 'lib*', 'hello=1.0', 'hello:amd64', 'Hello', 'h', '-o', 'a/b'];
  for (const n of ['PurgePackage', 'UnpinPackage']) for (const b of badNames) assert.equal(byName(n).params.safeParse({ package: b }).success, false, `${n} ${JSON.stringify(b)}`);
  const pin = byName('PinPackageVersion').params;
  for (const b of badNames) assert.equal(pin.safeParse({ package: b, version: '1.0-1' }).success, false, JSON.stringify(b));
  for (const v of [...INJECTIONS, '1.0*', '1.0?', '/1\\.0/', '[1]', '1.0 -o', '1.0,2', '1.0_1', 'x'.repeat(129)]) {
    assert.equal(pin.safeParse({ package: 'hello', version: v }).success, false, `version ${JSON.stringify(v)}`);
  }
  for (const v of ['2.10-3', '1:9.2p1-2+deb12u6', '0.26.5-5+deb12u1', '1.0~rc1', '20230311+deb12u1']) assert.ok(pin.safeParse({ package: 'hello', version: v }).success, v);
  const search = byName('SearchPackages').params;
  for (const q of [...INJECTIONS, 'a', '.*', 'a|b', 'A', '^x', 'x$', '[a]', '(a)', 'a\\b', 'a*', 'a?', '-x', 'x'.repeat(65)]) {
    assert.equal(search.safeParse({ query: q }).success, false, `query ${JSON.stringify(q)}`);
  }
  assert.ok(search.safeParse({ query: 'g++-12' }).success);
});

test('repository parameters: name, URL, suite, components', () => {
  const p = byName('AddRepository').params;
  const base = { name: 'example', uri: 'https://packages.example.org/debian', suite: 'bookworm', components: ['main'], key: KEY };
  assert.ok(p.safeParse(base).success);
  for (const name of [...INJECTIONS, 'Example', 'a_b', 'a.b', '-a', 'x'.repeat(49)]) assert.equal(p.safeParse({ ...base, name }).success, false, `name ${JSON.stringify(name)}`);
  for (const uri of [
    ...INJECTIONS,
    'ftp://example.org/debian',
    'file:///srv/repo',
    'http://',
    'https://user:secret@example.org/debian',
    'https://token@example.org/debian',
    'https://example.org/debian?x=1',
    'https://example.org/debian#x',
    'https://example.org/deb%20ian',
    'https://example.org/a b',
    'https://example.org/../etc',
    'https://example.org/./x',
    'https://example.org//x',
    'https://Example.org/debian',
    'https://example.org:99999/debian',
    'https://example.org:0/debian',
    'https://[zz::1]/debian',
    'https://-example.org/',
    'https://example.org/debian\\x',
    'https://example.org/$(id)',
    'https://example.org/`id`',
    'https://example.org/;rm',
    ' https://example.org/debian',
    `https://example.org/${'a'.repeat(600)}`,
  ]) {
    assert.equal(p.safeParse({ ...base, uri }).success, false, `uri ${JSON.stringify(uri)}`);
  }
  for (const uri of ['http://deb.debian.org/debian', 'https://packages.example.org/debian/', 'https://10.0.0.5:8080/apt', 'http://[2001:db8::1]/debian', 'https://example.org']) {
    assert.ok(isRepositoryUri(uri), uri);
    assert.ok(p.safeParse({ ...base, uri }).success, uri);
  }
  for (const suite of [...INJECTIONS, '../x', 'a/b', './']) assert.equal(p.safeParse({ ...base, suite }).success, false, `suite ${JSON.stringify(suite)}`);
  for (const components of [[], ['main', 'main'], Array.from({ length: 9 }, (_, i) => `c${i}`), ['main', '; rm -rf /'], ['-x'], ['a b'], 'main']) {
    assert.equal(p.safeParse({ ...base, components }).success, false, `components ${JSON.stringify(components)}`);
  }
  for (const c of INJECTIONS) assert.equal(p.safeParse({ ...base, components: [c] }).success, false, JSON.stringify(c));
  assert.ok(p.safeParse({ ...base, suite: 'bookworm-backports', components: ['main', 'contrib', 'non-free-firmware'] }).success);
  for (const name of [...INJECTIONS, 'Example']) assert.equal(byName('RemoveRepository').params.safeParse({ name }).success, false, JSON.stringify(name));
});

test('the key parameter takes exactly one ASCII-armored public key block', () => {
  const p = byName('AddRepository').params;
  const base = { name: 'example', uri: 'https://packages.example.org/debian', suite: 'bookworm', components: ['main'] };
  const refuses = (key: unknown, why: RegExp) => {
    const r = p.safeParse({ ...base, key });
    assert.equal(r.success, false, JSON.stringify(key).slice(0, 80));
    assert.match(JSON.stringify(r.error!.issues), why);
  };
  for (const i of INJECTIONS) assert.equal(p.safeParse({ ...base, key: i }).success, false, JSON.stringify(i).slice(0, 40));
  refuses(KEY.replace('PUBLIC KEY BLOCK', 'PRIVATE KEY BLOCK'), /PRIVATE key/);
  refuses(KEY.replace(/\n/g, '\r\n'), /printable ASCII/);
  refuses(KEY.replace('=7Wv+', '=7Wv/'), /checksum/);
  refuses(KEY + 'trailing text\n', /last line/);
  refuses('garbage\n' + KEY, /must begin with/);
  refuses(KEY.replace('\n\nmDME', '\nmDME'), /armor header|blank line/);
  refuses(KEY.replace('aP5tD7gK', 'aP5tD7g'), /base64|packet/);
  refuses(KEY.replace('mDMEaw', 'mDMEa$'), /line 3|should be/);
  refuses(KEY.replace('aP5tD7gK\n', 'aP5tD7gK\n$(id)\n'), /should be/);
  refuses(KEY.slice(0, -30), /./);
  refuses(KEY.replace('\n\n', '\n' + 'Comment: x\n'.repeat(7000) + '\n'), /at most 65536/);
  // Framing errors inside valid armor.
  refuses(armor(keyBytes().subarray(0, 40)), /past the end/);
  refuses(armor(Buffer.from([0x00, 0x01, 0x02])), /not an OpenPGP packet/);
  refuses(armor(packet(13, Buffer.from('uid first'))), /does not start with a public key/);
  refuses(armor(Buffer.concat([keyBytes(), packet(5, Buffer.from([4, 0, 0, 0, 0, 22, 1]))])), /secret key material/);
  refuses(armor(Buffer.concat([keyBytes(), packet(8, Buffer.from([1, 2, 3]))])), /packet type 8/);
  refuses(armor(packet(6, Buffer.from([3, 0, 0, 0, 0, 0, 1, 1]))), /version 3 keys/);
  refuses(armor(Buffer.from([0x99, 0x00])), /past the end/); // old format, 2-byte length cut short
  refuses(armor(Buffer.from([0xc6, 0xe5, 1, 2])), /partial-length/);
  refuses(armor(Buffer.from([0x9b, 1, 2])), /indeterminate/);
  refuses(armor(keyBytes(), 'PUBLIC KEY BLOCK').replace('\n-----END', '\n=AAAA\n-----END'), /checksum/);
  // A public block without the optional checksum line is fine.
  assert.ok(p.safeParse({ ...base, key: armor(keyBytes()) }).success);
  assert.ok(p.safeParse({ ...base, key: KEY.trimEnd() }).success, 'no final newline');
  assert.ok(p.safeParse({ ...base, key: KEY.replace('\n\n', '\nComment: exported by gpg\n\n') }).success, 'armor headers');
});

test('fingerprints, algorithms and user IDs are read from the packets', () => {
  const keys = parseArmoredPublicKey(KEY) as OpenPgpKey[];
  assert.deepEqual(keys, [{ version: 4, fingerprint: KEY_FPR, algorithm: 'EdDSA Ed25519', created: '2026-11-29', userIds: ['Airlock Example Repository <repo@example.org>'], subkeys: [] }]);
  // Two certificates in one block, the second with a subkey: each keeps its own.
  const sub = Buffer.from(keyBytes().subarray(2, 2 + keyBytes()[1]!));
  const two = Buffer.concat([keyBytes(), packet(6, sub), packet(14, sub)]);
  const parsed = parseArmoredPublicKey(armor(two)) as OpenPgpKey[];
  assert.equal(parsed.length, 2);
  assert.equal(parsed[1]!.fingerprint, KEY_FPR);
  assert.deepEqual(parsed[1]!.subkeys, [{ fingerprint: KEY_FPR, algorithm: 'EdDSA Ed25519' }]);
  assert.deepEqual(parsed[1]!.userIds, []);
  // An RSA key of 1024 bits and a v6 key (SHA-256 fingerprint).
  const rsa = Buffer.concat([Buffer.from([4, 0x60, 0, 0, 0, 1, 0x04, 0x00]), Buffer.alloc(128, 0xff), Buffer.from([0, 17, 1, 0, 1])]);
  const rsaKey = (parseArmoredPublicKey(armor(packet(6, rsa))) as OpenPgpKey[])[0]!;
  assert.equal(rsaKey.algorithm, 'RSA 1024');
  assert.equal(rsaKey.fingerprint, createHash('sha1').update(Buffer.from([0x99, 0, rsa.length])).update(rsa).digest('hex').toUpperCase());
  const v6 = Buffer.concat([Buffer.from([6, 0x60, 0, 0, 0, 27, 0, 0, 0, 32]), Buffer.alloc(32, 7)]);
  const v6Key = (parseArmoredPublicKey(armor(packet(6, v6))) as OpenPgpKey[])[0]!;
  assert.equal(v6Key.algorithm, 'Ed25519');
  assert.equal(v6Key.fingerprint.length, 64);
  // Control characters in a user ID never reach the preview.
  const uid = (parseArmoredPublicKey(armor(Buffer.concat([keyBytes(), packet(13, Buffer.from('evil\u001b[2J\nname'))]))) as OpenPgpKey[])[0]!.userIds[1];
  assert.equal(uid, 'evil\ufffd[2J\ufffdname');
});

test('PurgePackage: RemovePackage refusals, apt-get purge of the exact version, and leftovers of removed packages', async () => {
  const host = aptHost({ dpkg: { hdparm: { version: '9.65+ds-1' } }, sim: { remove: ok('Remv hdparm [9.65+ds-1]\n') } });
  const { steps, preview } = await run('PurgePackage', { package: 'hdparm' }, host);
  assert.deepEqual(steps, [{ kind: 'command', program: 'apt-get', args: ['purge', '-y', ...DPKG, '--', 'hdparm=9.65+ds-1'], resource: 'dpkg', timeoutMs: 600_000 }]);
  assert.deepEqual((preview.change as { purge: string[] }).purge, ['hdparm 9.65+ds-1']);
  assert.ok(host.calls.some(([p, a]) => p === 'apt-get' && a.join(' ') === '-s remove -- hdparm=9.65+ds-1'), 'simulated first');

  // dpkg state "rc": only configuration files left.
  const rc = aptHost({ dpkg: { hdparm: { version: '9.65+ds-1', want: 'deinstall', status: 'config-files' } } });
  const left = await run('PurgePackage', { package: 'hdparm' }, rc);
  assert.deepEqual(left.steps, [{ kind: 'command', program: 'apt-get', args: ['purge', '-y', ...DPKG, '--', 'hdparm=9.65+ds-1'], resource: 'dpkg', timeoutMs: 600_000 }]);
  assert.match(left.preview.summary, /configuration files hdparm 9\.65\+ds-1 left behind/);

  for (const name of PROTECTED_PACKAGES) {
    assert.equal((await refusal('PurgePackage', { package: name }, aptHost({ dpkg: { [name]: { version: '1.0' } } }))).code, 'protected_package', name);
    assert.equal((await refusal('PurgePackage', { package: name }, aptHost({ dpkg: { [name]: { version: '1.0', status: 'config-files' } } }))).code, 'protected_package', `${name} rc`);
  }
  assert.match((await refusal('PurgePackage', { package: 'bash' }, aptHost({ dpkg: { bash: { version: '5.2', essential: true } } }))).message, /essential/);
  await assertNoChange(run('PurgePackage', { package: 'hello' }, aptHost()), /not|no /);
  const held = aptHost({ dpkg: { hello: { version: '2.10-3', want: 'hold' } }, sim: { remove: ok('Remv hello [2.10-3]\n') } });
  assert.equal((await refusal('PurgePackage', { package: 'hello' }, held)).code, 'held');
  const cascade = aptHost({ dpkg: { libfoo: { version: '1' }, sudo: { version: '1.9' } }, sim: { remove: ok('Remv sudo [1.9]\nRemv libfoo [1]\n') } });
  assert.match((await refusal('PurgePackage', { package: 'libfoo' }, cascade)).message, /would remove sudo/);
  const odd = aptHost({ dpkg: { weird: { version: '1 -o x', status: 'config-files' } } });
  assert.equal((await refusal('PurgePackage', { package: 'weird' }, odd)).code, 'odd_version');
});

test('UpgradeAll: the previewed list is the change, plain upgrade with new and removed packages forced off', async () => {
  const sim = [
    'The following packages have been kept back:',
    '  linux-image-amd64 foo',
    'The following packages will be upgraded:',
    '  kitty-terminfo libssl3',
    'Inst kitty-terminfo [0.26.5-5] (0.26.5-5+deb12u1 Debian-Security:12/oldstable-security [all])',
    'Inst libssl3 [3.0.19-1~deb12u2] (3.0.22-1~deb12u2 Debian:12.15/oldstable [amd64])',
    'Conf kitty-terminfo (0.26.5-5+deb12u1 Debian-Security:12/oldstable-security [all])',
  ].join('\n');
  const host = aptHost({ sim: { upgrade: ok(sim) } });
  const { steps, preview } = await run('UpgradeAll', {}, host);
  const opts = ['-o', 'APT::Get::Upgrade-Allow-New=false', '-o', 'APT::Get::AutomaticRemove=false', '--no-remove'];
  assert.deepEqual(steps, [{ kind: 'command', program: 'apt-get', args: ['upgrade', '-y', ...opts, ...DPKG], resource: 'dpkg', timeoutMs: 1_800_000 }]);
  assert.deepEqual(preview.change, { upgrade: ['kitty-terminfo 0.26.5-5 -> 0.26.5-5+deb12u1', 'libssl3 3.0.19-1~deb12u2 -> 3.0.22-1~deb12u2'], install: [], remove: [] });
  assert.match(preview.warnings!.join('\n'), /kept back .*linux-image-amd64, foo/);
  assert.deepEqual(host.calls.find(([p]) => p === 'apt-get')![1], ['-s', 'upgrade', ...opts]);
  assert.deepEqual(parseKeptBack(sim), ['linux-image-amd64', 'foo']);

  await assertNoChange(run('UpgradeAll', {}, aptHost({ sim: { upgrade: ok('0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n') } })), /no installed package has a newer candidate/);
  assert.equal((await refusal('UpgradeAll', {}, aptHost({ sim: { upgrade: { code: 100, stdout: '', stderr: 'E: dpkg was interrupted\n' } } }))).code, 'apt_refuses');
  assert.equal((await refusal('UpgradeAll', {}, aptHost({ sim: { upgrade: ok('Inst a [1] (2 x)\nRemv b [1]\n') } }))).code, 'unexpected_changes');
  const reboot = await run('UpgradeAll', {}, aptHost({ sim: { upgrade: ok('Inst libc6 [2.36-9] (2.36-9+deb12u1 x)\n') } }));
  assert.match(reboot.preview.warnings!.join(), /libc6 only take full effect after a reboot/);
});

const PKG_LINE = '--showformat=${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\\n';
const reinstall = (...debs: string[]) => ({ kind: 'command', program: 'dpkg', args: ['--force-confdef', '--force-confold', '--install', '--', ...debs], paths: debs, resource: 'dpkg', timeoutMs: 600_000 });
const probesOf = (name: string, cur: unknown) => {
  const a = byName(name);
  return !a.readOnly && a.rollback.class !== 'none' ? a.rollback.state!({}, cur) : null;
};

test('UpgradeAll and Autoremove are undone from the .deb files apt kept of the versions they replace, or say a revert will not be possible', async () => {
  const sim = 'Inst kitty-terminfo [0.26.5-5] (0.26.5-5+deb12u1 Debian-Security:12/oldstable-security [all])\n';
  const dpkg = { 'kitty-terminfo': { version: '0.26.5-5' } };
  const h = aptHost({ sim: { upgrade: ok(sim) }, dpkg, debs: ['/var/cache/apt/archives/kitty-terminfo_0.26.5-5_amd64.deb'] });
  const up = await run('UpgradeAll', {}, h);
  const opts = ['-o', 'APT::Get::Upgrade-Allow-New=false', '-o', 'APT::Get::AutomaticRemove=false', '--no-remove'];
  // An upgrade keeps apt's marks, and so does dpkg putting the former version back: no step for them.
  assert.deepEqual(up.steps, [{ kind: 'command', program: 'apt-get', args: ['upgrade', '-y', ...opts, ...DPKG], resource: 'dpkg', timeoutMs: 1_800_000, undo: reinstall('/var/cache/apt/archives/kitty-terminfo_0.26.5-5_amd64.deb') }]);
  assert.doesNotMatch(up.preview.warnings!.join('\n'), /revert/);
  assert.deepEqual(probesOf('UpgradeAll', up.cur), [
    { program: 'dpkg-query', args: ['-W', PKG_LINE, '--', 'kitty-terminfo'] },
    { program: 'apt-mark', args: ['showauto', '--', 'kitty-terminfo'] },
    { program: 'ls', args: ['-1', '--', '/var/cache/apt/archives/kitty-terminfo_0.26.5-5_amd64.deb'] },
  ]);
  const lost = await run('UpgradeAll', {}, aptHost({ sim: { upgrade: ok(sim) }, dpkg }));
  assert.equal((lost.steps[0] as { undo?: unknown }).undo, undefined);
  assert.match(lost.preview.warnings!.join('\n'), /a revert will not be possible: apt no longer has the \.deb of kitty-terminfo 0\.26\.5-5/);

  // Autoremove: every package it removes was installed as a dependency; the mark is set again after the reinstall.
  const lib = '/var/cache/apt/archives/libfstrcmp0_0.7.D001-3_amd64.deb';
  const auto = await run('Autoremove', {}, aptHost({ dpkg: { libfstrcmp0: { version: '0.7.D001-3' } }, sim: { autoremove: ok('Remv libfstrcmp0 [0.7.D001-3]\n') }, auto: ['libfstrcmp0'], debs: [lib] }));
  assert.deepEqual(auto.steps, [
    { kind: 'command', program: 'apt-mark', args: ['showauto', '--', 'libfstrcmp0'], undo: { kind: 'command', program: 'apt-mark', args: ['auto', '--', 'libfstrcmp0'], resource: 'dpkg' } },
    { kind: 'command', program: 'apt-get', args: ['autoremove', '-y', ...DPKG], resource: 'dpkg', timeoutMs: 600_000, undo: reinstall(lib) },
  ]);
  assert.deepEqual(probesOf('Autoremove', auto.cur), [
    { program: 'dpkg-query', args: ['-W', PKG_LINE, '--', 'libfstrcmp0'] },
    { program: 'apt-mark', args: ['showauto', '--', 'libfstrcmp0'] },
    { program: 'ls', args: ['-1', '--', lib] },
  ]);
});

test('PurgePackage cannot be undone, and says why', () => {
  const purge = byName('PurgePackage');
  assert.ok(!purge.readOnly && purge.rollback.class === 'none');
  assert.match(!purge.readOnly && purge.rollback.class === 'none' ? purge.rollback.reason : '', /configuration files/);
});

test('Autoremove: the removal set is the change; protected, essential and required packages refuse it', async () => {
  const host = aptHost({ dpkg: { libfstrcmp0: { version: '0.7.D001-3' } }, sim: { autoremove: ok('Remv libfstrcmp0 [0.7.D001-3]\n') } });
  const { steps, preview } = await run('Autoremove', {}, host);
  assert.deepEqual(steps, [{ kind: 'command', program: 'apt-get', args: ['autoremove', '-y', ...DPKG], resource: 'dpkg', timeoutMs: 600_000 }]);
  assert.deepEqual(preview.change, { remove: ['libfstrcmp0 0.7.D001-3'], keeps: 'configuration files (no purge)' });
  await assertNoChange(run('Autoremove', {}, aptHost({ sim: { autoremove: ok('0 upgraded, 0 newly installed, 0 to remove\n') } })), /nothing to autoremove/);
  for (const [name, row] of [
    ['sudo', { version: '1' }],
    ['coreutils', { version: '9', essential: true }],
    ['mawk', { version: '1', priority: 'required' }],
  ] as const) {
    const h = aptHost({ dpkg: { [name]: row, libx: { version: '1' } }, sim: { autoremove: ok(`Remv libx [1]\nRemv ${name} [${row.version}]\n`) } });
    const e = await refusal('Autoremove', {}, h);
    assert.equal(e.code, 'protected_package', name);
    assert.match(e.message, new RegExp(name));
  }
  const important = await run('Autoremove', {}, aptHost({ dpkg: { less: { version: '1', priority: 'important' } }, sim: { autoremove: ok('Remv less [1]\n') } }));
  assert.match(important.preview.warnings!.join(), /priority-important package less/);
});

test('PinPackageVersion writes an Airlock preferences file apt really reads, then has apt parse it', async () => {
  const pol = policyText('kitty-terminfo', null, '0.26.5-5+deb12u1', [
    ['0.26.5-5+deb12u1', 500],
    ['0.26.5-5', 500],
  ]);
  const host = aptHost({ policy: { 'kitty-terminfo': pol }, ls: { '/etc/apt/preferences.d': ['nodejs'] }, tree: { '/etc/apt/preferences.d/nodejs': 'Package: nodejs\nPin: origin x\nPin-Priority: 600\n' } });
  const { steps, preview } = await run('PinPackageVersion', { package: 'kitty-terminfo', version: '0.26.5-5' }, host);
  const content = 'Explanation: written by Airlock (PinPackageVersion); remove it with UnpinPackage\nPackage: kitty-terminfo\nPin: version 0.26.5-5\nPin-Priority: 1001\n';
  assert.deepEqual(steps, [
    { kind: 'fileWrite', path: '/etc/apt/preferences.d/60-airlock-kitty-terminfo.pref', content, mode: 0o644, parent: { mode: 0o755 } },
    { kind: 'command', program: 'apt-cache', args: ['policy', '--', 'kitty-terminfo'], noUndo: 'changes_nothing' },
  ]);
  assert.deepEqual((preview.change as { candidate: unknown }).candidate, { from: '0.26.5-5+deb12u1', to: '0.26.5-5' });
  assert.deepEqual(preview.warnings, []);
  // '+' and '.' would make apt skip the file silently: the name ends in .pref and '+' becomes '_'.
  assert.equal(pinFile('libstdc++6'), '/etc/apt/preferences.d/60-airlock-libstdc__6.pref');
  assert.equal(pinFile('python3.11'), '/etc/apt/preferences.d/60-airlock-python3.11.pref');
  assert.deepEqual(parseVersionTable('kitty-terminfo', `other:\n  Version table:\n     9 500\n${pol}`), [
    { version: '0.26.5-5+deb12u1', priority: 500 },
    { version: '0.26.5-5', priority: 500 },
  ]);

  // Installed newer: a downgrade, said so; another file pinning the same package: said so.
  const installed = aptHost({
    policy: { 'kitty-terminfo': pol.replace('Installed: (none)', 'Installed: 0.26.5-5+deb12u1') },
    ls: { '/etc/apt/preferences.d': ['90local', 'ignored.txt'] },
    tree: { '/etc/apt/preferences.d/90local': 'Package: foo kitty-terminfo\nPin: release a=stable\nPin-Priority: 900\n', '/etc/apt/preferences.d/ignored.txt': 'Package: kitty-terminfo\n' },
    newer: (a, b) => a === '0.26.5-5+deb12u1' && b === '0.26.5-5',
  });
  const down = await run('PinPackageVersion', { package: 'kitty-terminfo', version: '0.26.5-5' }, installed);
  assert.match(down.preview.warnings!.join('\n'), /DOWNGRADES it to 0\.26\.5-5/);
  assert.match(down.preview.warnings!.join('\n'), /90local also has a stanza for kitty-terminfo/);
  assert.doesNotMatch(down.preview.warnings!.join('\n'), /ignored\.txt/);
  assert.ok(installed.calls.some(([p, a]) => p === 'dpkg' && a.join(' ') === '--compare-versions 0.26.5-5+deb12u1 gt 0.26.5-5'));

  assert.equal((await refusal('PinPackageVersion', { package: 'nosuch', version: '1.0' }, aptHost())).code, 'no_such_package');
  assert.equal((await refusal('PinPackageVersion', { package: 'kitty-terminfo', version: '9.9' }, host)).code, 'no_such_version');
  const pinned = aptHost({ policy: { 'kitty-terminfo': pol }, tree: { '/etc/apt/preferences.d/60-airlock-kitty-terminfo.pref': content } });
  await assertNoChange(run('PinPackageVersion', { package: 'kitty-terminfo', version: '0.26.5-5' }, pinned), /already/);
  // Re-pinning to another version replaces the file, and says what it replaces.
  const repin = await run('PinPackageVersion', { package: 'kitty-terminfo', version: '0.26.5-5+deb12u1' }, pinned);
  assert.equal((repin.preview.change as { replaces_pin: string }).replaces_pin, '0.26.5-5');
});

test('UnpinPackage deletes only Airlock\'s pin file', async () => {
  const path = '/etc/apt/preferences.d/60-airlock-kitty-terminfo.pref';
  const pol = policyText('kitty-terminfo', null, '0.26.5-5', [['0.26.5-5', 1001]]);
  const host = aptHost({ policy: { 'kitty-terminfo': pol }, tree: { [path]: 'Package: kitty-terminfo\nPin: version 0.26.5-5\nPin-Priority: 1001\n' } });
  const { steps, preview } = await run('UnpinPackage', { package: 'kitty-terminfo' }, host);
  assert.deepEqual(steps, [
    { kind: 'fileDelete', path },
    { kind: 'command', program: 'apt-cache', args: ['policy', '--', 'kitty-terminfo'], noUndo: 'changes_nothing' },
  ]);
  assert.equal((preview.change as { pinned_version: string }).pinned_version, '0.26.5-5');
  const e = await refusal('UnpinPackage', { package: 'nodejs' }, aptHost({ ls: { '/etc/apt/preferences.d': ['nodejs'] }, tree: { '/etc/apt/preferences.d/nodejs': 'Package: nodejs\n' } }));
  assert.equal(e.code, 'not_pinned');
  assert.match(e.hint!, /preferences\.d\/nodejs are not Airlock's/);
});

test('SearchPackages passes the term as a literal pattern after --', async () => {
  assert.deepEqual((await run('SearchPackages', { query: 'g++-12' }, aptHost())).steps, [{ kind: 'command', program: 'apt-cache', args: ['search', '--names-only', '--', 'g\\+\\+-12'] }]);
  assert.equal(literalPattern('libc6.1'), 'libc6\\.1');
  assert.equal(literalPattern('nginx'), 'nginx');
});

test('ListRepositories scans the sources apt reads that anyone may read', async () => {
  const host = aptHost({
    ls: { '/etc/apt/sources.list.d': ['debian.sources', 'google.list.disabled', 'secret.list', 'link.list', 'extra.list'] },
    tree: {
      '/etc/apt/sources.list': 'deb http://deb.debian.org/debian bookworm main\n',
      '/etc/apt/sources.list.d/debian.sources': 'Types: deb\n',
      '/etc/apt/sources.list.d/google.list.disabled': 'deb x\n',
      '/etc/apt/sources.list.d/secret.list': { file: 'deb https://u:p@x/ y z\n', mode: 0o600 },
      '/etc/apt/sources.list.d/link.list': { link: '/tmp/x' },
      '/etc/apt/sources.list.d/extra.list': 'deb http://x/ y z\n',
    },
  });
  const { steps, preview } = await run('ListRepositories', {}, host);
  assert.deepEqual(steps, [
    { kind: 'fileScan', path: '/etc/apt/sources.list' },
    { kind: 'fileScan', path: '/etc/apt/sources.list.d/debian.sources' },
    { kind: 'fileScan', path: '/etc/apt/sources.list.d/extra.list' },
  ]);
  const w = preview.warnings!.join('\n');
  assert.match(w, /secret\.list \(readable by root only/);
  assert.match(w, /link\.list \(not a regular file\)/);
  assert.match(w, /apt ignores .*google\.list\.disabled/);
  assert.equal((await refusal('ListRepositories', {}, aptHost())).code, 'no_sources');
});

test('AddRepository writes the keyring, has gpg read it, writes the deb822 source, has apt read it', async () => {
  const params = { name: 'example', uri: 'https://packages.example.org/debian', suite: 'bookworm', components: ['main', 'contrib'], key: KEY };
  const host = aptHost({ gpg: true, printUris: ok("'http://deb.debian.org/debian/dists/bookworm/InRelease' deb.debian.org_debian_dists_bookworm_InRelease 0 \n") });
  const { steps, preview } = await run('AddRepository', params, host);
  const sources = '# Added by Airlock (AddRepository example); remove it with RemoveRepository.\nTypes: deb\nURIs: https://packages.example.org/debian\nSuites: bookworm\nComponents: main contrib\nSigned-By: /etc/apt/keyrings/airlock-example.asc\n';
  assert.equal(sourcesContent(params), sources);
  assert.deepEqual(steps, [
    { kind: 'fileWrite', path: '/etc/apt/keyrings/airlock-example.asc', content: KEY, mode: 0o644, parent: { mode: 0o755 } },
    {
      kind: 'command',
      program: 'gpg',
      args: ['--batch', '--no-options', '--homedir', '/etc/apt/keyrings', '--no-permission-warning', '--no-default-keyring', '--keyring', '/dev/null', '--trust-model', 'always', '--no-auto-check-trustdb', '--show-keys', '--with-colons', '--', '/etc/apt/keyrings/airlock-example.asc'],
      noUndo: 'changes_nothing',
    },
    { kind: 'fileWrite', path: '/etc/apt/sources.list.d/airlock-example.sources', content: sources, mode: 0o644, parent: { mode: 0o755 } },
    { kind: 'command', program: 'apt-get', args: ['indextargets', '--format', '$(REPO_URI) $(RELEASE) $(COMPONENT) $(TARGET_OF)', 'Sourcesentry: /etc/apt/sources.list.d/airlock-example.sources:1'], noUndo: 'changes_nothing' },
  ]);
  const change = preview.change as { keys: { fingerprint: string }[]; keyring_sha256: string };
  assert.equal(change.keys[0]!.fingerprint, KEY_FPR);
  assert.equal(change.keyring_sha256, createHash('sha256').update(KEY).digest('hex'));
  assert.match(preview.summary, new RegExp(KEY_FPR));
  assert.deepEqual(preview.warnings, []);

  // No gpg: no gpg step, and the preview says the key was only read by Airlock.
  const nogpg = await run('AddRepository', { ...params, uri: 'http://packages.example.org/debian', key: KEY.trimEnd() }, aptHost());
  assert.deepEqual(
    nogpg.steps.map((s) => (s.kind === 'command' ? s.program : s.kind)),
    ['fileWrite', 'fileWrite', 'apt-get'],
  );
  assert.equal((nogpg.steps[0] as { content: string }).content, KEY, 'the keyring ends with a newline');
  assert.match(nogpg.preview.warnings!.join('\n'), /gpg is not installed/);
  assert.match(nogpg.preview.warnings!.join('\n'), /plain http/);

  const taken = aptHost({ tree: { '/etc/apt/keyrings/airlock-example.asc': KEY } });
  assert.equal((await refusal('AddRepository', params, taken)).code, 'already_exists');
  const dup = aptHost({ printUris: ok("'https://packages.example.org/debian/dists/bookworm/InRelease' x 0 \n") });
  assert.equal((await refusal('AddRepository', params, dup)).code, 'already_configured');
  assert.ok((await run('AddRepository', { ...params, suite: 'trixie' }, dup)).steps.length > 0, 'another suite of the same URI is another source');
  const broken = aptHost({ printUris: { code: 100, stdout: '', stderr: 'E: Conflicting values set for option Signed-By\n' } });
  assert.equal((await refusal('AddRepository', params, broken)).code, 'sources_unreadable');
  // The state the requester sees holds a yes/no about other sources, never their URIs.
  const cur = (await run('AddRepository', params, host)).cur as Record<string, unknown>;
  assert.equal(cur.alreadyConfigured, false);
  assert.doesNotMatch(JSON.stringify(cur), /deb\.debian\.org/);
});

test('RemoveRepository deletes only the airlock-NAME files that exist', async () => {
  const sources = '# Added by Airlock\nTypes: deb\nURIs: https://user:pw@packages.example.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /etc/apt/keyrings/airlock-example.asc\n';
  const host = aptHost({ tree: { '/etc/apt/sources.list.d/airlock-example.sources': sources, '/etc/apt/keyrings/airlock-example.asc': KEY } });
  const { steps, preview } = await run('RemoveRepository', { name: 'example' }, host);
  assert.deepEqual(steps, [
    { kind: 'fileDelete', path: '/etc/apt/sources.list.d/airlock-example.sources' },
    { kind: 'fileDelete', path: '/etc/apt/keyrings/airlock-example.asc' },
  ]);
  assert.deepEqual((preview.change as { uris: string[] }).uris, ['https://packages.example.org/debian'], 'credentials are not shown');
  assert.deepEqual((preview.change as { key_fingerprints: string[] }).key_fingerprints, [KEY_FPR]);
  const onlyKey = aptHost({ tree: { '/etc/apt/keyrings/airlock-example.asc': KEY } });
  assert.deepEqual((await run('RemoveRepository', { name: 'example' }, onlyKey)).steps, [{ kind: 'fileDelete', path: '/etc/apt/keyrings/airlock-example.asc' }]);
  await assertNoChange(run('RemoveRepository', { name: 'debian' }, aptHost({ tree: { '/etc/apt/sources.list.d/debian.sources': 'x' } })), /not|no /);
});

test('unattended upgrades: status reads, the switch rewrites only its two settings', async () => {
  const AUTO = '/etc/apt/apt.conf.d/20auto-upgrades';
  const status = await run('UnattendedUpgradesStatus', {}, aptHost({ tree: { '/etc/apt/apt.conf.d/50unattended-upgrades': 'x' } }));
  assert.deepEqual(status.steps, [
    { kind: 'command', program: 'dpkg-query', args: ['-W', '--showformat=${db:Status-Abbrev} ${Package} ${Version}\n', '--', 'unattended-upgrades'], okCodes: [0, 1] },
    { kind: 'command', program: 'apt-config', args: ['dump', '--format', '%f=%v%n', 'APT::Periodic'] },
    { kind: 'fileScan', path: '/etc/apt/apt.conf.d/50unattended-upgrades' },
  ]);

  const installed = { 'unattended-upgrades': { version: '2.9.1+nmu3' } };
  const on = 'APT::Periodic::Update-Package-Lists "1";\nAPT::Periodic::Unattended-Upgrade "1";\n';
  const host = aptHost({ dpkg: installed, tree: { [AUTO]: on }, aptConfig: 'APT::Periodic=\nAPT::Periodic::Update-Package-Lists=1\nAPT::Periodic::Unattended-Upgrade=1\n' });
  const { steps, preview } = await run('SetUnattendedUpgrades', { enabled: false }, host);
  const off = 'APT::Periodic::Update-Package-Lists "0";\nAPT::Periodic::Unattended-Upgrade "0";\n';
  assert.deepEqual(steps, [
    { kind: 'fileWrite', path: AUTO, content: off, mode: 0o644 },
    { kind: 'command', program: 'apt-config', args: ['dump', '--format', '%f=%v%n', 'APT::Periodic'], noUndo: 'changes_nothing' },
  ]);
  assert.deepEqual((preview.change as { from: string[] }).from, ['APT::Periodic::Update-Package-Lists=1', 'APT::Periodic::Unattended-Upgrade=1']);
  await assertNoChange(run('SetUnattendedUpgrades', { enabled: true }, host), /already/);
  assert.equal((await refusal('SetUnattendedUpgrades', { enabled: true }, aptHost())).code, 'not_installed');
  // Switching off needs no package (apt's own daily job reads Update-Package-Lists too).
  assert.equal(((await run('SetUnattendedUpgrades', { enabled: false }, aptHost())).steps[0] as { content: string }).content, off);
  // Another file overriding the setting is reported.
  const overridden = aptHost({ dpkg: installed, tree: { [AUTO]: off }, aptConfig: 'APT::Periodic::Update-Package-Lists=0\nAPT::Periodic::Unattended-Upgrade=1\n' });
  await assertNoChange(run('SetUnattendedUpgrades', { enabled: false }, overridden), /already/);
  const warn = await run('SetUnattendedUpgrades', { enabled: true }, aptHost({ dpkg: installed, tree: { [AUTO]: off }, aptConfig: 'APT::Periodic::Unattended-Upgrade=1\nAPT::Periodic::Update-Package-Lists=7\n' }));
  assert.match(warn.preview.warnings!.join('\n'), /another apt\.conf\.d file overrides APT::Periodic::Update-Package-Lists/);
  // Other lines survive; values are rewritten in place; a missing setting is appended.
  assert.equal(
    autoUpgradesText('// local\nAPT::Periodic::AutocleanInterval "7";\n  APT::Periodic::Unattended-Upgrade   "1" ;\n', false),
    '// local\nAPT::Periodic::AutocleanInterval "7";\nAPT::Periodic::Unattended-Upgrade "0";\nAPT::Periodic::Update-Package-Lists "0";\n',
  );
  assert.equal(autoUpgradesText(null, true), on);
  assert.equal(autoUpgradesText('', true), on);
  for (const v of ['yes', 1, 'true', null]) assert.equal(byName('SetUnattendedUpgrades').params.safeParse({ enabled: v }).success, false, String(v));
});
