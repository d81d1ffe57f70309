import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import * as refresh from '../../src/catalogue/families/packages/refresh.js';
import * as install from '../../src/catalogue/families/packages/install.js';
import * as remove from '../../src/catalogue/families/packages/remove.js';
import * as query from '../../src/catalogue/families/packages/query.js';
import * as contents from '../../src/catalogue/families/packages/contents.js';
import * as hold from '../../src/catalogue/families/packages/hold.js';
import { parsePolicy, parseSimulation } from '../../src/catalogue/lib/apt.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS } from './catalogue-fixture-host.js';
import { parseDpkgEntries } from '../../src/catalogue/lib/apt.js';
import { PROTECTED_PACKAGES } from '../../src/catalogue/lib/guards.js';

// The actions once in families/packages.ts: lists, install, remove, reads and holds.
const actions = [refresh, install, remove, query, contents, hold].flatMap((m) => Object.values(m)).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;
const ok = (stdout: string): CommandOutput => ({ code: 0, stdout, stderr: '' });

/** A fake dpkg/apt: `installed` maps name -> [version, want, essential, priority]; `candidates` maps name -> version. */
function aptHost(opts: {
  installed?: Record<string, [string, string, 'yes' | 'no', string]>;
  candidates?: Record<string, string | null>;
  simulate?: (verb: string, spec: string) => CommandOutput;
  /** Packages apt-mark showauto lists. */
  auto?: string[];
  /** .deb files in apt's archive cache. */
  debs?: string[];
}) {
  const installed = opts.installed ?? {};
  const candidates = opts.candidates ?? {};
  return new FixtureHost(Object.fromEntries((opts.debs ?? []).map((d) => [d, 'a .deb'])), (program: ProgramName, args: string[]) => {
    const operands = args.slice(args.indexOf('--') + 1);
    if (program === 'dpkg' && args[0] === '--print-architecture') return ok('amd64\n');
    if (program === 'apt-mark' && args[0] === 'showauto') return ok(operands.filter((n) => opts.auto?.includes(n)).map((n) => `${n}\n`).join(''));
    if (program === 'dpkg-query') {
      const lines = operands.filter((n) => installed[n]).map((n) => {
        const [v, want, ess, prio] = installed[n]!;
        return [n, 'amd64', v, want, 'installed', ess, prio].join('\t') + '\n';
      });
      return { code: lines.length === operands.length ? 0 : 1, stdout: lines.join(''), stderr: '' };
    }
    if (program === 'apt-cache' && args[0] === 'policy') {
      const n = operands[0]!;
      if (!(n in candidates) && !installed[n]) return ok('');
      return ok(`${n}:\n  Installed: ${installed[n]?.[0] ?? '(none)'}\n  Candidate: ${candidates[n] ?? '(none)'}\n  Version table:\n`);
    }
    if (program === 'apt-get' && args[0] === '-s') return opts.simulate!(args[1]!, operands[0]!);
    return { code: 127, stdout: '', stderr: `unscripted ${program} ${args.join(' ')}` };
  });
}

