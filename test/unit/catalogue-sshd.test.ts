import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction, CommandOutput } from '../../src/catalogue/action.js';
import { dropinText } from '../../src/catalogue/families/ssh/drop-in.js';
import { parseDirective, parseEffective, readConfigView } from '../../src/catalogue/families/ssh/sshd-config.js';
import { SSHD_OPTIONS } from '../../src/catalogue/families/ssh/sshd-options.js';
import * as sshd from '../../src/catalogue/families/ssh/sshd-settings.js';
import type { ProgramName } from '../../src/catalogue/programs.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { reversibleWhenDone, type Step } from '../../src/catalogue/mechanism.js';
import { unitState } from '../../src/catalogue/rollback.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

const actions = Object.values(sshd).filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;
const DROPIN = '/etc/ssh/sshd_config.d/60-airlock.conf';

/** Debian 12's sshd_config, comments left out. */
const DEBIAN_MAIN = 'Include /etc/ssh/sshd_config.d/*.conf\n\nKbdInteractiveAuthentication no\nUsePAM yes\nX11Forwarding yes\nPrintMotd no\nAcceptEnv LANG LC_*\nSubsystem\tsftp\t/usr/lib/openssh/sftp-server\n';
const EFFECTIVE = 'port 22\npasswordauthentication yes\npermitrootlogin without-password\nx11forwarding yes\nkbdinteractiveauthentication no\nmaxauthtries 6\nauthorizedkeysfile .ssh/authorized_keys .ssh/authorized_keys2\n';
const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\nbob:x:1001:1001::/home/bob:/bin/bash\ncarol:x:1002:1002::/home/carol:/bin/bash\n';
const GROUP = 'root:x:0:\nalice:x:1000:\nbob:x:1001:\ncarol:x:1002:\nairlock-approvers:x:990:alice,bob\nadmins:x:1100:alice\n';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d alice@laptop\n';

interface Opts {
  tree?: Record<string, Node>;
  dropins?: string[];
  effective?: CommandOutput;
  active?: string;
}

function host(o: Opts = {}) {
  const tree: Record<string, Node> = {
    '/etc/ssh/sshd_config': DEBIAN_MAIN,
    '/etc/passwd': PASSWD,
    '/etc/group': GROUP,
    '/home/alice/.ssh/authorized_keys': KEY,
    ...o.tree,
  };
  return new FixtureHost(tree, (program: ProgramName, args: string[]): CommandOutput => {
    if (program === 'sshd' && args[0] === '-T') return o.effective ?? { code: 0, stdout: EFFECTIVE, stderr: '' };
    if (program === 'ls' && args.at(-1) === '/etc/ssh/sshd_config.d') return { code: 0, stdout: (o.dropins ?? []).map((n) => `${n}\n`).join(''), stderr: '' };
    if (program === 'systemctl' && args[0] === 'show') {
      const active = o.active ?? 'active';
      return { code: 0, stdout: `Id=ssh.service\nNames=ssh.service sshd.service\nLoadState=loaded\nActiveState=${active}\nSubState=${active === 'active' ? 'running' : 'dead'}\nUnitFileState=enabled\nMainPID=${active === 'active' ? 42 : 0}\nCanReload=yes\n`, stderr: '' };
    }
    return { code: 127, stdout: '', stderr: `not scripted: ${program} ${args.join(' ')}` };
  });
}

async function run(name: string, params: Record<string, unknown>, h: FixtureHost) {
  const a = byName(name);
  const p = a.params.parse(params);
  const cur = await a.current(p, h);
  checked(a, p, cur);
  return { steps: a.mechanism(p, cur), preview: a.preview(p, cur), shown: a.shown ? a.shown(cur) : cur };
}

