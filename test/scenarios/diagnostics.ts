/**
 * diagnostics actions, in the booted Debian test bed (journald, sshd and systemd-run are
 * needed; its network namespace is private). Each read is run through the daemon and its
 * output compared with the same tool run outside the daemon, or with the /proc, /etc or
 * sshd files it reports on. What a read should find is put there first: a veth pair with a
 * permanent neighbour, a routing rule, a TCP connection, processes with known limits and
 * user, a damaged journal file.
 */
import assert from 'node:assert/strict';
import type { ResultEnvelope } from '../../src/protocol/messages.js';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const IP = '/usr/sbin/ip';
const SS = '/usr/bin/ss';
const PS = '/usr/bin/ps';
const SYSTEMCTL = '/usr/bin/systemctl';
const JOURNALCTL = '/usr/bin/journalctl';

const IF = 'diag0';
const PEER = 'diag1';
const NEIGHBOUR = { dst: '192.0.2.9', lladdr: '02:00:00:00:00:09' };
const RULE_PRIORITY = 1234;
const PAIR_PORT = 47011;
const CLOSED_PORT = 47012;
const USER = 'airlock-diag';
const USER_UNIT = 'airlock-diag-user.service';
const SSHD_CONFIG = '/etc/ssh/sshd_config';

const text = (r: ResultEnvelope) => r.output.join('\n').trim();
const json = (s: string): unknown => JSON.parse(s);

