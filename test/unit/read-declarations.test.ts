/**
 * What every read declares (sensitive, reachesNetwork), over the whole catalogue, and
 * the one decision that relies on it: the policy's `reads` rule (autoApprovalLane in src/daemon/authz.ts)
 * approves only reads declared non-sensitive, at Low risk, with `reads = "auto"`, and
 * never a read that reaches the network for a token principal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../../src/catalogue/index.js';
import type { ActionNature, AnyAction } from '../../src/catalogue/action.js';
import { NETWORK_PROGRAMS } from '../../src/catalogue/programs.js';
import { autoApprovalLane, type Caller } from '../../src/daemon/authz.js';
import { DEFAULT_POLICY, parsePolicy, type Policy } from '../../src/policy/policy.js';
import { RISKS } from '../../src/protocol/risk.js';

const ALL = [...CATALOGUE.values()];
const READS = ALL.filter((a) => a.readOnly);
const get = (name: string): AnyAction => {
  const a = CATALOGUE.get(name);
  assert.ok(a, `no action ${name}`);
  return a;
};

test('every read declares sensitive and reachesNetwork; no change declares either', () => {
  assert.ok(READS.length > 90, `only ${READS.length} reads`);
  for (const a of ALL) {
    if (a.readOnly) {
      assert.equal(typeof a.sensitive, 'boolean', `${a.name}: sensitive`);
      assert.equal(typeof a.reachesNetwork, 'boolean', `${a.name}: reachesNetwork`);
    } else {
      assert.ok(!('sensitive' in a) && !('reachesNetwork' in a), `${a.name} changes the host and declares a read property`);
    }
  }
});

test('the reads the review named, and every kind of content a person should see first, are sensitive', () => {
  const sensitive = [
    // journals and logs: cron's command lines, mistyped passwords, other users' sessions
    'UnitLogs', 'JournalQuery', 'KernelMessages', 'ContainerLogs',
    // sudoers content, and visudo's quote of a broken line
    'ValidateSudoers', 'ListSudoGrants', 'ShowSudoPolicyFor',
    // command lines and environments
    'ListCronJobs', 'InspectContainer', 'ListContainers', 'ShowUnitFile', 'ShowServiceOverrides',
    // configuration file contents
    'ReadConfigFile', 'SearchConfigFile', 'ListFstab', 'ListRepositories', 'ShowLogrotateConfig', 'ListModuleBlacklist', 'ShowSshdConfig', 'TestSshdConfig',
    // key material, shadow and ageing data
    'ListAuthorizedKeys', 'ShowPasswordAging',
    // network configuration
    'DnsResolvers', 'ListHostsEntries', 'ListRuleset', 'UfwStatus', 'FirewallStatus',
    // other users' activity
    'LastLogins', 'ListSessions', 'ListSshSessions', 'ListConnections',
  ];
  for (const name of sensitive) {
    const a = get(name);
    assert.ok(a.readOnly && a.sensitive, `${name} must be declared sensitive`);
  }
  // Counts, states, versions and lists of names are not.
  for (const name of ['ListUsers', 'ListGroups', 'HostInfo', 'DiskUsage', 'ListServices', 'ServiceStatus', 'ListInstalledPackages', 'Uptime', 'ListUnitFiles', 'ListConfigDirectory']) {
    const a = get(name);
    assert.ok(a.readOnly && !a.sensitive, `${name} is an inventory read`);
  }
});

test('a read raised above Low was raised for what it shows: every Medium or High read is sensitive', () => {
  for (const a of READS) if (a.risk !== 'low') assert.ok(a.sensitive, `${a.name} is ${a.risk} but not declared sensitive`);
});

test('the network scanners the review named declare that they reach the network', () => {
  for (const name of ['CheckTcpPort', 'ScanSshHostKeys', 'ResolveHost']) assert.ok(get(name).readOnly && (get(name) as ActionNature & { reachesNetwork: boolean }).reachesNetwork, name);
});

/**
 * Every source line of the catalogue that runs a network program, attributed to the action
 * whose declaration encloses it (the last `name: 'X',` of a catalogue action above it,
 * with no top-level `});` between). A helper outside any declaration is a finding too:
 * the program would run for actions this check cannot see.
 */