async function refused(name: string, params: Record<string, unknown>, h: FixtureHost, code: string, message?: RegExp) {
  await assert.rejects(run(name, params, h), (e: unknown) => {
    assert.ok(e instanceof AirlockError, String(e));
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

const CHECK = { kind: 'command', program: 'sshd', args: ['-t'], noUndo: 'changes_nothing' };
const RELOAD = { kind: 'command', program: 'systemctl', args: ['reload', '--', 'ssh.service'] };
/**
 * With ssh.service running: a first check carries the rollback's reload (undos run last first, so
 * it re-reads the drop-in once restored), then the change, its check, and the reload it undoes.
 */
const reloaded = (change: unknown) => [{ kind: 'command', program: 'sshd', args: ['-t'], undo: RELOAD }, change, CHECK, { ...RELOAD, noUndo: 'undone_earlier' }];
const write = (lines: string[]) => ({ kind: 'fileWrite', path: DROPIN, content: dropinText(lines), mode: 0o644, owner: { uid: 0, gid: 0 }, parent: { mode: 0o755, owner: { uid: 0, gid: 0 } } });

test('sshd actions are declared with the expected risk and flags', () => {
  const expected: Record<string, [string, boolean, string | undefined]> = {
    ShowSshdConfig: ['low', true, undefined],
    SetSshdOption: ['high', false, 'exact'],
    ResetSshdOption: ['high', false, 'exact'],
  };
  assert.deepEqual(actions.map((a) => a.name).sort(), Object.keys(expected).sort());
  for (const a of actions) {
    assert.equal(a.family, 'ssh');
    assert.deepEqual([a.risk, a.readOnly, a.rollback?.class], expected[a.name], a.name);
    // The drop-in is probed as its steps' file; ssh.service's state says the undo's reload left it running.
    if (a.rollback?.class === 'exact') assert.deepEqual(a.rollback.state?.(a.params.parse(a.example), null), unitState('ssh.service'), a.name);
    assert.ok(a.params.safeParse(a.example).success, `${a.name} example`);
  }
  assert.deepEqual(byName('SetSshdOption').files, [DROPIN]);
  assert.deepEqual(byName('ResetSshdOption').files, [DROPIN]);
});

test('ShowSshdConfig runs sshd -T and nothing else', async () => {
  const { steps } = await run('ShowSshdConfig', {}, host());
  assert.deepEqual(steps, [{ kind: 'command', program: 'sshd', args: ['-T'] }]);
  assert.equal(byName('ShowSshdConfig').params.safeParse({ option: 'x' }).success, false);
});

test('options come from a fixed list and each value is validated for its option', () => {
  const set = byName('SetSshdOption').params;
  const good: Array<[string, unknown]> = [
    ['PasswordAuthentication', 'no'], ['PasswordAuthentication', 'yes'], ['PermitRootLogin', 'prohibit-password'], ['PermitRootLogin', 'forced-commands-only'],
    ['PubkeyAuthentication', 'yes'], ['KbdInteractiveAuthentication', 'no'], ['X11Forwarding', 'no'], ['AllowTcpForwarding', 'local'], ['AllowAgentForwarding', 'no'],
    ['MaxAuthTries', 1], ['MaxAuthTries', 10], ['ClientAliveInterval', 0], ['ClientAliveInterval', 3600], ['ClientAliveCountMax', 0], ['ClientAliveCountMax', 10],
    ['LoginGraceTime', 10], ['LoginGraceTime', 600], ['MaxSessions', 1], ['MaxSessions', 100], ['AllowUsers', ['alice', 'bob']], ['AllowGroups', ['admins']],
  ];
  for (const [option, value] of good) assert.ok(set.safeParse({ option, value }).success, `${option} ${JSON.stringify(value)}`);
  const bad: Array<[string, unknown]> = [
    ['PasswordAuthentication', 'true'], ['PasswordAuthentication', true], ['PasswordAuthentication', 1], ['PasswordAuthentication', 'local'], ['PermitRootLogin', 'without-password'],
    ['PermitRootLogin', 'sometimes'], ['AllowTcpForwarding', 'all'], ['X11Forwarding', ['yes']], ['MaxAuthTries', 0], ['MaxAuthTries', 11], ['MaxAuthTries', 2.5], ['MaxAuthTries', '3'],
    ['ClientAliveInterval', -1], ['ClientAliveInterval', 3601], ['ClientAliveCountMax', 11], ['LoginGraceTime', 9], ['LoginGraceTime', 601], ['LoginGraceTime', '2m'],
    ['MaxSessions', 0], ['MaxSessions', 101], ['AllowUsers', []], ['AllowUsers', 'alice'], ['AllowUsers', ['alice', 'alice']], ['AllowGroups', 3],
    ['AllowUsers', Array.from({ length: 33 }, (_, i) => `u${i}`)], ['AllowUsers', ['*']], ['AllowUsers', ['alice@10.0.0.1']], ['AllowUsers', ['ALICE']],
    ['Port', 22], ['PermitEmptyPasswords', 'yes'], ['UsePAM', 'no'], ['Match', 'all'], ['passwordauthentication', 'no'], ['Include', '/tmp/x'],
  ];
  for (const [option, value] of bad) assert.equal(set.safeParse({ option, value }).success, false, `${option} ${JSON.stringify(value)}`);
  for (const s of INJECTIONS) {
    assert.equal(set.safeParse({ option: 'PermitRootLogin', value: s }).success, false, `word ${JSON.stringify(s)}`);
    assert.equal(set.safeParse({ option: 'AllowUsers', value: [s] }).success, false, `user ${JSON.stringify(s)}`);
    assert.equal(set.safeParse({ option: 'AllowGroups', value: ['ops', s] }).success, false, `group ${JSON.stringify(s)}`);
    assert.equal(set.safeParse({ option: s, value: 'no' }).success, false, `option ${JSON.stringify(s)}`);
    assert.equal(byName('ResetSshdOption').params.safeParse({ option: s }).success, false, `reset ${JSON.stringify(s)}`);
  }
  assert.equal(set.safeParse({ option: 'PasswordAuthentication', value: 'no', extra: 1 }).success, false);
  assert.equal(set.safeParse({ option: 'PasswordAuthentication' }).success, false);
  assert.equal(byName('ResetSshdOption').params.safeParse({ option: 'PasswordAuthentication', value: 'no' }).success, false);
  assert.equal(Object.keys(SSHD_OPTIONS).length, 14);
});

test('the configuration is read in sshd order: includes expanded and sorted, Match blocks left out, the drop-in placed', async () => {
  const h = host({
    dropins: ['50-cloud-init.conf', '70-late.conf', 'notes.txt', 'bad\\ name.conf', '.hidden.conf'],
    tree: {
      '/etc/ssh/sshd_config': `Include /etc/ssh/sshd_config.d/*.conf\nPasswordAuthentication=yes\nMatch User bob\n  X11Forwarding no\n`,
      '/etc/ssh/sshd_config.d/50-cloud-init.conf': 'PasswordAuthentication no # cloud\n',
      '/etc/ssh/sshd_config.d/70-late.conf': 'MaxAuthTries 3\nMatch Group x\nMaxSessions 2\n',
      '/etc/ssh/sshd_config.d/notes.txt': 'MaxSessions 9\n',
    },
  });
  const view = await readConfigView(h);
  assert.deepEqual(
    view.directives.map((d) => [d.file, d.line, d.key, d.args]),
    [
      ['/etc/ssh/sshd_config.d/50-cloud-init.conf', 1, 'passwordauthentication', ['no']],
      ['/etc/ssh/sshd_config.d/70-late.conf', 1, 'maxauthtries', ['3']],
      ['/etc/ssh/sshd_config', 2, 'passwordauthentication', ['yes']],
    ],
  );
  assert.equal(view.dropinAt, 1, 'between 50-cloud-init.conf and 70-late.conf, although it does not exist yet');
  assert.equal(view.dropinConditional, false);
  assert.deepEqual(parseDirective('  AllowUsers alice bob # trailing'), { keyword: 'AllowUsers', args: ['alice', 'bob'] });
  assert.equal(parseDirective('# comment'), null);
  assert.equal(parseDirective('   '), null);
  assert.deepEqual(parseEffective('allowusers alice\nallowusers bob\nport 22\n').get('allowusers'), ['alice', 'bob']);
});

test('SetSshdOption writes the drop-in, checks with sshd -t and reloads a running ssh.service', async () => {
  const { steps, preview, shown } = await run('SetSshdOption', { option: 'PasswordAuthentication', value: 'no' }, host());
  assert.deepEqual(steps, reloaded(write(['PasswordAuthentication no'])));
  assert.ok(reversibleWhenDone(steps as Step[]), 'every command says how it is undone');
  const change = preview.change as { line: string; replaces: string | null; effective: { from: string[]; to: string[] }; text: string };
  assert.equal(change.line, 'PasswordAuthentication no');
  assert.equal(change.replaces, null);
  assert.deepEqual(change.effective, { from: ['yes'], to: ['no'] });
  assert.match(change.text, /adds `PasswordAuthentication no` in \/etc\/ssh\/sshd_config\.d\/60-airlock\.conf, checks the whole configuration with sshd -t.*reloads ssh\.service/);
  assert.ok(preview.warnings!.some((w) => /approvers have no authorized key file.*bob/.test(w)), JSON.stringify(preview.warnings));
  assert.ok(!preview.warnings!.some((w) => /alice/.test(w)), 'alice has a key');
  assert.ok(!JSON.stringify(shown).includes('AAAAC3'), 'no key material in the preview');
  assert.equal(dropinText(['PasswordAuthentication no']).split('\n').filter((l) => l && !l.startsWith('#')).length, 1);
});

test('SetSshdOption keeps the other lines, replaces its own in place, and skips the reload when ssh.service is down', async () => {
  const tree = { [DROPIN]: dropinText(['X11Forwarding no', 'PermitRootLogin no', 'MaxAuthTries 4']) };
  const a = await run('SetSshdOption', { option: 'PermitRootLogin', value: 'prohibit-password' }, host({ tree, dropins: ['60-airlock.conf'] }));
  assert.deepEqual(a.steps, reloaded(write(['X11Forwarding no', 'PermitRootLogin prohibit-password', 'MaxAuthTries 4'])));
  assert.deepEqual((a.preview.change as { effective: { to: string[] } }).effective.to, ['without-password'], 'as sshd -T prints it');
  assert.equal((a.preview.change as { replaces: string }).replaces, 'PermitRootLogin no');
  const b = await run('SetSshdOption', { option: 'ClientAliveInterval', value: 300 }, host({ tree, active: 'inactive' }));
  assert.deepEqual(b.steps, [write(['X11Forwarding no', 'PermitRootLogin no', 'MaxAuthTries 4', 'ClientAliveInterval 300']), CHECK]);
  assert.match((b.preview.change as { text: string }).text, /ssh\.service is not running \(inactive, dead\), so nothing is reloaded/);
  const c = await run('SetSshdOption', { option: 'X11Forwarding', value: 'yes' }, host({ tree }));
  assert.ok(c.preview.sideEffects!.some((s) => /takes precedence over `X11Forwarding yes` \(\/etc\/ssh\/sshd_config:5\)/.test(s)), JSON.stringify(c.preview.sideEffects));
});

test('SetSshdOption warnings: root logins, AllowUsers and AllowGroups that shut approvers out', async () => {
  const root = await run('SetSshdOption', { option: 'PermitRootLogin', value: 'yes' }, host());
  assert.ok(root.preview.warnings!.some((w) => /password guessing/.test(w)));
  const none = await run('SetSshdOption', { option: 'AllowUsers', value: ['carol'] }, host());
  assert.deepEqual(none.steps, reloaded(write(['AllowUsers carol'])));
  assert.ok(none.preview.warnings!.some((w) => /no Airlock approver \(alice, bob\).*lock every approver out/.test(w)), JSON.stringify(none.preview.warnings));
  const some = await run('SetSshdOption', { option: 'AllowUsers', value: ['alice', 'carol'] }, host());
  assert.ok(some.preview.warnings!.some((w) => /would not be allowed to log in over SSH: bob$/.test(w)));
  const groups = await run('SetSshdOption', { option: 'AllowGroups', value: ['admins'] }, host());
  assert.ok(groups.preview.warnings!.some((w) => /: bob$/.test(w)));
  const all = await run('SetSshdOption', { option: 'AllowUsers', value: ['alice', 'bob'] }, host());
  assert.ok(!all.preview.warnings!.some((w) => /approver/.test(w)));
  // Other AllowUsers lines add up with Airlock's, before or after the drop-in.
  const more = await run('SetSshdOption', { option: 'AllowUsers', value: ['carol'] }, host({ tree: { '/etc/ssh/sshd_config': `${DEBIAN_MAIN}AllowUsers alice bob\n` } }));
  assert.ok(!more.preview.warnings!.some((w) => /approver/.test(w)));
  assert.deepEqual((more.preview.change as { effective: { to: string[] } }).effective.to, ['carol', 'alice', 'bob']);
  assert.ok(more.preview.sideEffects!.some((s) => /adds up every AllowUsers line/.test(s)));
  // Patterns written by hand elsewhere: wildcards and @host match on the user part; odd characters stay literal.
  const patterns = await run('SetSshdOption', { option: 'AllowUsers', value: ['carol'] }, host({ tree: { '/etc/ssh/sshd_config': `${DEBIAN_MAIN}AllowUsers al* b?b@10.0.0.* x[\n` } }));
  assert.ok(!patterns.preview.warnings!.some((w) => /approver/.test(w)), JSON.stringify(patterns.preview.warnings));
});

test('SetSshdOption refusals', async () => {
  const p = { option: 'PasswordAuthentication', value: 'no' };
  await refused('SetSshdOption', p, host({ tree: { '/etc/ssh/sshd_config': undefined as unknown as Node } }), 'sshd_missing');
  await refused('SetSshdOption', p, host({ effective: { code: 255, stdout: '', stderr: 'Missing privilege separation directory: /run/sshd\n' } }), 'sshd_config_invalid', /privilege separation/);
  await assert.rejects(
    run('SetSshdOption', p, host({ effective: { code: 255, stdout: '', stderr: 'Missing privilege separation directory: /run/sshd\n' } })),
    (e: unknown) => e instanceof AirlockError && /start ssh\.service \(StartService\)/.test(e.hint ?? ''),
  );
  await refused('SetSshdOption', p, host({ effective: { code: 255, stdout: '', stderr: '/etc/ssh/sshd_config line 3: Bad yes/no argument: maybe\n' } }), 'sshd_config_invalid', /Bad yes\/no/);
  await refused('SetSshdOption', p, host({ tree: { '/etc/ssh/sshd_config': 'PasswordAuthentication yes\n' } }), 'dropin_not_included');
  await refused('SetSshdOption', p, host({ tree: { '/etc/ssh/sshd_config': 'Match User x\nInclude /etc/ssh/sshd_config.d/*.conf\n' } }), 'dropin_not_included', /Match/);
  await refused('SetSshdOption', p, host({ tree: { '/etc/ssh/sshd_config': 'Include /etc/ssh/sshd_config.d/5*.conf\n' } }), 'dropin_not_included');
  await refused('SetSshdOption', p, host({ tree: { [DROPIN]: 'Match User bob\nX11Forwarding no\n' } }), 'dropin_has_match');
  await assertNoChange(run('SetSshdOption', p, host({ tree: { [DROPIN]: dropinText(['PasswordAuthentication no']) } })), /already/);
  await refused(
    'SetSshdOption',
    p,
    host({ dropins: ['50-cloud-init.conf'], tree: { '/etc/ssh/sshd_config.d/50-cloud-init.conf': 'PasswordAuthentication yes\n' } }),
    'overridden',
    /`PasswordAuthentication yes` \(\/etc\/ssh\/sshd_config\.d\/50-cloud-init\.conf:1\) is read before/,
  );
  await refused('SetSshdOption', p, host({ tree: { '/etc/ssh/sshd_config': `passwordauthentication yes\n${DEBIAN_MAIN}` } }), 'overridden');
  // An AllowUsers line read earlier is not an override: sshd adds them up.
  await run('SetSshdOption', { option: 'AllowUsers', value: ['alice'] }, host({ dropins: ['50-x.conf'], tree: { '/etc/ssh/sshd_config.d/50-x.conf': 'AllowUsers bob\n' } }));
});

test('ResetSshdOption removes one line, or deletes the drop-in when it was the last', async () => {
  const tree = { [DROPIN]: dropinText(['PasswordAuthentication no', 'MaxAuthTries 4']) };
  const a = await run('ResetSshdOption', { option: 'PasswordAuthentication' }, host({ tree }));
  assert.deepEqual(a.steps, reloaded(write(['MaxAuthTries 4'])));
  assert.ok(reversibleWhenDone(a.steps as Step[]));
  assert.equal((a.preview.change as { falls_back_to: string }).falls_back_to, "sshd's built-in default for PasswordAuthentication");
  const b = await run('ResetSshdOption', { option: 'X11Forwarding' }, host({ tree: { [DROPIN]: dropinText(['X11Forwarding no']) }, active: 'failed' }));
  // Not running: nothing to reload, so nothing for an undo to reload either.
  assert.deepEqual(b.steps, [{ kind: 'fileDelete', path: DROPIN }, CHECK]);
  assert.ok(reversibleWhenDone(b.steps as Step[]));
  assert.deepEqual((b.preview.change as { falls_back_to: string[] }).falls_back_to, ['`X11Forwarding yes` (/etc/ssh/sshd_config:5)']);
  assert.equal((b.preview.change as { deletes_file: boolean }).deletes_file, true);
  await assertNoChange(run('ResetSshdOption', { option: 'MaxSessions' }, host({ tree })), /not|no /);
  await assertNoChange(run('ResetSshdOption', { option: 'MaxSessions' }, host()), /not|no /);
  // Removing Airlock's AllowUsers leaves another one alone in force: that may shut approvers out.
  const c = await run('ResetSshdOption', { option: 'AllowUsers' }, host({ tree: { [DROPIN]: dropinText(['AllowUsers alice bob']), '/etc/ssh/sshd_config': `${DEBIAN_MAIN}AllowUsers carol\n` } }));
  assert.ok(c.preview.warnings!.some((w) => /no Airlock approver/.test(w)));
});