async function run(name: string, raw: Record<string, unknown>, host: FixtureHost) {
  const a = byName(name);
  const p = a.params.parse(raw);
  const cur = await a.current(p, host);
  checked(a, p, cur);
  return { steps: a.mechanism(p, cur), preview: a.preview(p, cur) };
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

test('package actions: names, risks, declarations', () => {
  const risks = Object.fromEntries(actions.map((a) => [a.name, a.risk]));
  assert.deepEqual(risks, {
    AptUpdate: 'medium',
    InstallPackage: 'medium',
    RemovePackage: 'high',
    ListInstalledPackages: 'low',
    ListUpgradable: 'low',
    PackagePolicy: 'low',
    PackageInfo: 'low',
    HoldPackage: 'medium',
    UnholdPackage: 'medium',
    ListPackageFiles: 'low',
    WhichPackageOwns: 'low',
    VerifyPackage: 'low',
  });
  for (const a of actions) {
    assert.equal(a.family, 'packages');
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
    assert.equal(a.readOnly, a.risk === 'low', `${a.name} readOnly`);
    assert.deepEqual(a.files, [], `${a.name} touches no file directly`);
  }
});

test('package names refuse injections, patterns and unknown keys', async () => {
  const withPackage = actions.filter((a) => a.params.safeParse({ package: 'hello' }).success);
  assert.equal(withPackage.length, 8);
  const bad = [...INJECTIONS, 'lib*', 'lib?', '[a]*', 'hello=1.0', 'hello:amd64', '^lib', 'lib$', 'h', '-o', '--force-yes', 'a/b', './x', 'x'.repeat(101)];
  for (const a of withPackage) {
    for (const b of bad) assert.equal(a.params.safeParse({ package: b }).success, false, `${a.name} ${JSON.stringify(b)}`);
    assert.equal(a.params.safeParse({ package: 'hello', extra: 1 }).success, false, 'strict');
    assert.equal(a.params.safeParse({}).success, false, 'package required');
    assert.equal(a.params.safeParse({ package: ['hello'] }).success, false);
  }
  // RPM names may have capitals and '_' (NetworkManager): the schema admits them, a Debian host refuses them before running anything.
  for (const a of withPackage.filter((x) => x.platforms.includes('fedora'))) {
    assert.equal(a.params.safeParse({ package: 'NetworkManager' }).success, true, a.name);
    const host = aptHost({});
    assert.equal((await refusal(a.name, { package: 'NetworkManager' }, host)).code, 'bad_params', a.name);
    assert.deepEqual(host.calls, [], `${a.name} ran nothing`);
  }
  for (const n of ['HoldPackage', 'UnholdPackage']) assert.equal(byName(n).params.safeParse({ package: 'Hello' }).success, false, `${n} is apt-only: Debian names`);
  for (const a of actions.filter((x) => !withPackage.includes(x) && x.name !== 'WhichPackageOwns')) {
    assert.equal(a.params.safeParse({}).success, true);
    assert.equal(a.params.safeParse({ package: 'hello' }).success, false, `${a.name} takes no parameter`);
  }
});

test('parsers read dpkg-query, apt-cache policy and apt-get -s output', () => {
  assert.deepEqual(parseDpkgEntries('bash\tamd64\t5.2\tinstall\tinstalled\tyes\trequired\n\nbad line\n'), [
    { name: 'bash', arch: 'amd64', version: '5.2', want: 'install', status: 'installed', essential: true, priority: 'required' },
  ]);
  const policy = 'ibus-libzhuyin:\n  Installed: (none)\n  Candidate: 1.0\nhello:\n  Installed: (none)\n  Candidate: 2.10-3\n  Version table:\n     2.10-3 500\n';
  assert.deepEqual(parsePolicy('hello', policy), { known: true, installed: null, candidate: '2.10-3' });
  // apt's regex fallback answers for other packages: that is not "lib." itself.
  assert.deepEqual(parsePolicy('lib.', 'libz1:\n  Installed: 1\n  Candidate: 1\n'), { known: false, installed: null, candidate: null });
  assert.deepEqual(parsePolicy('awk', 'awk:\n  Installed: (none)\n  Candidate: (none)\n  Version table:\n'), { known: true, installed: null, candidate: null });
  const sim = [
    'The following NEW packages will be installed:',
    'Inst libtext-charwidth-perl (0.04-11 Debian:12.15/oldstable [amd64])',
    'Inst libssl3 [3.0.1] (3.0.2 Debian-Security:12/oldstable-security [amd64])',
    'Inst cowsay (3.03+dfsg2-8 Debian:12.15/oldstable [all])',
    'Conf cowsay (3.03+dfsg2-8 Debian:12.15/oldstable [all])',
    'Remv hello [2.10-3]',
    'Purg foo:i386 [1.0]',
  ].join('\n');
  assert.deepEqual(parseSimulation(sim), {
    install: [
      { name: 'libtext-charwidth-perl', version: '0.04-11' },
      { name: 'cowsay', version: '3.03+dfsg2-8' },
    ],
    upgrade: [{ name: 'libssl3', from: '3.0.1', to: '3.0.2' }],
    remove: [
      { name: 'hello', version: '2.10-3' },
      { name: 'foo:i386', version: '1.0' },
    ],
  });
});

test('InstallPackage pins the previewed candidate and never removes', async () => {
  const host = aptHost({
    candidates: { cowsay: '3.03+dfsg2-8' },
    simulate: () => ok('Inst libtext-charwidth-perl (0.04-11 Debian [amd64])\nInst cowsay (3.03+dfsg2-8 Debian [all])\n'),
  });
  const { steps, preview } = await run('InstallPackage', { package: 'cowsay' }, host);
  assert.deepEqual(steps, [{ ...INSTALL_COWSAY, undo: { kind: 'command', program: 'dpkg', args: ['--purge', '--', 'libtext-charwidth-perl', 'cowsay'], resource: 'dpkg', timeoutMs: 600_000 } }]);
  assert.deepEqual((preview.change as { install: string[] }).install, ['libtext-charwidth-perl 0.04-11', 'cowsay 3.03+dfsg2-8']);
  assert.match(preview.summary, /cowsay 3\.03\+dfsg2-8 with 1 new dependency/);
  // The simulation used the same options and the same pinned spec.
  assert.ok(host.calls.some(([p, a]) => p === 'apt-get' && a.join(' ') === '-s install --no-install-recommends --no-remove -- cowsay=3.03+dfsg2-8'));
});

const INSTALL_COWSAY = {
  kind: 'command',
  program: 'apt-get',
  args: ['install', '-y', '--no-install-recommends', '--no-remove', '-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold', '-o', 'Dpkg::Use-Pty=0', '--', 'cowsay=3.03+dfsg2-8'],
  resource: 'dpkg',
  timeoutMs: 600_000,
};
const PKG_LINE = '--showformat=${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\\n';
const reinstall = (...debs: string[]) => ({ kind: 'command', program: 'dpkg', args: ['--force-confdef', '--force-confold', '--install', '--', ...debs], paths: debs, resource: 'dpkg', timeoutMs: 600_000 });

test('InstallPackage is undone by purging what it added and installing again what it upgraded, from the .deb apt kept', async () => {
  const a = byName('InstallPackage');
  assert.equal(a.readOnly, false);
  assert.deepEqual(a.readOnly ? null : { class: a.rollback.class, inverse: a.rollback.class === 'compensating' ? a.rollback.inverse : null }, { class: 'compensating', inverse: 'PurgePackage' });
  const sim = 'Inst libssl3 [3.0.1] (3.0.2 Debian [amd64])\nInst libtext-charwidth-perl (0.04-11 Debian [amd64])\nInst cowsay (3.03+dfsg2-8 Debian [all])\n';
  const deb = '/var/cache/apt/archives/libssl3_3.0.1_amd64.deb';
  const host = aptHost({ installed: { libssl3: ['3.0.1', 'install', 'no', 'optional'] }, candidates: { cowsay: '3.03+dfsg2-8' }, simulate: () => ok(sim), debs: [deb] });
  const { steps, preview } = await run('InstallPackage', { package: 'cowsay' }, host);
  // The downgrade is the undo of a step before the install, so it runs after the purge (undos go last step first).
  assert.deepEqual(steps, [
    { kind: 'command', program: 'dpkg-query', args: ['-W', PKG_LINE, '--', 'libssl3'], okCodes: [0, 1], undo: reinstall(deb) },
    { ...INSTALL_COWSAY, undo: { kind: 'command', program: 'dpkg', args: ['--purge', '--', 'libtext-charwidth-perl', 'cowsay'], resource: 'dpkg', timeoutMs: 600_000 } },
  ]);
  assert.doesNotMatch(preview.warnings!.join('\n'), /revert/);
  // Its probes: dpkg's line and apt's mark of every package it adds or upgrades.
  const cur = await a.current({ package: 'cowsay' }, host);
  assert.deepEqual(a.readOnly ? [] : a.rollback.class !== 'none' && a.rollback.state!({ package: 'cowsay' }, cur), [
    { program: 'dpkg-query', args: ['-W', PKG_LINE, '--', 'cowsay', 'libssl3', 'libtext-charwidth-perl'] },
    { program: 'apt-mark', args: ['showauto', '--', 'cowsay', 'libssl3', 'libtext-charwidth-perl'] },
    // the .deb its undo installs: deleted since, the revert is refused as drifted
    { program: 'ls', args: ['-1', '--', deb] },
  ]);

  // The former libssl3 is no longer in apt's cache: no undo, and the preview says so.
  const lost = await run('InstallPackage', { package: 'cowsay' }, aptHost({ installed: { libssl3: ['3.0.1', 'install', 'no', 'optional'] }, candidates: { cowsay: '3.03+dfsg2-8' }, simulate: () => ok(sim) }));
  assert.deepEqual(lost.steps, [INSTALL_COWSAY]);
  assert.match(lost.preview.warnings!.join('\n'), /a revert will not be possible: apt no longer has the \.deb of libssl3 3\.0\.1/);

  // dpkg still has an entry for a package it adds (here the fixture's, as for configuration files a removal left):
  // a purge would not leave that entry as it is, so there is no undo.
  const known = aptHost({ installed: { 'libtext-charwidth-perl': ['0.04-10', 'deinstall', 'no', 'optional'] }, candidates: { cowsay: '3.03+dfsg2-8' }, simulate: () => ok('Inst libtext-charwidth-perl (0.04-11 Debian [amd64])\nInst cowsay (3.03+dfsg2-8 Debian [all])\n') });
  const left = await run('InstallPackage', { package: 'cowsay' }, known);
  assert.deepEqual(left.steps, [INSTALL_COWSAY]);
  assert.match(left.preview.warnings!.join('\n'), /a revert will not be possible: dpkg still has libtext-charwidth-perl \(installed 0\.04-10\)/);
});

test('InstallPackage refusals', async () => {
  const installed = aptHost({ installed: { hello: ['2.10-3', 'install', 'no', 'optional'] }, candidates: { hello: '2.10-3' } });
  await assertNoChange(run('InstallPackage', { package: 'hello' }, installed), /already/);
  assert.equal((await refusal('InstallPackage', { package: 'nosuch' }, aptHost({}))).code, 'no_such_package');
  assert.equal((await refusal('InstallPackage', { package: 'awk' }, aptHost({ candidates: { awk: null } }))).code, 'no_candidate');
  const conflicting = aptHost({ candidates: { exim4: '4.96' }, simulate: () => ok('Remv postfix [3.7]\nInst exim4 (4.96 Debian [all])\n') });
  assert.equal((await refusal('InstallPackage', { package: 'exim4' }, conflicting)).code, 'would_remove');
  const broken = aptHost({ candidates: { x11: '1' }, simulate: () => ({ code: 100, stdout: '', stderr: 'E: Unable to correct problems\n' }) });
  const e = await refusal('InstallPackage', { package: 'x11' }, broken);
  assert.equal(e.code, 'apt_refuses');
  assert.match(e.message, /Unable to correct problems/);
  const odd = aptHost({ candidates: { weird: '1.0 -o foo' } });
  assert.equal((await refusal('InstallPackage', { package: 'weird' }, odd)).code, 'odd_version');
});

const REMOVE_HELLO = {
  kind: 'command',
  program: 'apt-get',
  args: ['remove', '-y', '-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold', '-o', 'Dpkg::Use-Pty=0', '--', 'hello=2.10-3'],
  resource: 'dpkg',
  timeoutMs: 600_000,
};

test('RemovePackage pins the installed version and refuses protected, essential and required packages, also as consequences', async () => {
  const host = aptHost({ installed: { hello: ['2.10-3', 'install', 'no', 'optional'] }, simulate: () => ok('Remv hello [2.10-3]\n') });
  const { steps, preview } = await run('RemovePackage', { package: 'hello' }, host);
  assert.deepEqual(steps, [REMOVE_HELLO]);
  assert.deepEqual((preview.change as { remove: string[] }).remove, ['hello 2.10-3']);
  assert.match(preview.warnings!.join('\n'), /a revert will not be possible: apt no longer has the \.deb of hello 2\.10-3 in \/var\/cache\/apt\/archives/);

  for (const name of PROTECTED_PACKAGES) {
    const h = aptHost({ installed: { [name]: ['1.0', 'install', 'no', 'optional'] }, simulate: () => ok(`Remv ${name} [1.0]\n`) });
    assert.equal((await refusal('RemovePackage', { package: name }, h)).code, 'protected_package', name);
    assert.ok(!h.calls.some(([p]) => p === 'apt-get'), `${name}: apt is not even asked`);
  }
  assert.deepEqual(PROTECTED_PACKAGES.filter((p) => ['apt', 'dpkg', 'systemd', 'openssh-server', 'sudo', 'libc6'].includes(p)).length, 6);
  const essential = aptHost({ installed: { bash: ['5.2', 'install', 'yes', 'required'] } });
  assert.match((await refusal('RemovePackage', { package: 'bash' }, essential)).message, /essential/);
  const required = aptHost({ installed: { mawk: ['1.3', 'install', 'no', 'required'] } });
  assert.match((await refusal('RemovePackage', { package: 'mawk' }, required)).message, /required/);

  // Removing a library that takes openssh-server or an essential package with it.
  const cascade = aptHost({
    installed: { libfoo: ['1', 'install', 'no', 'optional'], 'openssh-server': ['9', 'install', 'no', 'optional'], coreutils: ['9', 'install', 'yes', 'required'] },
    simulate: () => ok('Remv openssh-server [9]\nRemv coreutils [9]\nRemv libfoo [1]\n'),
  });
  const e = await refusal('RemovePackage', { package: 'libfoo' }, cascade);
  assert.equal(e.code, 'protected_package');
  assert.match(e.message, /openssh-server/);
  assert.match(e.message, /coreutils \(essential\)/);

  await assertNoChange(run('RemovePackage', { package: 'hello' }, aptHost({})), /not|no /);
  const held = aptHost({ installed: { hello: ['2.10-3', 'hold', 'no', 'optional'] }, simulate: () => ok('Remv hello [2.10-3]\n') });
  assert.equal((await refusal('RemovePackage', { package: 'hello' }, held)).code, 'held');
});

test('RemovePackage is undone by installing the removed versions again from the .deb apt kept, then their automatic marks', async () => {
  const a = byName('RemovePackage');
  assert.equal(!a.readOnly && a.rollback.class, 'exact');
  const hello = '/var/cache/apt/archives/hello_2.10-3_amd64.deb';
  const kept = aptHost({ installed: { hello: ['2.10-3', 'install', 'no', 'optional'] }, simulate: () => ok('Remv hello [2.10-3]\n'), debs: [hello] });
  const { steps, preview } = await run('RemovePackage', { package: 'hello' }, kept);
  assert.deepEqual(steps, [{ ...REMOVE_HELLO, undo: reinstall(hello) }]);
  assert.doesNotMatch(preview.warnings!.join('\n'), /revert/);
  const cur = await a.current({ package: 'hello' }, kept);
  assert.deepEqual(!a.readOnly && a.rollback.class !== 'none' && a.rollback.state!({ package: 'hello' }, cur), [
    { program: 'dpkg-query', args: ['-W', PKG_LINE, '--', 'hello'] },
    { program: 'apt-mark', args: ['showauto', '--', 'hello'] },
    { program: 'ls', args: ['-1', '--', hello] },
  ]);

  // A dependent apt installed automatically goes too: its mark is set again after the reinstall, by the undo of a step before.
  const debs = ['/var/cache/apt/archives/libfoo_1%3a1.2-1_amd64.deb', '/var/cache/apt/archives/foo-data_3_amd64.deb'];
  const dependents = aptHost({
    installed: { libfoo: ['1:1.2-1', 'install', 'no', 'optional'], 'foo-data': ['3', 'install', 'no', 'optional'] },
    simulate: () => ok('Remv foo-data [3]\nRemv libfoo [1:1.2-1]\n'),
    auto: ['foo-data'],
    debs,
  });
  const both = await run('RemovePackage', { package: 'libfoo' }, dependents);
  assert.deepEqual(both.steps, [
    { kind: 'command', program: 'apt-mark', args: ['showauto', '--', 'foo-data'], undo: { kind: 'command', program: 'apt-mark', args: ['auto', '--', 'foo-data'], resource: 'dpkg' } },
    { ...REMOVE_HELLO, args: [...REMOVE_HELLO.args.slice(0, -1), 'libfoo=1:1.2-1'], undo: reinstall(debs[1]!, debs[0]!) },
  ]);
});

test('AptUpdate cannot be undone, and says why', () => {
  const a = byName('AptUpdate');
  assert.ok(!a.readOnly && a.rollback.class === 'none');
  assert.match(!a.readOnly && a.rollback.class === 'none' ? a.rollback.reason : '', /lists/);
});

test('Hold and Unhold use apt-mark with the opposite as undo; a no-op is no change', async () => {
  const free = aptHost({ installed: { hello: ['2.10-3', 'install', 'no', 'optional'] } });
  const hold = { kind: 'command', program: 'apt-mark', args: ['hold', '--', 'hello'], resource: 'dpkg' };
  const unhold = { kind: 'command', program: 'apt-mark', args: ['unhold', '--', 'hello'], resource: 'dpkg' };
  assert.deepEqual((await run('HoldPackage', { package: 'hello' }, free)).steps, [{ ...hold, undo: unhold }]);
  await assertNoChange(run('UnholdPackage', { package: 'hello' }, free), /not|no /);
  const held = aptHost({ installed: { hello: ['2.10-3', 'hold', 'no', 'optional'] } });
  assert.deepEqual((await run('UnholdPackage', { package: 'hello' }, held)).steps, [{ ...unhold, undo: hold }]);
  await assertNoChange(run('HoldPackage', { package: 'hello' }, held), /already/);
  assert.equal((await refusal('HoldPackage', { package: 'hello' }, aptHost({}))).code, 'not_installed');
  // The probe reads dpkg's line for the package: its selection (h for hold, i for install) comes first.
  for (const n of ['HoldPackage', 'UnholdPackage']) {
    const a = byName(n);
    assert.ok(!a.readOnly && a.rollback.class === 'exact', n);
    assert.deepEqual(!a.readOnly && a.rollback.class === 'exact' && a.rollback.state!({ package: 'hello' }, {}), [{ program: 'dpkg-query', args: ['-W', PKG_LINE, '--', 'hello'] }]);
  }
});

test('read actions: exact names only, fixed argv', async () => {
  const host = aptHost({ candidates: { hello: '2.10-3', awk: null } });
  assert.deepEqual((await run('PackagePolicy', { package: 'hello' }, host)).steps, [{ kind: 'command', program: 'apt-cache', args: ['policy', '--', 'hello'] }]);
  assert.deepEqual((await run('PackageInfo', { package: 'hello' }, host)).steps, [{ kind: 'command', program: 'apt-cache', args: ['show', '--', 'hello'] }]);
  assert.equal((await refusal('PackageInfo', { package: 'awk' }, host)).code, 'no_versions');
  assert.equal((await refusal('PackagePolicy', { package: 'nosuch' }, host)).code, 'no_such_package');
  const empty = new FixtureHost({});
  assert.deepEqual((await run('ListInstalledPackages', {}, empty)).steps, [
    { kind: 'command', program: 'dpkg-query', args: ['-W', '--showformat=${db:Status-Abbrev} ${binary:Package} ${Version}\n'] },
  ]);
  assert.deepEqual((await run('ListUpgradable', {}, empty)).steps, [{ kind: 'command', program: 'apt-get', args: ['-s', 'upgrade'], timeoutMs: 600_000 }]);
});

test('AptUpdate previews the repositories and fails on any fetch error', async () => {
  const host = new FixtureHost({}, (p, a) =>
    p === 'apt-get' && a[0] === 'indextargets' ? ok('http://deb.debian.org/debian/ bookworm main [deb]\nhttp://deb.debian.org/debian/ bookworm main [deb]\n') : { code: 127, stdout: '', stderr: '' },
  );
  const { steps, preview } = await run('AptUpdate', {}, host);
  assert.deepEqual(steps, [{ kind: 'command', program: 'apt-get', args: ['update', '-o', 'APT::Update::Error-Mode=any'], resource: 'dpkg', timeoutMs: 600_000 }]);
  assert.deepEqual((preview.change as { refreshes: string[] }).refreshes, ['http://deb.debian.org/debian/ bookworm main [deb]']);
  const none = new FixtureHost({}, () => ok(''));
  assert.equal((await refusal('AptUpdate', {}, none)).code, 'no_sources');
});

test('ListPackageFiles and VerifyPackage name each installed architecture; both refuse a package that is not installed', async () => {
  const one = aptHost({ installed: { hello: ['2.10-3', 'install', 'no', 'optional'] } });
  assert.deepEqual((await run('ListPackageFiles', { package: 'hello' }, one)).steps, [{ kind: 'command', program: 'dpkg-query', args: ['--listfiles', '--', 'hello'] }]);
  assert.deepEqual((await run('VerifyPackage', { package: 'hello' }, one)).steps, [{ kind: 'command', program: 'dpkg', args: ['--verify', '--', 'hello'] }]);
  // dpkg refuses a bare name when two architectures are installed.
  const multi = new FixtureHost({}, (p) =>
    p === 'dpkg-query' ? ok('libc6\tamd64\t2.36\tinstall\tinstalled\tno\trequired\nlibc6\ti386\t2.36\tinstall\tinstalled\tno\trequired\n') : { code: 127, stdout: '', stderr: '' },
  );
  assert.deepEqual((await run('ListPackageFiles', { package: 'libc6' }, multi)).steps[0], { kind: 'command', program: 'dpkg-query', args: ['--listfiles', '--', 'libc6:amd64', 'libc6:i386'] });
  assert.deepEqual((await run('VerifyPackage', { package: 'libc6' }, multi)).steps[0], { kind: 'command', program: 'dpkg', args: ['--verify', '--', 'libc6:amd64', 'libc6:i386'] });
  for (const n of ['ListPackageFiles', 'VerifyPackage']) assert.equal((await refusal(n, { package: 'hello' }, aptHost({}))).code, 'not_installed');
});

test('WhichPackageOwns asks dpkg under both spellings of a merged-/usr path, as nobody, and takes "not owned" as an answer', async () => {
  const merged = new FixtureHost({ '/bin': { link: 'usr/bin' }, '/usr/bin/ls': 'x' });
  const { steps, preview } = await run('WhichPackageOwns', { path: '/usr/bin/ls' }, merged);
  assert.deepEqual(steps, [{ kind: 'command', program: 'dpkg-query', args: ['--search', '--', '/usr/bin/ls', '/bin/ls'], okCodes: [0, 1], unprivileged: true }]);
  assert.match(preview.summary, /as \/bin\/ls/);
  assert.deepEqual((await run('WhichPackageOwns', { path: '/bin/ls' }, merged)).steps[0]!, { ...steps[0]!, args: ['--search', '--', '/bin/ls', '/usr/bin/ls'] });
  // Not merged (/bin a real directory), or a directory that never moved: one spelling.
  assert.deepEqual((await run('WhichPackageOwns', { path: '/usr/bin/ls' }, new FixtureHost({ '/bin/ls': 'x' }))).steps[0], { ...steps[0]!, args: ['--search', '--', '/usr/bin/ls'] });
  assert.deepEqual((await run('WhichPackageOwns', { path: '/etc/ssh/sshd_config' }, merged)).steps[0], { ...steps[0]!, args: ['--search', '--', '/etc/ssh/sshd_config'] });
  const a = byName('WhichPackageOwns');
  for (const bad of [...INJECTIONS, 'etc/passwd', '/etc/*', '/usr/bin/l?', '/usr/bin/[a]', '/usr/bin/a b', '/etc/../shadow', '/etc//x', '/etc/', '/etc/x\\y', '/']) {
    assert.equal(a.params.safeParse({ path: bad }).success, false, JSON.stringify(bad));
  }
  assert.equal(a.params.safeParse({ path: '/usr/lib/x86_64-linux-gnu/libc.so.6' }).success, true);
});