async function must(box: SandboxView, program: string, args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function waitFor(what: string, ok: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts `argv` as a transient service and returns its main PID. */
async function startUnit(box: SandboxView, unit: string, properties: string[], argv: string[]): Promise<number> {
  // Type=exec: systemd-run returns once the program runs, with its limits and credentials set;
  // a plain service counts as started at fork, when its limits are still the manager's.
  await must(box, '/usr/bin/systemd-run', [`--unit=${unit}`, '--property=Restart=no', '--property=Type=exec', ...properties.map((p) => `--property=${p}`), '--', ...argv]);
  const pid = Number((await must(box, SYSTEMCTL, ['show', '-p', 'MainPID', '--value', '--', unit])).trim());
  assert.ok(pid > 1, `${unit} has a main process`);
  return pid;
}

/** The parent PID /proc gives, or null when the process is gone. */
async function ppidOf(box: SandboxView, pid: number): Promise<number | null> {
  const stat = await box.readFile(`/proc/${pid}/stat`);
  return stat === null ? null : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** ps output as rows of whitespace-separated columns, header first. */
const psRows = (s: string) => s.split('\n').filter((l) => l.trim()).map((l) => l.trim().split(/\s+/));

/** Lines of `stat` output without the access time, which reading the file may move. */
const statLines = (s: string) => s.split('\n').map((l) => l.trimEnd()).filter((l) => l && !/^Access: \d/.test(l));

/** FileInfo of `path`: the same lines as stat run outside the daemon, and `shows` in them. */
function fileInfo(title: string, path: string, shows: RegExp): Scenario {
  return {
    title,
    action: 'FileInfo',
    params: { path },
    check: async (box, r) => {
      assert.deepEqual(statLines(r.output.join('\n')), statLines(await must(box, '/usr/bin/stat', ['--', path])));
      assert.match(text(r), shows);
    },
  };
}

async function journalDir(box: SandboxView): Promise<string> {
  return `/var/log/journal/${((await box.readFile('/etc/machine-id')) ?? '').trim()}`;
}
const DAMAGED = 'system@00000000000000000000000000000d1a-0000000000000001-0000000000000001.journal';

let limitsPid = 0;
let userPid = 0;

export const scenarios: Scenario[] = [
  // ------------------------------------------------------------ network
  {
    action: 'ListNeighbours',
    params: {},
    setup: async (box) => {
      await must(box, IP, ['link', 'add', IF, 'type', 'veth', 'peer', 'name', PEER]);
      await must(box, IP, ['addr', 'add', '192.0.2.1/24', 'dev', IF]);
      for (const dev of [IF, PEER]) await must(box, IP, ['link', 'set', 'dev', dev, 'up']);
      await must(box, IP, ['neigh', 'add', NEIGHBOUR.dst, 'lladdr', NEIGHBOUR.lladdr, 'dev', IF, 'nud', 'permanent']);
    },
    check: async (box, r) => {
      type Neigh = { dst: string; dev: string; lladdr?: string; state: string[] };
      const permanent = (rows: Neigh[]) => rows.filter((n) => n.state.includes('PERMANENT'));
      const got = permanent(json(text(r)) as Neigh[]);
      assert.deepEqual(got, permanent(json(await must(box, IP, ['-j', 'neigh', 'show'])) as Neigh[]));
      assert.deepEqual(got.map((n) => [n.dst, n.dev, n.lladdr]), [[NEIGHBOUR.dst, IF, NEIGHBOUR.lladdr]]);
    },
  },
  {
    title: 'one interface',
    action: 'InterfaceStatistics',
    params: { interface: IF },
    check: async (box, r) => {
      type Link = { ifindex: number; ifname: string; mtu: number; stats64: { rx: Record<string, number>; tx: Record<string, number> } };
      const [got, ...more] = json(text(r)) as Link[];
      assert.deepEqual(more, [], 'one interface');
      const [now] = json(await must(box, IP, ['-j', '-s', 'link', 'show', 'dev', IF])) as Link[];
      assert.deepEqual([got!.ifindex, got!.ifname, got!.mtu], [now!.ifindex, IF, now!.mtu]);
      for (const dir of ['rx', 'tx'] as const) {
        assert.deepEqual(Object.keys(got!.stats64[dir]), Object.keys(now!.stats64[dir]));
        for (const [k, v] of Object.entries(got!.stats64[dir])) assert.ok(v <= now!.stats64[dir][k]!, `${dir}.${k}: counters only grow`);
      }
    },
  },
  {
    title: 'every interface',
    action: 'InterfaceStatistics',
    params: {},
    check: async (box, r) => {
      const names = (s: string) => (json(s) as Array<{ ifname: string }>).map((l) => l.ifname).sort();
      assert.deepEqual(names(text(r)), names(await must(box, IP, ['-j', '-s', 'link', 'show'])));
      assert.ok(names(text(r)).includes('lo') && names(text(r)).includes(IF));
    },
  },
  {
    action: 'ListRoutingRules',
    params: {},
    setup: async (box) => {
      await must(box, IP, ['rule', 'add', 'from', '192.0.2.0/24', 'lookup', '100', 'priority', String(RULE_PRIORITY)]);
    },
    check: async (box, r) => {
      assert.equal(r.output.length, 2, 'one JSON array per address family');
      assert.deepEqual(json(r.output[0]!), json(await must(box, IP, ['-j', '-4', 'rule', 'show'])));
      assert.deepEqual(json(r.output[1]!), json(await must(box, IP, ['-j', '-6', 'rule', 'show'])));
      const ours = (json(r.output[0]!) as Array<Record<string, unknown>>).find((x) => x.priority === RULE_PRIORITY);
      assert.deepEqual(ours, { priority: RULE_PRIORITY, src: '192.0.2.0', srclen: 24, table: '100' });
    },
  },
  {
    action: 'ListConnections',
    params: {},
    setup: async (box) => {
      // A process that connects to itself and holds the connection: node is bind-mounted into the test bed.
      await box.writeFile!(
        '/var/tmp/airlock-diag-pair.mjs',
        `import net from 'node:net';\nnet.createServer((c) => c.on('error', () => {})).listen(${PAIR_PORT}, '127.0.0.1', () => net.connect(${PAIR_PORT}, '127.0.0.1').on('error', () => {}));\n`,
      );
      await startUnit(box, 'airlock-diag-pair.service', [], [process.execPath, '/var/tmp/airlock-diag-pair.mjs']);
      await waitFor('the connection', async () => (await must(box, SS, ['-H', '-t', '-n', 'state', 'established'])).includes(`127.0.0.1:${PAIR_PORT} `));
    },
    check: async (box, r) => {
      const sockets = (lines: string[]) => lines.map((l) => l.trim().split(/\s+/).slice(2).join(' ')).filter(Boolean).sort();
      const got = sockets(r.output);
      assert.deepEqual(got, sockets((await must(box, SS, ['-H', '-t', '-n', 'state', 'established'])).split('\n')));
      assert.ok(got.some((s) => s.startsWith(`127.0.0.1:${PAIR_PORT} `)), 'the server end');
      assert.ok(got.some((s) => s.endsWith(` 127.0.0.1:${PAIR_PORT}`)), 'the client end');
      assert.ok(!text(r).includes('users:'), 'no process names: it runs as nobody');
    },
  },
  {
    title: 'the test bed sshd answers with its host keys',
    action: 'ScanSshHostKeys',
    params: { host: '127.0.0.1', port: 22 },
    setup: async (box) => {
      await waitFor('ssh.service', async () => (await box.run(SYSTEMCTL, ['is-active', '--', 'ssh.service'])).stdout.trim() === 'active');
    },
    check: async (box, r) => {
      assert.ok(r.output.some((l) => /^127\.0\.0\.1\s+STREAM\b/.test(l)), 'getent shows the address');
      const offered = r.output.filter((l) => /^127\.0\.0\.1 (ssh|ecdsa)-/.test(l)).map((l) => l.split(' ').slice(1, 3).join(' ')).sort();
      const files = (await must(box, '/usr/bin/ls', ['-1', '/etc/ssh'])).split('\n').filter((n) => /^ssh_host_.*_key\.pub$/.test(n));
      const onDisk: string[] = [];
      for (const f of files) onDisk.push(((await box.readFile(`/etc/ssh/${f}`)) ?? '').trim().split(' ').slice(0, 2).join(' '));
      assert.ok(onDisk.length >= 2);
      assert.deepEqual(offered, onDisk.sort(), 'the keys offered are the host keys in /etc/ssh');
    },
  },
  {
    title: 'nothing answers on a closed port',
    action: 'ScanSshHostKeys',
    params: { host: 'localhost', port: CLOSED_PORT },
    check: async (box, r) => {
      assert.ok(!(await must(box, SS, ['-H', '-t', '-l', '-n'])).includes(`:${CLOSED_PORT} `), 'nothing listens there');
      assert.ok(r.output.some((l) => /^(127\.0\.0\.1|::1)\s+STREAM\s+localhost$/.test(l)), 'getent resolves localhost');
      assert.deepEqual(r.output.filter((l) => /^\S+ (ssh|ecdsa)-/.test(l)), [], 'no host key');
    },
  },
  {
    title: 'an open port: the connection succeeds',
    action: 'CheckTcpPort',
    params: { host: 'localhost', port: 22 },
    check: async (box, r) => {
      assert.ok((await must(box, SS, ['-H', '-t', '-l', '-n'])).includes(':22 '), 'sshd listens on 22');
      assert.ok(r.output.some((l) => /^(127\.0\.0\.1|::1)\s+STREAM\s+localhost$/.test(l)), 'getent resolves localhost');
    },
  },
  {
    title: 'a closed port: the job fails and says the connection was refused',
    action: 'CheckTcpPort',
    params: { host: '127.0.0.1', port: CLOSED_PORT },
    expect: 'Failed',
    check: async (box, r) => {
      assert.ok(!(await must(box, SS, ['-H', '-t', '-l', '-n'])).includes(`:${CLOSED_PORT} `), 'nothing listens there');
      assert.match(JSON.stringify(r.error), /refused/i);
    },
  },
  // ------------------------------------------------------------ logging
  {
    action: 'ListBoots',
    params: {},
    check: async (box, r) => {
      type Boot = { index: number; boot_id: string; first_entry: number };
      const strip = (bs: Boot[]) => bs.map((b) => [b.index, b.boot_id, b.first_entry]);
      const got = json(text(r)) as Boot[];
      assert.deepEqual(strip(got), strip(json(await must(box, JOURNALCTL, ['--list-boots', '--no-pager', '-o', 'json'])) as Boot[]));
      const current = got.find((b) => b.index === 0);
      assert.equal(current?.boot_id, ((await box.readFile('/proc/sys/kernel/random/boot_id')) ?? '').trim().replace(/-/g, ''), 'boot 0 is the running boot');
    },
  },
  {
    action: 'KernelMessages',
    params: { lines: 50, priority: 'info' },
    check: async (box, r) => {
      // The container's journald gets no kernel messages: both reads say so, the same way.
      assert.equal(text(r), (await must(box, JOURNALCTL, ['--dmesg', '--no-pager', '-o', 'short-iso', '-n', '50', '-p', 'info'])).trim());
      assert.ok(text(r) !== '');
    },
  },
  {
    action: 'ShowJournaldConfig',
    params: {},
    check: async (box, r) => {
      assert.equal(text(r), (await must(box, '/usr/bin/systemd-analyze', ['cat-config', '--no-pager', 'systemd/journald.conf'])).trim());
      const main = (await box.readFile('/etc/systemd/journald.conf')) ?? '';
      assert.ok(r.output.includes('# /etc/systemd/journald.conf'), 'the file header');
      assert.ok(main.split('\n').filter((l) => l.startsWith('#Storage=') || l === '[Journal]').every((l) => r.output.includes(l)), 'the file itself');
    },
  },
  {
    title: 'every file passes',
    action: 'VerifyJournal',
    params: {},
    // The active file is verified while journald appends to it; a rotation first leaves it small and
    // fresh, so the test is not at the mercy of a write caught half done (seen once under load).
    setup: async (box) => void (await must(box, JOURNALCTL, ['--rotate'])),
    check: async (box, r) => {
      assert.deepEqual(r.output, [], '--quiet: nothing on stdout');
      const outside = await box.run(JOURNALCTL, ['--verify', '--no-pager']);
      assert.equal(outside.code, 0, outside.stderr);
      assert.match(outside.stderr, /^PASS: \/var\/log\/journal\//m);
    },
  },
  {
    title: 'a damaged file fails it, named',
    action: 'VerifyJournal',
    params: {},
    expect: 'Failed',
    setup: async (box) => {
      // A copy of the active file, with random bytes in its objects, under an archived file's name.
      const dir = await journalDir(box);
      await must(box, '/usr/bin/cp', ['--', `${dir}/system.journal`, `${dir}/${DAMAGED}`]);
      await must(box, '/usr/bin/dd', ['if=/dev/urandom', `of=${dir}/${DAMAGED}`, 'bs=1', 'count=512', 'seek=5000', 'conv=notrunc']);
    },
    check: async (box, r) => {
      const dir = await journalDir(box);
      try {
        assert.equal(r.error?.code, 'command_failed');
        assert.match(r.error?.message ?? '', new RegExp(`FAIL: ${dir}/${DAMAGED.replace(/[.]/g, '\\.')}`));
        const outside = await box.run(JOURNALCTL, ['--verify', '--quiet', '--no-pager']);
        assert.equal(outside.code, 1);
        assert.ok(outside.stderr.includes(`FAIL: ${dir}/${DAMAGED}`));
      } finally {
        await must(box, '/usr/bin/rm', ['-f', '--', `${dir}/${DAMAGED}`]);
      }
    },
  },
  // ------------------------------------------------------------ processes
  {
    action: 'ProcessTree',
    params: {},
    check: async (box, r) => {
      const [header, ...rows] = psRows(r.output.join('\n'));
      assert.deepEqual(header, ['PID', 'PPID', 'USER', 'STAT', 'COMMAND']);
      assert.ok(rows.some((c) => c[0] === '1' && c[4] === 'systemd'));
      // Every parent the tree shows is the one /proc gives (processes that exited since are skipped).
      let compared = 0;
      for (const c of rows) {
        const ppid = await ppidOf(box, Number(c[0]));
        if (ppid === null) continue;
        assert.equal(Number(c[1]), ppid, `parent of ${c[0]}`);
        compared++;
      }
      assert.ok(compared >= 5, `${compared} processes compared`);
      // A child is drawn under its parent: the row above an indented one is its parent or a sibling.
      const lines = r.output.slice(1);
      const child = lines.findIndex((l) => l.includes('\\_ '));
      assert.ok(child > 0, 'an indented child');
      const parentPid = psRows(lines[child]!)[0]![1];
      assert.ok(lines.slice(0, child).some((l) => psRows(l)[0]![0] === parentPid), 'its parent is above it');
    },
  },
  {
    action: 'ProcessesOfUser',
    params: { user: USER },
    setup: async (box) => {
      await must(box, '/usr/sbin/useradd', ['-M', '-s', '/usr/sbin/nologin', '--', USER]);
      userPid = await startUnit(box, USER_UNIT, [`User=${USER}`], ['/usr/bin/sleep', 'infinity']);
    },
    check: async (box, r) => {
      const [header, ...rows] = psRows(r.output.join('\n'));
      assert.deepEqual(header, ['PID', 'PPID', 'STAT', 'STARTED', '%CPU', '%MEM', 'RSS', 'UNIT', 'COMMAND']);
      const uid = (await must(box, '/usr/bin/id', ['-u', '--', USER])).trim();
      const outside = (await must(box, PS, ['-o', 'pid=', '--user', uid])).split('\n').map((s) => s.trim()).filter(Boolean);
      assert.deepEqual(rows.map((c) => c[0]).sort(), outside.sort());
      assert.deepEqual(rows.map((c) => [Number(c[0]), c.at(-2), c.at(-1)]), [[userPid, USER_UNIT, 'sleep']]);
    },
  },
  {
    title: 'a user running nothing',
    action: 'ProcessesOfUser',
    params: { user: 'nobody' },
    check: async (box, r) => {
      assert.equal((await box.run(PS, ['-o', 'pid=', '--user', '65534'])).code, 1, 'nobody runs nothing here');
      assert.equal(psRows(r.output.join('\n')).length, 1, 'only the header');
    },
  },
  {
    action: 'ProcessLimits',
    get params() {
      return { pid: limitsPid };
    },
    setup: async (box) => {
      limitsPid = await startUnit(box, 'airlock-diag-limits.service', ['LimitNOFILE=4321:8765'], ['/usr/bin/sleep', 'infinity']);
    },
    check: async (box, r) => {
      const proc = ((await box.readFile(`/proc/${limitsPid}/limits`)) ?? '').trimEnd();
      assert.equal(r.output.join('\n').trimEnd(), proc);
      assert.match(text(r), /^Max open files\s+4321\s+8765\s+files\s*$/m);
    },
  },
  // ------------------------------------------------------------ files
  fileInfo('a file', SSHD_CONFIG, /regular file/),
  fileInfo('a symbolic link is described, not followed', '/etc/os-release', /File: \/etc\/os-release -> .*\n.*symbolic link/),
  fileInfo('a directory', '/etc/logrotate.d', /directory/),
  {
    action: 'SearchConfigFile',
    params: { path: SSHD_CONFIG, text: 'Include' },
    check: async (box, r) => {
      const outside = await must(box, '/usr/bin/grep', ['--fixed-strings', '--line-number', '--', 'Include', SSHD_CONFIG]);
      assert.equal(text(r), outside.trim());
      const lines = ((await box.readFile(SSHD_CONFIG)) ?? '').split('\n');
      for (const l of r.output) {
        const [, n, rest] = /^(\d+):(.*)$/.exec(l)!;
        assert.equal(lines[Number(n) - 1], rest, `line ${n} is the file's`);
        assert.ok(rest!.includes('Include'));
      }
      assert.ok(r.output.length >= 1);
    },
  },
  {
    title: 'in any case, words with a space',
    action: 'SearchConfigFile',
    params: { path: SSHD_CONFIG, text: 'permitrootlogin prohibit-password', ignoreCase: true },
    check: async (box, r) => {
      const outside = await must(box, '/usr/bin/grep', ['--fixed-strings', '--line-number', '--ignore-case', '--', 'permitrootlogin prohibit-password', SSHD_CONFIG]);
      assert.equal(text(r), outside.trim());
      assert.ok(r.output.some((l) => l.includes('PermitRootLogin prohibit-password')));
    },
  },
  {
    title: 'no line matches',
    action: 'SearchConfigFile',
    params: { path: SSHD_CONFIG, text: 'airlock-no-such-text' },
    check: async (box, r) => {
      assert.equal((await box.run('/usr/bin/grep', ['--fixed-strings', '--', 'airlock-no-such-text', SSHD_CONFIG])).code, 1);
      assert.deepEqual(r.output, []);
    },
  },
  // ------------------------------------------------------------ kernel
  {
    action: 'KernelCommandLine',
    params: {},
    check: async (box, r) => {
      const cmdline = ((await box.readFile('/proc/cmdline')) ?? '').trim();
      assert.ok(cmdline !== '');
      assert.equal(text(r), cmdline);
    },
  },
  {
    action: 'ResourcePressure',
    params: {},
    check: async (box, r) => {
      const line = /^\/proc\/pressure\/(cpu|memory|io):(some|full) avg10=\d+\.\d\d avg60=\d+\.\d\d avg300=\d+\.\d\d total=(\d+)$/;
      const got = r.output.map((l) => line.exec(l));
      assert.ok(got.every(Boolean), `every line is FILE:KIND avg10= avg60= avg300= total=: ${r.output.join(' | ')}`);
      let expected = 0;
      for (const res of ['cpu', 'memory', 'io']) {
        for (const l of ((await box.readFile(`/proc/pressure/${res}`)) ?? '').split('\n').filter(Boolean)) {
          const [kind, , , , total] = l.split(' ');
          const mine = got.find((m) => m![1] === res && m![2] === kind);
          assert.ok(mine, `${res} ${kind}`);
          assert.ok(Number(mine![3]) <= Number(total!.slice('total='.length)), `${res} ${kind}: the total only grows`);
          expected++;
        }
      }
      assert.equal(got.length, expected);
    },
  },
];