function networkCommandsInSource(): Array<{ where: string; action: string | null; line: string }> {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'catalogue');
  const files = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : []));
  const runs = new RegExp(`(command|run)\\(\\s*['"](${NETWORK_PROGRAMS.join('|')})['"]`);
  const out: Array<{ where: string; action: string | null; line: string }> = [];
  for (const f of files(dir)) {
    let current: string | null = null;
    readFileSync(f, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const named = /^\s*name: '([A-Z][A-Za-z0-9]+)',$/.exec(line);
        if (named && CATALOGUE.has(named[1]!)) current = named[1]!;
        else if (/^\}\);?$/.test(line) || /^(export )?(const|function|async function) /.test(line)) current = null;
        if (runs.test(line) && !/^\s*(\*|\/\/)/.test(line)) out.push({ where: `${f.slice(dir.length + 1)}:${i + 1}`, action: current, line: line.trim() });
      });
  }
  return out;
}

test('every action whose mechanism runs a network program declares reachesNetwork, and no state reader runs one', () => {
  const found = networkCommandsInSource();
  assert.ok(found.length >= 5, `the source scan found only ${found.length} network commands`);
  for (const f of found) {
    assert.ok(f.action, `${f.where}: ${f.line} runs a network program outside any action declaration`);
    assert.doesNotMatch(f.line, /\brun\(/, `${f.where}: a state reader runs a network program before anyone approved`);
    const a = get(f.action);
    assert.ok(a.readOnly && a.reachesNetwork, `${f.where}: ${f.action} runs ${f.line} but does not declare reachesNetwork`);
  }
  // And the other way round: an action declaring it has a network command in its declaration.
  for (const a of READS) if (a.reachesNetwork) assert.ok(found.some((f) => f.action === a.name), `${a.name} declares reachesNetwork but runs no network program`);
});

/** The reads lane of authz.ts's autoApprovalLane, for a principal that is not unattended. */
const readsLaneApplies = (a: ActionNature, risk: (typeof RISKS)[number], policy: Pick<Policy, 'reads'>, who: { via?: 'unix' | 'token' }) =>
  autoApprovalLane({ ...who, unattended: false } as Caller, a, risk, policy.reads) === 'reads';
const unix = { via: 'unix' as const };
const kernelNamed = {}; // Unix peers carry no `via` in their Identity
const token = { via: 'token' as const };
const auto = DEFAULT_POLICY;
const ask = parsePolicy('reads = "ask"\n');

test('readsLaneApplies: only non-sensitive Low reads under reads = "auto"', () => {
  assert.equal(readsLaneApplies(get('ListUsers'), 'low', auto, unix), true);
  assert.equal(readsLaneApplies(get('ListUsers'), 'low', auto, kernelNamed), true);
  assert.equal(readsLaneApplies(get('ListUsers'), 'low', auto, token), true, 'a non-sensitive read on the host itself is fine for a token principal');
  assert.equal(readsLaneApplies(get('ListUsers'), 'low', ask, unix), false, 'reads = "ask"');
  assert.equal(readsLaneApplies(get('ListUsers'), 'medium', auto, unix), false, 'a risk the policy raised');
  assert.equal(readsLaneApplies(get('UnitLogs'), 'low', auto, unix), false, 'sensitive');
  assert.equal(readsLaneApplies(get('ValidateSudoers'), 'low', auto, unix), false, 'sensitive');
  assert.equal(readsLaneApplies(get('CreateGroup'), 'low', auto, unix), false, 'a change');
  assert.equal(readsLaneApplies(get('CheckTcpPort'), 'low', auto, unix), true, 'a Unix user on the host could open the connection anyway');
  assert.equal(readsLaneApplies(get('CheckTcpPort'), 'low', auto, token), false, 'network read from a token principal');
});

test('readsLaneApplies over the whole catalogue: never a sensitive read, never a change, never a network read for a token principal', () => {
  let approved = 0;
  for (const a of ALL) {
    for (const risk of RISKS) {
      for (const policy of [auto, ask]) {
        for (const who of [unix, kernelNamed, token]) {
          const yes = readsLaneApplies(a, risk, policy, who);
          if (!yes) continue;
          approved++;
          assert.ok(a.readOnly, `${a.name} changes the host`);
          assert.ok(!a.sensitive, `${a.name} is sensitive`);
          assert.equal(risk, 'low');
          assert.equal(policy.reads, 'auto');
          assert.ok(!(a.reachesNetwork && who === token), `${a.name} reaches the network for a token principal`);
        }
      }
    }
  }
  const nonSensitive = READS.filter((a) => !a.sensitive);
  assert.equal(approved, nonSensitive.length * 3 - nonSensitive.filter((a) => a.reachesNetwork).length, 'every non-sensitive read is approved for each principal kind, except network reads for tokens');
});
