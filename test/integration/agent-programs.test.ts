/**
 * Commands the host runs on the agent's behalf later (sudo grants, cron jobs, the
 * service a timer starts), attacked through the real daemon on the booted Debian test
 * bed. Only the allowlist's programs, with arguments of their usage lines, pass
 * (src/catalogue/lib/agent-programs.ts). Each attack is a program off it (one that runs
 * anything: the dynamic loader, `ip netns exec`, env, setarch, a shell, an interpreter;
 * or one that makes its caller root: newusers, chgpasswd, dpkg-statoverride,
 * systemd-firstboot; or freezes the host: fsfreeze), arguments outside a usage line, a
 * grant with free arguments, or a program or argument someone other than root controls
 * (a link, a writable file, a second name, a script). Each is refused at preview with a
 * typed error, and nothing changes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import type { Principal } from '../../src/sandbox/principal.js';

let w: World;
let agent: Principal;
const LOADER = '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2';
const DASH = '/usr/bin/dash';

async function ok(program: string, args: string[]): Promise<string> {
  const r = await w.d.box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const put = (path: string, text: string) => writeFile(`/proc/${w.d.box.pid}/root${path}`, text, { mode: 0o644 });
const sudoersD = async () => (await ok('/usr/bin/ls', ['-1', '--', '/etc/sudoers.d'])).trim().split('\n');
const cronD = async () => (await ok('/usr/bin/ls', ['-1', '--', '/etc/cron.d'])).trim().split('\n');

before(async () => {
  w = await startWorld([], 'testbed');
  agent = await w.as('agent', ['airlock-admin']);
  await ok('/usr/sbin/useradd', ['-m', '--', 'deploy']);
  // Programs off the allowlist under a harmless name, and programs of it that are not what the table means.
  await ok('/usr/bin/install', ['-m', '0755', '-o', 'deploy', '--', '/usr/bin/uptime', '/usr/local/bin/deploys-uptime']);
  await ok('/usr/bin/ln', ['-s', '--', '/usr/bin/uptime', '/usr/local/bin/up']);
  await ok('/usr/bin/chmod', ['0775', '--', '/usr/bin/free']); // group-writable
  await ok('/usr/bin/ln', ['--', '/usr/bin/uptime', '/usr/local/bin/tidy']); // a second name
  await ok('/usr/bin/rm', ['--', '/usr/sbin/fstrim']);
  await ok('/usr/bin/ln', ['-s', '--', '/usr/bin/df', '/usr/sbin/fstrim']); // a link
  await put('/var/tmp/logger', '#!/bin/sh\nexec /usr/bin/id\n');
  await ok('/usr/bin/install', ['-m', '0755', '--', '/var/tmp/logger', '/usr/bin/logger']); // a script
  await ok('/usr/bin/install', ['-m', '0666', '--', '/etc/logrotate.conf', '/etc/logrotate.d/open']); // config others can write
  await ok('/usr/bin/install', ['-d', '-o', 'deploy', '--', '/var/log/deploy-app']); // a directory a user owns
  // Services a timer could start: one runs a shell, one runs env, one runs fstrim outside its grammar, one is a template.
  await put('/etc/systemd/system/airlock-sh-job.service', `[Service]\nType=oneshot\nExecStart=${DASH} -c "id > /var/tmp/sh-job"\n`);
  await put('/etc/systemd/system/airlock-env-job.service', '[Service]\nType=oneshot\nExecStart=/usr/bin/env touch /var/tmp/env-job\n');
  await put('/etc/systemd/system/airlock-freeze-job.service', '[Service]\nType=oneshot\nExecStart=/usr/sbin/fsfreeze --freeze /\n');
  await put('/etc/systemd/system/airlock-journal-job.service', '[Service]\nType=oneshot\nExecStart=/usr/bin/journalctl --vacuum-size=1G --file=/var/tmp/x\n');
  await put('/etc/systemd/system/airlock-tpl@.service', '[Service]\nType=oneshot\nExecStart=/usr/bin/touch /var/tmp/tpl-%i\n');
  await ok('/usr/bin/systemctl', ['daemon-reload']);
});
after(() => w?.close());

const grant = (program: string, args: string[] | undefined, name = 'attack') => agent.call('preview', { action_name: 'CreateSudoGrant', params: { name, user: 'deploy', program, ...(args ? { args } : {}), nopasswd: true } });
const cron = (program: string, args?: string[]) => agent.call('preview', { action_name: 'AddCronJob', params: { name: 'attack', schedule: '@reboot', user: 'root', program, ...(args ? { args } : {}) } });
const timer = (unit: string) => agent.call('preview', { action_name: 'CreateTimer', params: { name: 'attack', onCalendar: 'daily', unit } });

describe('sudo grants that are shells in disguise', () => {
  test('issue 22 finding 4: newusers, systemd-firstboot, dpkg-statoverride, chgpasswd and fsfreeze are refused, and the refusal lists what is allowed', async () => {
    const attacks: Array<[string, string[]]> = [
      ['/usr/sbin/newusers', ['/etc/hostname']],
      ['/usr/bin/systemd-firstboot', ['--force', '--root-password=X']],
      ['/usr/bin/dpkg-statoverride', ['--update', '--add', 'root', 'root', '0666', '/etc/shadow']],
      ['/usr/sbin/chgpasswd', []],
      ['/usr/sbin/fsfreeze', ['--freeze', '/']],
    ];
    for (const [program, args] of attacks) {
      // One call at a time: a refusal that comes before its promise is awaited is an unhandled rejection.
      for (const call of [() => grant(program, args), () => cron(program, args)]) {
        const e = await rejectsWith(call(), 'authorization', 'program_refused');
        assert.match(e.message, /is not one of the programs Airlock lets root run later on the agent's behalf; these are, each with its usage: \/usr\/bin\/systemctl: systemctl .*; \/usr\/bin\/uptime: uptime \[ -p\|-s \]$/, program);
      }
    }
  });

  test('programs of the allowlist with arguments outside their usage lines are refused, with the usage lines', async () => {
    const e = await rejectsWith(grant('/usr/bin/systemctl', ['edit', 'cron.service']), 'authorization', 'arguments_refused');
    assert.match(e.message, /\(systemctl \[ --no-block \] start\|stop\|restart\|try-restart\|reload\|reload-or-restart SERVICE\.\.\.: argument 1 \(edit\) is not start or stop/);
    assert.match(e.message, /SERVICE is a service unit name \(name\.service, no template instance name@x\.service\)$/);
    await rejectsWith(grant('/usr/bin/systemctl', ['start', 'getty@tty1.service']), 'authorization', 'arguments_refused');
    await rejectsWith(grant('/usr/bin/journalctl', []), 'authorization', 'arguments_refused');
    await rejectsWith(cron('/usr/bin/find', ['/var/cache', '-mtime', '+7', '-exec', 'rm']), 'authorization', 'arguments_refused');
    await rejectsWith(cron('/usr/bin/apt-get', ['-oAPT::Update::Pre-Invoke::=id', 'update']), 'authorization', 'arguments_refused');
    await rejectsWith(cron('/usr/sbin/logrotate', ['/etc/logrotate.d/open']), 'validation', 'untrusted_argument');
    await rejectsWith(cron('/usr/bin/find', ['/etc', '-mtime', '+7', '-delete']), 'authorization', 'arguments_refused');
    await rejectsWith(cron('/usr/bin/find', ['/var/log/deploy-app', '-mtime', '+7', '-delete']), 'validation', 'untrusted_argument');
  });

  test('programs that run the program named in their arguments are refused, whatever the arguments', async () => {
    const runners: Array<[string, string[]]> = [
      [LOADER, [DASH]],
      ['/usr/bin/ip', ['netns', 'exec', 'x', DASH]],
      ['/usr/bin/env', [DASH]],
      ['/usr/bin/setarch', ['x86_64', DASH]],
      ['/usr/sbin/logsave', ['/dev/null', DASH]],
      ['/usr/bin/systemd-cat', [DASH]],
      ['/usr/bin/dbus-run-session', [DASH]],
      ['/usr/bin/ssh-agent', [DASH]],
      ['/usr/bin/dpkg-deb', ['-x', '/var/cache/x.deb', '/']],
      [DASH, []],
      ['/usr/bin/perl', ['-e', 'exec']],
      ['/usr/bin/sed', ['-n', 'e']],
    ];
    for (const [program, args] of runners) {
      const e = await rejectsWith(grant(program, args), 'authorization', 'program_refused');
      assert.match(e.message, new RegExp(`^refusing the sudo grant: ${program.replace(/[.+]/g, '\\$&')} `), program);
    }
  });

  test('a grant with free arguments cannot be expressed: no args, a wildcard, a space, a quote', async () => {
    const e = await rejectsWith(grant('/usr/bin/uptime', undefined), 'validation', 'bad_params');
    assert.match(e.message, /missing parameter `args`: the exact arguments, \[\] for none/);
    for (const args of [['*'], ['-p', '?'], ['a b'], ['""'], ['\\'], ['[a]'], ['x;id']]) await rejectsWith(grant('/usr/bin/uptime', args), 'validation', 'bad_params');
    // The old shape, a list of programs that take any arguments, is no parameter at all.
    await rejectsWith(agent.call('preview', { action_name: 'CreateSudoGrant', params: { name: 'old', user: 'deploy', commands: ['/usr/bin/uptime'] } }), 'validation', 'bad_params');
  });

  test('a program of the allowlist behind a link, writable by others, with a second name, or a script is refused; other names for it are off the allowlist', async () => {
    for (const other of ['/bin/uptime', '/usr/local/bin/up', '/usr/local/bin/deploys-uptime']) await rejectsWith(grant(other, []), 'authorization', 'program_refused');
    await rejectsWith(grant('/usr/bin/free', []), 'validation', 'untrusted_program');
    const link = await rejectsWith(grant('/usr/bin/uptime', []), 'validation', 'untrusted_program');
    assert.match(link.message, /2 names \(hard links\)/);
    assert.match((await rejectsWith(grant('/usr/sbin/fstrim', ['--all']), 'validation', 'untrusted_program')).message, /symbolic link/);
    await rejectsWith(grant('/usr/bin/logger', ['ran']), 'validation', 'not_a_binary');
  });

  test('an argument naming a file the agent could change or redirect is refused', async () => {
    await rejectsWith(grant('/usr/bin/df', ['/home/deploy/x']), 'validation', 'untrusted_argument');
    await rejectsWith(grant('/usr/bin/df', ['/tmp/x']), 'validation', 'untrusted_argument');
    await rejectsWith(grant('/usr/bin/df', ['--output=source', '/var/tmp/x']), 'validation', 'untrusted_argument');
    await rejectsWith(grant('/usr/bin/df', ['x/y']), 'validation', 'bad_params');
  });

  test('nothing was written', async () => {
    assert.deepEqual(await sudoersD(), ['README']);
  });
});

describe('cron jobs and timers that are shells in disguise', () => {
  test('a cron job naming the loader, a shell, an interpreter or a runner is refused', async () => {
    for (const program of [LOADER, DASH, '/usr/bin/perl', '/usr/bin/setarch', '/usr/bin/env', '/usr/bin/nice']) await rejectsWith(cron(program, [DASH]), 'authorization', 'program_refused');
    await rejectsWith(cron('/usr/bin/logger', ['ran']), 'validation', 'not_a_binary');
    await rejectsWith(cron('/usr/bin/uptime'), 'validation', 'untrusted_program');
    await rejectsWith(cron('/usr/bin/df', ['-p;id']), 'validation', 'bad_params');
    await rejectsWith(cron('/usr/bin/df', ['%']), 'validation', 'bad_params');
    assert.ok(!(await cronD()).some((f) => f.startsWith('airlock-')), 'no cron file was written');
  });

  test('a timer for a service that runs a program off the allowlist or outside its usage lines, or for a template instance, is refused', async () => {
    await rejectsWith(timer('airlock-sh-job.service'), 'authorization', 'program_refused');
    await rejectsWith(timer('airlock-env-job.service'), 'authorization', 'program_refused');
    await rejectsWith(timer('airlock-freeze-job.service'), 'authorization', 'program_refused');
    await rejectsWith(timer('airlock-journal-job.service'), 'authorization', 'arguments_refused');
    const e = await rejectsWith(timer('airlock-tpl@x.service'), 'authorization', 'template_instance');
    assert.match(e.message, /instance name \(x\)/);
    assert.equal(await w.d.box.readFile('/etc/systemd/system/airlock-attack.timer'), null, 'no timer was written');
  });
});
