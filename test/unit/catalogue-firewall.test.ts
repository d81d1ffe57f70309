import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyAction } from '../../src/catalogue/action.js';
import * as firewall from '../../src/catalogue/families/firewall/index.js';
import { JAIL_DROPIN, parseJailIni, renderJailDropin } from '../../src/catalogue/families/firewall/jail-options.js';
import { nftDelta } from '../../src/catalogue/families/firewall/nft-change.js';
import { BASELINE_RULES, lockoutProblems, parseSimpleRule, ruleText } from '../../src/catalogue/families/firewall/nft-rules.js';
import { NFT_FILE, NFT_UNIT_TEXT, parseTable, renderTable, type TableModel } from '../../src/catalogue/families/firewall/nft-table.js';
import { duration, hostAddress, jailName, sourceAddress } from '../../src/catalogue/families/firewall/params.js';
import { parseSockets } from '../../src/catalogue/families/firewall/sockets.js';
import { netText, parseNet } from '../../src/catalogue/lib/net-address.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { assertNoChange, checked, FixtureHost, INJECTIONS, type Node } from './catalogue-fixture-host.js';

const actions = [...firewall.actions].filter((a): a is AnyAction => typeof a === 'object' && a !== null && 'mechanism' in a && 'name' in a);
const byName = (n: string) => actions.find((a) => a.name === n)!;

const UNIT_PATH = '/etc/systemd/system/airlock-nftables.service';
const UNIT_LINK = '/etc/systemd/system/sysinit.target.wants/airlock-nftables.service';

/** A live table inet airlock as `nft --handle --stateless list table` prints it. */
const TABLE = `table inet airlock { # handle 4
	chain input { # handle 1
		type filter hook input priority filter; policy accept;
		ip saddr 203.0.113.7 drop comment "airlock: deny from 203.0.113.7" # handle 5
		tcp dport 22 accept comment "airlock: allow tcp/22" # handle 6
	}

	chain forward { # handle 2
		type filter hook forward priority filter; policy accept;
	}
}
`;
const LISTEN = `tcp   LISTEN 0      128          0.0.0.0:22        0.0.0.0:*    users:(("sshd",pid=42,fd=3))
tcp   LISTEN 0      128             [::]:22           [::]:*    users:(("sshd",pid=42,fd=4))
tcp   LISTEN 0      511        127.0.0.1:5432      0.0.0.0:*    users:(("postgres",pid=77,fd=5))
tcp   LISTEN 0      511          0.0.0.0:80        0.0.0.0:*    users:(("nginx",pid=90,fd=6),("nginx",pid=91,fd=6))
udp   UNCONN 0      0      127.0.0.53%lo:53        0.0.0.0:*    users:(("systemd-resolve",pid=50,fd=13))
`;
const SESSION = '0      0      10.1.2.3:22    198.51.100.20:50111\n0      0      [::ffff:10.1.2.3]:22    [::ffff:192.0.2.9]:40000\n0      0      10.1.2.3:80    203.0.113.99:1234\n';

interface World {
  table?: string | null;
  listen?: string;
  sessions?: string;
  unit?: 'none' | 'enabled' | 'masked';
  saved?: string;
  ufw?: { active: boolean; numbered?: string; added: string[]; defaults?: string } | null;
  f2b?: { running: boolean; jails: Record<string, string[]>; get?: Record<string, string>; test?: number } | null;
  files?: Record<string, Node>;
}

/** A host with nftables, ss, and optionally ufw and fail2ban, answering as the test bed does. */
function world(w: World = {}): FixtureHost {
  const tree: Record<string, Node> = { ...(w.files ?? {}) };
  if (w.unit === 'enabled') Object.assign(tree, { [UNIT_PATH]: NFT_UNIT_TEXT, [UNIT_LINK]: { link: UNIT_PATH } });
  if (w.unit === 'masked') tree[UNIT_PATH] = { link: '/dev/null' };
  if (w.saved !== undefined) tree[NFT_FILE] = w.saved;
  if (w.ufw) Object.assign(tree, { '/usr/sbin/ufw': 'x', '/etc/default/ufw': w.ufw.defaults ?? 'IPV6=yes\nDEFAULT_INPUT_POLICY="DROP"\n' });
  if (w.f2b) tree['/usr/bin/fail2ban-client'] = 'x';
  const ok = (stdout: string) => ({ code: 0, stdout, stderr: '' });
  return new FixtureHost(tree, (program, args) => {
    const a = args.join(' ');
    if (program === 'nft' && a === '--handle --stateless list table inet airlock') {
      const t = w.table === undefined ? TABLE : w.table;
      return t === null ? { code: 1, stdout: '', stderr: 'Error: No such file or directory\nlist table inet airlock\n' } : ok(t);
    }
    if (program === 'nft' && a === 'list tables') return ok(`${w.table === null ? '' : 'table inet airlock\n'}table ip filter\n`);
    if (program === 'ss' && args.includes('-l')) return ok(w.listen ?? LISTEN);
    if (program === 'ls' && a === '-1 -A --quoting-style=escape -- /etc/fail2ban/jail.d') return ok(Object.keys(tree).flatMap((p) => (p.startsWith('/etc/fail2ban/jail.d/') ? [p.slice(21)] : [])).join('\n') + '\n');
    if (program === 'ss') return ok(w.sessions ?? '');
    if (program === 'ufw' && w.ufw && a === 'status numbered') {
      return ok(w.ufw.active ? `Status: active\n\n     To                         Action      From\n     --                         ------      ----\n${w.ufw.numbered ?? ''}` : 'Status: inactive\n');
    }
    if (program === 'ufw' && w.ufw && a === 'show added') return ok(`Added user rules (see 'ufw status' for running firewall):\n${w.ufw.added.map((l) => `ufw ${l}\n`).join('') || '(None)\n'}`);
    if (program === 'fail2ban-client' && w.f2b) {
      const jails = Object.keys(w.f2b.jails);
      if (!w.f2b.running) return { code: 255, stdout: '', stderr: 'Failed to access socket path' };
      if (a === 'status') return ok(`Status\n|- Number of jail:\t${jails.length}\n\`- Jail list:\t${jails.join(', ')}\n`);
      const st = /^-- status (\S+)$/.exec(a);
      if (st) return w.f2b.jails[st[1]!] ? ok(`Status for the jail: ${st[1]}\n\`- Actions\n   \`- Banned IP list:\t${w.f2b.jails[st[1]!]!.join(' ')}\n`) : { code: 255, stdout: '', stderr: 'no jail' };
      const get = /^-- get (\S+) (\S+)$/.exec(a);
      if (get) return ok(`${w.f2b.get?.[`${get[1]} ${get[2]}`] ?? ''}\n`);
    }
    return { code: 127, stdout: '', stderr: 'not scripted' };
  });
}

async function run(name: string, params: Record<string, unknown>, host: FixtureHost = world()) {
  const a = byName(name);
  const p = a.params.parse(params);
  const cur = await a.current(p, host);
  checked(a, p, cur);
  return { steps: a.mechanism(p, cur), preview: a.preview(p, cur), cur, shown: a.shown ? a.shown(cur) : cur };
}

async function refused(name: string, params: Record<string, unknown>, host: FixtureHost, code: string, category?: string) {
  await assert.rejects(
    () => run(name, params, host),
    (e: unknown) => {
      assert.ok(e instanceof AirlockError, String(e));
      assert.equal(e.code, code, e.message);
      if (category) assert.equal(e.category, category);
      return true;
    },
  );
}

// ---------------------------------------------------------------- validators

test('every free-text parameter refuses injection strings', () => {
  const extra = ['1.2.3.4; id', '1.2.3.4 5.6.7.8', 'fe80::1%eth0', '1.2.3.4/8/8', '01.2.3.4', '1.2.3.4/033', '::ffff:1.2.3.4%lo', '256.1.1.1', '1.2.3', '10.0.0.0/33', '::/129'];
  for (const bad of [...INJECTIONS, ...extra]) {
    assert.equal(sourceAddress.safeParse(bad).success, false, `source ${JSON.stringify(bad)}`);
    assert.equal(hostAddress.safeParse(bad).success, false, `ip ${JSON.stringify(bad)}`);
    assert.equal(byName('AllowPort').params.safeParse({ port: 22, protocol: 'tcp', source: bad }).success, false);
    assert.equal(byName('Fail2banBan').params.safeParse({ jail: 'sshd', ip: bad }).success, false);
  }
  for (const bad of [...INJECTIONS, 'a/b', 'sshd]', '[sshd', 'a=b', '.hidden', 'x'.repeat(65)]) {
    assert.equal(jailName.safeParse(bad).success, false, `jail ${JSON.stringify(bad)}`);
    assert.equal(byName('Fail2banStatus').params.safeParse({ jail: bad }).success, false);
  }
  for (const bad of [...INJECTIONS, '0', '-1', '1.5h', '10 m', '10M', '1y', '366d', '53w', '999999999']) {
    assert.equal(duration.safeParse(bad).success, false, `duration ${JSON.stringify(bad)}`);
  }
  for (const bad of [...INJECTIONS, 0, -1, 1.5, 65536, '22', null]) {
    assert.equal(byName('AllowPort').params.safeParse({ port: bad, protocol: 'tcp' }).success, false, `port ${JSON.stringify(bad)}`);
    assert.equal(byName('UfwAllow').params.safeParse({ port: bad, protocol: 'tcp' }).success, false);
    assert.equal(byName('RemoveFirewallRule').params.safeParse({ handle: bad === 65536 ? -5 : bad }).success, false);
    assert.equal(byName('UfwDelete').params.safeParse({ number: bad === 65536 ? 100_000 : bad }).success, false);
  }
  for (const bad of [...INJECTIONS, 'icmp', 'TCP', 'all']) assert.equal(byName('AllowPort').params.safeParse({ port: 22, protocol: bad }).success, false);
  for (const bad of [...INJECTIONS, 'output', 'INPUT']) assert.equal(byName('SetDefaultPolicy').params.safeParse({ chain: bad, policy: 'drop' }).success, false);
  for (const bad of [...INJECTIONS, 'reject', 'DROP']) assert.equal(byName('SetDefaultPolicy').params.safeParse({ chain: 'input', policy: bad }).success, false);
  // Every action refuses unknown keys (no raw rule, no command line).
  for (const a of actions) assert.equal(a.params.safeParse({ ...a.example, rule_text: 'tcp dport 1 accept' }).success, false, a.name);
});

test('source addresses: CIDR allowed, host bits and /0 refused, canonical text as nft prints it', () => {
  for (const ok of ['203.0.113.7', '203.0.113.0/24', '10.0.0.0/8', '2001:db8::/32', '2001:DB8::1', '::1', 'fe80::/10']) assert.ok(sourceAddress.safeParse(ok).success, ok);
  for (const bad of ['10.0.0.1/8', '2001:db8::1/32', '0.0.0.0/0', '::/0']) assert.equal(sourceAddress.safeParse(bad).success, false, bad);
  const canon = (s: string) => netText(parseNet(s)!);
  // Each pair was checked against what nft 1.0.6 lists back.
  assert.equal(canon('10.0.0.1/32'), '10.0.0.1');
  assert.equal(canon('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
  assert.equal(canon('2001:db8::/128'), '2001:db8::');
  assert.equal(canon('1:0:0:2:0:0:0:3'), '1:0:0:2::3');
  assert.equal(canon('1:0:2:0:3:0:4:5'), '1:0:2:0:3:0:4:5');
  assert.equal(canon('::ffff:1.2.3.4'), '::ffff:1.2.3.4');
  assert.equal(canon('::1.2.3.4'), '::1.2.3.4');
  assert.equal(canon('::2'), '::2');
  assert.equal(canon('2001:db8:0:0:1:0:0:0/96'), '2001:db8:0:0:1::/96');
  assert.equal(canon('2001:DB8:0:0::/32'), '2001:db8::/32');
  assert.equal(canon('::'), '::');
});

test('rule texts are what nft prints back, and parse back', () => {
  assert.equal(ruleText('accept', { port: 22, protocol: 'tcp' }), 'tcp dport 22 accept comment "airlock: allow tcp/22"');
  assert.equal(ruleText('accept', { port: 5432, protocol: 'tcp', source: '10.0.0.0/8' }), 'ip saddr 10.0.0.0/8 tcp dport 5432 accept comment "airlock: allow tcp/5432 from 10.0.0.0/8"');
  assert.equal(ruleText('drop', { source: '2001:DB8::/32' }), 'ip6 saddr 2001:db8::/32 drop comment "airlock: deny from 2001:db8::/32"');
  assert.equal(ruleText('drop', { port: 53, protocol: 'udp', source: '198.51.100.1/32' }), 'ip saddr 198.51.100.1 udp dport 53 drop comment "airlock: deny udp/53 from 198.51.100.1"');
  assert.deepEqual(parseSimpleRule('ip saddr 10.0.0.0/8 tcp dport 5432 accept'), { source: parseNet('10.0.0.0/8'), protocol: 'tcp', port: 5432, verdict: 'accept' });
  assert.equal(parseSimpleRule('ip saddr { 10.0.0.0/8, 192.168.0.0/16 } accept'), null, 'other shapes are not guessed at');
  assert.equal(parseSimpleRule('ip6 saddr 10.0.0.1 accept'), null, 'family mismatch');
});

// ---------------------------------------------------------------- state readers

test('parseTable reads policies, rules and handles, and flags what Airlock did not write', () => {
  const t = parseTable(TABLE);
  assert.deepEqual(t.chains.input, {
    policy: 'accept',
    rules: [
      { handle: 5, text: 'ip saddr 203.0.113.7 drop comment "airlock: deny from 203.0.113.7"' },
      { handle: 6, text: 'tcp dport 22 accept comment "airlock: allow tcp/22"' },
    ],
  });
  assert.deepEqual(t.present, ['input', 'forward']);
  assert.deepEqual(t.unmanaged, []);
  const foreign = `table inet airlock { # handle 4
	set blocked { # handle 3
		type ipv4_addr
		elements = { 1.2.3.4,
			     5.6.7.8 }
	}

	chain input { # handle 1
		type filter hook input priority 10; policy drop;
		tcp dport { 80, 443 } accept comment "web {x}" # handle 9
	}

	chain mine { # handle 7
		counter
	}
}
`;
  const f = parseTable(foreign);
  assert.deepEqual(f.unmanaged, ['set blocked', 'chain input: type filter hook input priority 10; policy drop;', 'chain mine']);
  assert.deepEqual(f.chains.input.rules, [{ handle: 9, text: 'tcp dport { 80, 443 } accept comment "web {x}"' }]);
  assert.deepEqual(f.present, ['input']);
});

test('parseSockets finds sshd ports and SSH peers (dual-stack peers as IPv4)', () => {
  const s = parseSockets(LISTEN, SESSION);
  assert.deepEqual(s.sshPorts, [22]);
  assert.deepEqual(s.sshPeers, [
    { port: 22, peer: '198.51.100.20' },
    { port: 22, peer: '192.0.2.9' },
  ]);
  assert.deepEqual(s.listeners.find((l) => l.port === 53), { proto: 'udp', address: '127.0.0.53', port: 53, processes: ['systemd-resolve'] });
  assert.deepEqual(s.listeners.find((l) => l.port === 80)?.processes, ['nginx'], 'worker processes once');
  assert.deepEqual(parseSockets('', '').sshPorts, [22], 'no sshd seen: port 22 is assumed');
  assert.deepEqual(parseSockets('tcp LISTEN 0 128 0.0.0.0:2222 0.0.0.0:* users:(("sshd",pid=1,fd=3))\n', '0 0 10.0.0.1:22 10.9.9.9:1\n').sshPeers, []);
});

test('renderTable writes the whole table after a flush, for nft --file', () => {
  const t = parseTable(TABLE).chains;
  const text = renderTable(t);
  assert.match(text, /^#!\/usr\/sbin\/nft -f\n/);
  assert.ok(
    text.endsWith(
      'table inet airlock\nflush table inet airlock\ntable inet airlock {\n\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n' +
        '\t\tip saddr 203.0.113.7 drop comment "airlock: deny from 203.0.113.7"\n\t\ttcp dport 22 accept comment "airlock: allow tcp/22"\n\t}\n' +
        '\tchain forward {\n\t\ttype filter hook forward priority filter; policy accept;\n\t}\n}\n',
    ),
  );
  assert.doesNotMatch(text, /handle/);
});

test('nftDelta keeps handles: deletes by handle, inserts first, adds after the nearest kept rule, sets policies', () => {
  const cur = parseTable(TABLE).chains;
  const next: TableModel = {
    input: { policy: 'drop', rules: [{ text: 'A drop' }, { text: 'B drop' }, cur.input.rules[1]!, { text: 'C accept' }, { text: 'D accept' }] },
    forward: { policy: 'accept', rules: [{ text: 'E accept' }] },
  };
  assert.deepEqual(nftDelta(cur, next), [
    ...['delete', 'rule', 'inet', 'airlock', 'input', 'handle', '5'],
    ...[';', 'insert', 'rule', 'inet', 'airlock', 'input', 'B drop'],
    ...[';', 'insert', 'rule', 'inet', 'airlock', 'input', 'A drop'],
    ...[';', 'add', 'rule', 'inet', 'airlock', 'input', 'position', '6', 'D accept'],
    ...[';', 'add', 'rule', 'inet', 'airlock', 'input', 'position', '6', 'C accept'],
    ...[';', 'chain', 'inet', 'airlock', 'input', '{ policy drop ; }'],
    ...[';', 'insert', 'rule', 'inet', 'airlock', 'forward', 'E accept'],
  ]);
});

// ---------------------------------------------------------------- nftables actions

test('the first change writes the file, checks it, installs the boot unit and loads the whole table', async () => {
  const { steps, preview } = await run('AllowPort', { port: 443, protocol: 'tcp' }, world({ table: null }));
  const rule = 'tcp dport 443 accept comment "airlock: allow tcp/443"';
  const next = { input: { policy: 'accept' as const, rules: [{ text: rule }] }, forward: { policy: 'accept' as const, rules: [] } };
  assert.deepEqual(steps, [
    { kind: 'fileWrite', path: NFT_FILE, content: renderTable(next), mode: 0o644, parent: { mode: 0o755 } },
    { kind: 'command', program: 'nft', args: ['--check', '--file', NFT_FILE], noUndo: 'changes_nothing' },
    { kind: 'fileWrite', path: UNIT_PATH, content: NFT_UNIT_TEXT, mode: 0o644 },
    {
      kind: 'command',
      program: 'systemctl',
      args: ['enable', '--', 'airlock-nftables.service'],
      undo: { kind: 'command', program: 'systemctl', args: ['disable', '--', 'airlock-nftables.service'] },
    },
    // Undone, the table it made goes: there was none.
    { kind: 'command', program: 'nft', args: ['--file', NFT_FILE], undo: { kind: 'command', program: 'nft', args: ['delete', 'table', 'inet', 'airlock'] } },
  ]);
  const change = preview.change as { creates_table: boolean; chains: Record<string, { add: string[]; remove: string[] }> };
  assert.equal(change.creates_table, true);
  assert.deepEqual(change.chains.input!.add, [rule]);
  assert.deepEqual(Object.keys(change.chains), ['input']);
  for (const s of steps) if (s.kind !== 'command') assert.ok(byName('AllowPort').files.includes(s.path));
});

test('later changes apply only the difference; drops go first, accepts last', async () => {
  const h = () => world({ unit: 'enabled', saved: renderTable(parseTable(TABLE).chains) });
  const allow = await run('AllowPort', { port: 5432, protocol: 'tcp', source: '10.0.0.0/8' }, h());
  const text = 'ip saddr 10.0.0.0/8 tcp dport 5432 accept comment "airlock: allow tcp/5432 from 10.0.0.0/8"';
  assert.equal(allow.steps.length, 3);
  // Undone, the table is emptied and filled again as it was: the added rule's handle is known only once nft gives it.
  const refill = [
    ...['flush', 'table', 'inet', 'airlock'],
    ...[';', 'chain', 'inet', 'airlock', 'input', '{ policy accept ; }'],
    ...[';', 'add', 'rule', 'inet', 'airlock', 'input', 'ip saddr 203.0.113.7 drop comment "airlock: deny from 203.0.113.7"'],
    ...[';', 'add', 'rule', 'inet', 'airlock', 'input', 'tcp dport 22 accept comment "airlock: allow tcp/22"'],
    ...[';', 'chain', 'inet', 'airlock', 'forward', '{ policy accept ; }'],
  ];
  assert.deepEqual(allow.steps[2], { kind: 'command', program: 'nft', args: ['add', 'rule', 'inet', 'airlock', 'input', 'position', '6', text], undo: { kind: 'command', program: 'nft', args: refill } });
  assert.match((allow.steps[0] as { content: string }).content, new RegExp(`allow tcp/22"\\n\\t\\t${text.replace(/[/.]/g, '\\$&')}\\n\\t\\}`));
  assert.deepEqual(allow.preview.warnings, []);
  assert.ok(allow.preview.sideEffects!.includes('postgres listens on tcp/5432'));
  assert.deepEqual((await run('AllowPort', { port: 8443, protocol: 'tcp' }, h())).preview.warnings, ['nothing listens on tcp/8443 now']);
  const deny = await run('DenyPort', { port: 80, protocol: 'tcp' }, h());
  assert.deepEqual(deny.steps[2], { kind: 'command', program: 'nft', args: ['insert', 'rule', 'inet', 'airlock', 'input', 'tcp dport 80 drop comment "airlock: deny tcp/80"'], undo: { kind: 'command', program: 'nft', args: refill } });
  assert.ok(deny.preview.sideEffects!.includes('nginx listens on tcp/80'));
  const src = await run('DenySource', { source: '192.0.2.0/24' }, h());
  assert.deepEqual((src.steps[2] as { args: string[] }).args, ['insert', 'rule', 'inet', 'airlock', 'input', 'ip saddr 192.0.2.0/24 drop comment "airlock: deny from 192.0.2.0/24"']);
  const allowSrc = await run('AllowSource', { source: '203.0.113.0/24' }, h());
  assert.deepEqual(allowSrc.preview.warnings, [], 'a drop of one address does not shadow a whole network');
  const allowHost = await run('AllowSource', { source: '203.0.113.7' }, h());
  assert.match(allowHost.preview.warnings![0]!, /handle 5\) comes first and drops these packets anyway/);
  // A saved file that differs from the live table is named in a warning.
  const drift = await run('AllowPort', { port: 443, protocol: 'tcp' }, world({ unit: 'enabled', saved: '# edited by hand\n' }));
  assert.match(drift.preview.warnings!.join('\n'), /differs from the live table/);
});

test('nft changes: a duplicate is no change; they refuse loopback, foreign table content and a masked boot unit', async () => {
  await assertNoChange(run('AllowPort', { port: 22, protocol: 'tcp' }, world()), /already/);
  await assertNoChange(run('DenySource', { source: '203.0.113.7' }, world()), /already/);
  await refused('DenySource', { source: '127.0.0.0/8' }, world(), 'loopback', 'authorization');
  await refused('DenySource', { source: '::1' }, world(), 'loopback');
  await refused('DenyPort', { port: 80, protocol: 'tcp', source: '127.0.0.1' }, world(), 'loopback');
  const foreign = TABLE.replace('\tchain forward', '\tset s { # handle 9\n\t\ttype ipv4_addr\n\t}\n\tchain forward');
  await refused('AllowPort', { port: 443, protocol: 'tcp' }, world({ table: foreign }), 'unmanaged_table_content', 'conflict');
  await refused('AllowPort', { port: 443, protocol: 'tcp' }, world({ unit: 'masked' }), 'boot_unit_masked');
});

test('nothing may cut SSH off', async () => {
  const peers = world({ sessions: SESSION });
  await refused('DenyPort', { port: 22, protocol: 'tcp' }, world(), 'would_lock_out', 'authorization');
  await refused('DenyPort', { port: 22, protocol: 'tcp', source: '198.51.100.0/24' }, peers, 'would_lock_out');
  await refused('DenySource', { source: '198.51.100.20' }, peers, 'would_lock_out');
  await refused('DenySource', { source: '192.0.2.0/24' }, peers, 'would_lock_out', 'authorization');
  // A UDP deny of port 22, or a source without a session, is fine.
  await run('DenyPort', { port: 22, protocol: 'udp' }, peers);
  await run('DenyPort', { port: 22, protocol: 'tcp', source: '203.0.113.0/24' }, peers);
  // Default drop needs an accept rule for SSH that covers the open sessions.
  const noSsh = TABLE.replace(/\t\ttcp dport 22 accept.*\n/, '');
  await assert.rejects(() => run('SetDefaultPolicy', { chain: 'input', policy: 'drop' }, world({ table: noSsh })), /no rule accepts SSH on tcp\/22/);
  const narrow = TABLE.replace('tcp dport 22 accept', 'ip saddr 10.0.0.0/8 tcp dport 22 accept');
  await refused('SetDefaultPolicy', { chain: 'input', policy: 'drop' }, world({ table: narrow, sessions: SESSION }), 'would_lock_out');
  await run('SetDefaultPolicy', { chain: 'input', policy: 'drop' }, world({ table: narrow }));
  // With drop in force, the SSH accept and the established rule cannot be removed.
  const dropping = TABLE.replace('input priority filter; policy accept', 'input priority filter; policy drop').replace('\t}\n\n\tchain forward', `\t\t${BASELINE_RULES[0]} # handle 8\n\t}\n\n\tchain forward`);
  await refused('RemoveFirewallRule', { handle: 6 }, world({ table: dropping }), 'would_lock_out');
  await refused('RemoveFirewallRule', { handle: 8 }, world({ table: dropping }), 'would_lock_out');
  await run('RemoveFirewallRule', { handle: 5 }, world({ table: dropping }));
  // Problems already there are not this change's fault: an unrelated change still goes.
  await run('AllowPort', { port: 443, protocol: 'tcp' }, world({ table: noSsh.replace('policy accept', 'policy drop') }));
  assert.deepEqual(lockoutProblems(parseTable(TABLE).chains, parseSockets(LISTEN, SESSION)), []);
});

test('SetDefaultPolicy drop on input adds the baseline rules and names what becomes unreachable', async () => {
  const { steps, preview } = await run('SetDefaultPolicy', { chain: 'input', policy: 'drop' }, world({ unit: 'enabled' }));
  assert.deepEqual((steps[2] as { args: string[] }).args, [
    ...['add', 'rule', 'inet', 'airlock', 'input', 'position', '6', BASELINE_RULES[2]!],
    ...[';', 'add', 'rule', 'inet', 'airlock', 'input', 'position', '6', BASELINE_RULES[1]!],
    ...[';', 'add', 'rule', 'inet', 'airlock', 'input', 'position', '6', BASELINE_RULES[0]!],
    ...[';', 'chain', 'inet', 'airlock', 'input', '{ policy drop ; }'],
  ]);
  assert.equal((steps[2] as { undo: { args: string[] } }).undo.args.slice(0, 4).join(' '), 'flush table inet airlock', 'rules added: the table filled again');
  const change = preview.change as { chains: { input: { policy: unknown; add: string[] } } };
  assert.deepEqual(change.chains.input.policy, { from: 'accept', to: 'drop' });
  assert.deepEqual(change.chains.input.add, BASELINE_RULES);
  assert.match(preview.warnings![0]!, /^DEFAULT DROP on input/);
  assert.equal(preview.warnings![1], 'these listening services become unreachable from other hosts: tcp/80 (nginx)');
  const fwd = await run('SetDefaultPolicy', { chain: 'forward', policy: 'drop' }, world({ unit: 'enabled' }));
  // Only a policy: set back, every rule keeping its handle.
  assert.deepEqual(fwd.steps[2], { kind: 'command', program: 'nft', args: ['chain', 'inet', 'airlock', 'forward', '{ policy drop ; }'], undo: { kind: 'command', program: 'nft', args: ['chain', 'inet', 'airlock', 'forward', '{ policy accept ; }'] } });
  assert.match(fwd.preview.warnings![0]!, /containers and VMs/);
  await assertNoChange(run('SetDefaultPolicy', { chain: 'input', policy: 'accept' }, world()), /already/);
  await assertNoChange(run('SetDefaultPolicy', { chain: 'forward', policy: 'accept' }, world({ table: null })), /already/);
});

test('RemoveFirewallRule deletes one rule of table inet airlock by handle', async () => {
  const { steps, preview } = await run('RemoveFirewallRule', { handle: 5 }, world({ unit: 'enabled' }));
  // Undone, the rule is inserted again first in its chain, where it was (with a new handle); rule 6 keeps its own.
  assert.deepEqual(steps[2], {
    kind: 'command',
    program: 'nft',
    args: ['delete', 'rule', 'inet', 'airlock', 'input', 'handle', '5'],
    undo: { kind: 'command', program: 'nft', args: ['insert', 'rule', 'inet', 'airlock', 'input', 'ip saddr 203.0.113.7 drop comment "airlock: deny from 203.0.113.7"'] },
  });
  const second = await run('RemoveFirewallRule', { handle: 6 }, world({ unit: 'enabled' }));
  assert.deepEqual((second.steps[2] as { undo: { args: string[] } }).undo.args, ['add', 'rule', 'inet', 'airlock', 'input', 'position', '5', 'tcp dport 22 accept comment "airlock: allow tcp/22"']);
  assert.deepEqual((preview.change as { chains: { input: { remove: string[] } } }).chains.input.remove, ['ip saddr 203.0.113.7 drop comment "airlock: deny from 203.0.113.7" # handle 5']);
  await refused('RemoveFirewallRule', { handle: 4 }, world(), 'no_such_rule', 'validation');
  await refused('RemoveFirewallRule', { handle: 99 }, world({ table: null }), 'no_such_rule');
});

test('the nft reads are fixed', async () => {
  assert.deepEqual((await run('ListRuleset', {})).steps, [{ kind: 'command', program: 'nft', args: ['--handle', 'list', 'ruleset'] }]);
  const s = await run('FirewallStatus', {}, world({ ufw: { active: false, added: [] }, f2b: { running: true, jails: { sshd: [] } } }));
  assert.deepEqual(s.steps, [
    { kind: 'command', program: 'nft', args: ['list', 'tables'] },
    { kind: 'command', program: 'nft', args: ['--handle', 'list', 'table', 'inet', 'airlock'] },
    { kind: 'command', program: 'systemctl', args: ['is-enabled', '--', 'airlock-nftables.service'], okCodes: [0, 1] },
    { kind: 'command', program: 'ufw', args: ['status', 'verbose'] },
    { kind: 'command', program: 'fail2ban-client', args: ['status'], okCodes: [0, 255] },
  ]);
  assert.match(s.preview.summary, /input accept \(2 rules\), forward accept \(0 rules\)/);
  const bare = await run('FirewallStatus', {}, world({ table: null }));
  assert.equal(bare.steps.length, 2);
  assert.match(bare.preview.summary, /table inet airlock absent/);
});

test('a state Airlock cannot read refuses instead of guessing', async () => {
  const failing = (prog: string) =>
    new FixtureHost({ '/usr/sbin/ufw': 'x' }, (program, args) => {
      if (program === prog) return { code: 2, stdout: '', stderr: 'Error: Operation not permitted' };
      if (program === 'nft') return { code: 0, stdout: args.includes('tables') ? '' : TABLE, stderr: '' };
      if (program === 'ss') return { code: 0, stdout: '', stderr: '' };
      return { code: 0, stdout: 'Status: inactive\n', stderr: '' };
    });
  await refused('AllowPort', { port: 443, protocol: 'tcp' }, failing('nft'), 'nft_unreadable', 'execution');
  await refused('AllowPort', { port: 443, protocol: 'tcp' }, failing('ss'), 'sockets_unreadable', 'execution');
  await refused('UfwAllow', { port: 443, protocol: 'tcp' }, failing('ufw'), 'ufw_unreadable', 'execution');
});

// ---------------------------------------------------------------- ufw

const UFW_ROWS = `[ 1] 22/tcp                     ALLOW IN    Anywhere                  
[ 2] 8080/tcp                   ALLOW IN    Anywhere                  
[ 3] 22/tcp (v6)                ALLOW IN    Anywhere (v6)             
[ 4] 8080/tcp (v6)              ALLOW IN    Anywhere (v6)             
`;

test('ufw actions are offered only where ufw is installed', async () => {
  for (const [name, p] of [
    ['UfwStatus', {}],
    ['UfwAllow', { port: 80, protocol: 'tcp' }],
    ['UfwDeny', { port: 80, protocol: 'tcp' }],
    ['UfwDelete', { number: 1 }],
  ] as const) {
    await refused(name, p, world({ ufw: null }), 'ufw_missing', 'unsupported_platform');
  }
});

test('UfwAllow and UfwDeny run ufw with a port/protocol word and an undo', async () => {
  const h = (added: string[], active = false) => world({ ufw: { active, added, numbered: UFW_ROWS } });
  const allow = await run('UfwAllow', { port: 8080, protocol: 'tcp' }, h([]));
  assert.deepEqual(allow.steps, [{ kind: 'command', program: 'ufw', args: ['allow', '8080/tcp'], undo: { kind: 'command', program: 'ufw', args: ['delete', 'allow', '8080/tcp'] } }]);
  assert.match(allow.preview.warnings![0]!, /ufw is inactive/);
  // ufw updates a rule for the same port in place: the undo puts the old verb back.
  const deny = await run('UfwDeny', { port: 8080, protocol: 'tcp' }, h(['allow 8080/tcp']));
  assert.deepEqual(deny.steps, [{ kind: 'command', program: 'ufw', args: ['deny', '8080/tcp'], undo: { kind: 'command', program: 'ufw', args: ['allow', '8080/tcp'] } }]);
  assert.deepEqual(deny.preview.change, { replaces: 'ufw allow 8080/tcp', with: 'ufw deny 8080/tcp' });
  await assertNoChange(run('UfwAllow', { port: 8080, protocol: 'tcp' }, h(['allow 8080/tcp'])), /already/);
  await refused('UfwDeny', { port: 22, protocol: 'tcp' }, h(['allow 22/tcp'], true), 'would_lock_out', 'authorization');
  const inactive = await run('UfwDeny', { port: 22, protocol: 'tcp' }, h([]));
  assert.match(inactive.preview.warnings!.join('\n'), /blocks every SSH login/);
});

test('UfwDelete by number (ufw active) or by spec', async () => {
  const h = (active: boolean, numbered = UFW_ROWS, defaults?: string) => world({ ufw: { active, added: ['allow 22/tcp', 'allow 8080/tcp'], numbered, defaults } });
  const byNumber = await run('UfwDelete', { number: 4 }, h(true));
  // Undone, the IPv6 rule alone goes back where it was: the last, so added (ufw refuses to insert past the end).
  assert.deepEqual(byNumber.steps, [
    { kind: 'command', program: 'ufw', args: ['--force', 'delete', '4'], undo: { kind: 'command', program: 'ufw', args: ['allow', 'proto', 'tcp', 'from', '::/0', 'to', 'any', 'port', '8080'] } },
  ]);
  const v4Row = await run('UfwDelete', { number: 2 }, h(true, UFW_ROWS.replace('[ 1] 22/tcp  ', '[ 1] 80/tcp  ') + '[ 5] 22/tcp                     ALLOW IN    Anywhere\n'));
  assert.deepEqual((v4Row.steps[0] as { undo: { args: string[] } }).undo.args, ['insert', '2', 'allow', 'proto', 'tcp', 'from', '0.0.0.0/0', 'to', 'any', 'port', '8080']);
  await refused('UfwDelete', { number: 5 }, h(true, UFW_ROWS + '[ 5] 80/tcp                     ALLOW IN    192.0.2.0/24\n'), 'not_restorable', 'conflict');
  // By spec, from ufw's rules files: each family's rule inserted again at its own place (IPv6 ones numbered after the IPv4 ones).
  const files = {
    '/etc/ufw/user.rules': '### tuple ### allow tcp 22 0.0.0.0/0 any 0.0.0.0/0 in\n-A ufw-user-input -p tcp --dport 22 -j ACCEPT\n### tuple ### allow tcp 8080 0.0.0.0/0 any 0.0.0.0/0 in\n### tuple ### deny udp 53 0.0.0.0/0 any 0.0.0.0/0 in\n',
    '/etc/ufw/user6.rules': '### tuple ### allow tcp 8080 ::/0 any ::/0 in\n### tuple ### allow tcp 22 ::/0 any ::/0 in\n',
  };
  const spec = await run('UfwDelete', { rule: 'allow', port: 8080, protocol: 'tcp' }, world({ files, ufw: { active: true, added: ['allow 22/tcp', 'allow 8080/tcp', 'deny 53/udp'], numbered: UFW_ROWS } }));
  assert.deepEqual(spec.steps, [
    { kind: 'command', program: 'ufw', args: ['show', 'added'], undo: { kind: 'command', program: 'ufw', args: ['insert', '4', 'allow', 'proto', 'tcp', 'from', '::/0', 'to', 'any', 'port', '8080'] } },
    { kind: 'command', program: 'ufw', args: ['delete', 'allow', '8080/tcp'], undo: { kind: 'command', program: 'ufw', args: ['insert', '2', 'allow', 'proto', 'tcp', 'from', '0.0.0.0/0', 'to', 'any', 'port', '8080'] } },
  ]);
  assert.equal((byNumber.preview.change as { deletes: string }).deletes, '[4] 8080/tcp (v6)  ALLOW IN  Anywhere (v6)');
  // Not in ufw's files (they are unreadable here): added again, and the state check says whether at its place.
  const bySpec = await run('UfwDelete', { rule: 'allow', port: 8080, protocol: 'tcp' }, h(false));
  assert.deepEqual(bySpec.steps, [{ kind: 'command', program: 'ufw', args: ['delete', 'allow', '8080/tcp'], undo: { kind: 'command', program: 'ufw', args: ['allow', '8080/tcp'] } }]);
  await refused('UfwDelete', { number: 1 }, h(false), 'ufw_inactive', 'conflict');
  await refused('UfwDelete', { number: 9 }, h(true), 'no_such_rule', 'validation');
  await refused('UfwDelete', { rule: 'deny', port: 8080, protocol: 'tcp' }, h(true), 'no_such_rule');
  // The only rows that let SSH in, while ufw drops the rest.
  await refused('UfwDelete', { number: 1 }, h(true), 'would_lock_out', 'authorization');
  await refused('UfwDelete', { number: 3 }, h(true), 'would_lock_out');
  await refused('UfwDelete', { rule: 'allow', port: 22, protocol: 'tcp' }, h(true), 'would_lock_out');
  await run('UfwDelete', { rule: 'allow', port: 22, protocol: 'tcp' }, h(false));
  await run('UfwDelete', { number: 1 }, h(true, UFW_ROWS, 'DEFAULT_INPUT_POLICY="ACCEPT"\n'));
  await run('UfwDelete', { number: 1 }, h(true, UFW_ROWS + '[ 5] OpenSSH                    ALLOW IN    Anywhere\n'));
  assert.equal(byName('UfwDelete').params.safeParse({ number: 1, rule: 'allow', port: 1, protocol: 'tcp' }).success, false);
});

test('UfwStatus reads the numbered rules while active, the stored ones while inactive', async () => {
  const active = await run('UfwStatus', {}, world({ ufw: { active: true, added: [], numbered: UFW_ROWS } }));
  assert.deepEqual(active.steps, [
    { kind: 'command', program: 'ufw', args: ['status', 'verbose'] },
    { kind: 'command', program: 'ufw', args: ['status', 'numbered'] },
  ]);
  const inactive = await run('UfwStatus', {}, world({ ufw: { active: false, added: ['allow 22/tcp'] } }));
  assert.deepEqual(inactive.steps[1], { kind: 'command', program: 'ufw', args: ['show', 'added'] });
  assert.deepEqual((inactive.shown as { rules: string[] }).rules, ['allow 22/tcp']);
});

// ---------------------------------------------------------------- fail2ban

test('fail2ban actions need fail2ban installed, running, and the jail', async () => {
  await refused('Fail2banStatus', {}, world({ f2b: null }), 'fail2ban_missing', 'unsupported_platform');
  await refused('Fail2banBan', { jail: 'sshd', ip: '203.0.113.9' }, world({ f2b: { running: false, jails: {} } }), 'fail2ban_not_running', 'conflict');
  await refused('Fail2banStatus', { jail: 'nginx' }, world({ f2b: { running: true, jails: { sshd: [] } } }), 'no_such_jail', 'validation');
  await refused('SetJailOption', { jail: 'sshd', option: 'maxretry', value: 3 }, world({ f2b: { running: false, jails: {} } }), 'fail2ban_not_running');
  assert.deepEqual((await run('Fail2banStatus', {}, world({ f2b: { running: true, jails: { sshd: [] } } }))).steps, [{ kind: 'command', program: 'fail2ban-client', args: ['--', 'status'] }]);
  assert.deepEqual((await run('Fail2banStatus', { jail: 'sshd' }, world({ f2b: { running: true, jails: { sshd: [] } } }))).steps, [
    { kind: 'command', program: 'fail2ban-client', args: ['--', 'status', 'sshd'] },
  ]);
});

test('Fail2banBan and Fail2banUnban: argv with undo, and their refusals', async () => {
  const h = (banned: string[] = [], sessions = '') => world({ f2b: { running: true, jails: { sshd: banned } }, sessions });
  assert.deepEqual((await run('Fail2banBan', { jail: 'sshd', ip: '203.0.113.9' }, h())).steps, [
    { kind: 'command', program: 'fail2ban-client', args: ['--', 'set', 'sshd', 'banip', '203.0.113.9'], undo: { kind: 'command', program: 'fail2ban-client', args: ['--', 'set', 'sshd', 'unbanip', '203.0.113.9'] } },
  ]);
  assert.deepEqual((await run('Fail2banUnban', { jail: 'sshd', ip: '2001:db8::9' }, h(['2001:db8::9']))).steps, [
    { kind: 'command', program: 'fail2ban-client', args: ['--', 'set', 'sshd', 'unbanip', '2001:db8::9'], undo: { kind: 'command', program: 'fail2ban-client', args: ['--', 'set', 'sshd', 'banip', '2001:db8::9'] } },
  ]);
  await assertNoChange(run('Fail2banBan', { jail: 'sshd', ip: '203.0.113.9' }, h(['203.0.113.9'])), /already/);
  await refused('Fail2banBan', { jail: 'sshd', ip: '127.0.0.1' }, h(), 'loopback', 'authorization');
  await refused('Fail2banBan', { jail: 'sshd', ip: '::1' }, h(), 'loopback');
  await refused('Fail2banBan', { jail: 'sshd', ip: '0.0.0.0' }, h(), 'loopback');
  await refused('Fail2banBan', { jail: 'sshd', ip: '192.0.2.9' }, h([], SESSION), 'would_lock_out', 'authorization');
  await assertNoChange(run('Fail2banUnban', { jail: 'sshd', ip: '203.0.113.9' }, h()), /not|no /);
  await refused('Fail2banBan', { jail: 'apache', ip: '203.0.113.9' }, h(), 'no_such_jail');
  assert.equal(byName('Fail2banBan').risk, 'high');
  assert.equal(byName('Fail2banUnban').risk, 'medium');
});

const JAIL_CONF = '[INCLUDES]\nbefore = paths-debian.conf\n[DEFAULT]\nbantime = 10m\n[sshd]\nport = ssh\n[apache-auth]\nport = http\n';

test('SetJailOption writes the drop-in, tests the configuration, reloads the jail', async () => {
  const h = (dropin?: string, jails: Record<string, string[]> = { sshd: [] }) =>
    world({ f2b: { running: true, jails, get: { 'sshd maxretry': '5', 'sshd bantime': '600' } }, files: { '/etc/fail2ban/jail.conf': JAIL_CONF, ...(dropin === undefined ? {} : { [JAIL_DROPIN]: dropin }) } });
  const first = await run('SetJailOption', { jail: 'sshd', option: 'maxretry', value: 3 }, h());
  const header = '# Managed by Airlock (SetJailOption): jail options set through Airlock.\n# Read after jail.conf, jail.local and the other jail.d files, so these values win.\n';
  // The first read carries the reload's undo: undos run last first, so the jail reloads the restored drop-in.
  assert.deepEqual(first.steps, [
    { kind: 'command', program: 'fail2ban-client', args: ['--', 'status'], undo: { kind: 'command', program: 'fail2ban-client', args: ['--', 'reload', 'sshd'] } },
    { kind: 'fileWrite', path: JAIL_DROPIN, content: `${header}\n[sshd]\nmaxretry = 3\n`, mode: 0o644 },
    { kind: 'command', program: 'fail2ban-client', args: ['--test'], noUndo: 'changes_nothing' },
    { kind: 'command', program: 'fail2ban-client', args: ['--', 'reload', 'sshd'], noUndo: 'undone_earlier' },
  ]);
  assert.deepEqual((first.preview.change as { value: unknown }).value, { from: '5', to: '3' });
  const second = await run('SetJailOption', { jail: 'sshd', option: 'bantime', value: '1h' }, h(`${header}\n[sshd]\nmaxretry = 3\n`));
  assert.equal((second.steps[1] as { content: string }).content, `${header}\n[sshd]\nmaxretry = 3\nbantime = 1h\n`);
  // Enabling a stopped jail reloads everything: `reload JAIL` knows only running jails.
  const enable = await run('SetJailOption', { jail: 'apache-auth', option: 'enabled', value: true }, h());
  assert.deepEqual(enable.steps[3], { kind: 'command', program: 'fail2ban-client', args: ['--', 'reload'], noUndo: 'undone_earlier' });
  assert.deepEqual((enable.steps[0] as { undo: { args: string[] } }).undo.args, ['--', 'reload']);
  const disable = await run('SetJailOption', { jail: 'sshd', option: 'enabled', value: false }, h());
  assert.match((disable.steps[1] as { content: string }).content, /\[sshd\]\nenabled = false\n/);
  assert.match(disable.preview.warnings![0]!, /bans are lifted/);
  await assertNoChange(run('SetJailOption', { jail: 'sshd', option: 'maxretry', value: 3 }, h(`[sshd]\nmaxretry = 3\n`)), /already/);
  await refused('SetJailOption', { jail: 'nginx-x', option: 'maxretry', value: 3 }, h(), 'no_such_jail', 'validation');
  // A jail defined in a jail.d file of its own counts too.
  const own = world({ f2b: { running: true, jails: { sshd: [] } }, files: { '/etc/fail2ban/jail.conf': JAIL_CONF, '/etc/fail2ban/jail.d/mine.conf': '[mine]\nenabled = false\n', '/etc/fail2ban/jail.d/README': '[nope]\n' } });
  await run('SetJailOption', { jail: 'mine', option: 'maxretry', value: 2 }, own);
  await refused('SetJailOption', { jail: 'nope', option: 'maxretry', value: 2 }, own, 'no_such_jail');
  await refused('SetJailOption', { jail: 'sshd', option: 'maxretry', value: 3 }, h('[sshd]\n  continued line\n'), 'unrecognised_dropin', 'conflict');
  await assertNoChange(run('SetJailOption', { jail: 'sshd', option: 'enabled', value: true }, h()), /already/);
  await assertNoChange(run('SetJailOption', { jail: 'apache-auth', option: 'enabled', value: false }, h()), /not|no /);
});

test('SetJailOption validates each option with its own type', () => {
  const ok = (p: unknown) => byName('SetJailOption').params.safeParse(p).success;
  assert.ok(ok({ jail: 'sshd', option: 'bantime', value: '10m' }));
  assert.ok(ok({ jail: 'sshd', option: 'findtime', value: '3600' }));
  assert.ok(ok({ jail: 'sshd', option: 'maxretry', value: 100 }));
  assert.ok(ok({ jail: 'sshd', option: 'enabled', value: false }));
  for (const bad of [
    { jail: 'sshd', option: 'bantime', value: 600 },
    { jail: 'sshd', option: 'bantime', value: '-1' },
    { jail: 'sshd', option: 'maxretry', value: '3' },
    { jail: 'sshd', option: 'maxretry', value: 0 },
    { jail: 'sshd', option: 'maxretry', value: 101 },
    { jail: 'sshd', option: 'enabled', value: 'true' },
    { jail: 'sshd', option: 'action', value: 'iptables' },
    { jail: 'sshd', option: 'logpath', value: '/etc/shadow' },
    { jail: 'sshd', option: 'ignoreip', value: '0.0.0.0/0' },
    { jail: 'sshd', option: 'bantime', value: '1h\naction = x' },
  ]) {
    assert.equal(ok(bad), false, JSON.stringify(bad));
  }
});

test('the jail drop-in parser and writer round-trip', () => {
  const d = parseJailIni('# c\n[sshd]\nbantime = 1h\n; c\n[recidive]\nenabled = true\n')!;
  assert.deepEqual([...d.keys()], ['sshd', 'recidive']);
  assert.equal(renderJailDropin(d).split('\n').filter((l) => l && !l.startsWith('#')).join('|'), '[sshd]|bantime = 1h|[recidive]|enabled = true');
  assert.deepEqual(parseJailIni(renderJailDropin(d)), d);
  assert.equal(parseJailIni('bantime = 1h\n'), null, 'an option outside a section');
  assert.equal(parseJailIni('[sshd]\njunk\n'), null);
});

test('risks: reads are low, access control is high', () => {
  const risks = Object.fromEntries(actions.map((a) => [a.name, a.risk]));
  assert.deepEqual(risks, {
    ListRuleset: 'low',
    FirewallStatus: 'low',
    AllowPort: 'high',
    DenyPort: 'high',
    AllowSource: 'high',
    DenySource: 'high',
    RemoveFirewallRule: 'high',
    SetDefaultPolicy: 'high',
    UfwStatus: 'low',
    UfwAllow: 'high',
    UfwDeny: 'high',
    UfwDelete: 'high',
    Fail2banStatus: 'low',
    Fail2banBan: 'high',
    Fail2banUnban: 'medium',
    SetJailOption: 'high',
  });
  for (const a of actions) assert.equal(a.family, 'firewall');
});

// ---------------------------------------------------------------- issue 27: how each change is undone, and what it is checked against

const probesOf = (name: string, p: Record<string, unknown>, cur: unknown) => {
  const r = byName(name).rollback!;
  return r.class === 'none' ? [] : (r.state?.(p, cur) ?? []).map((x: { file: string; lines?: string } | { program: string; args: string[] }) => ('program' in x ? [x.program, ...x.args].join(' ') : `${x.file}${x.lines === undefined ? '' : ` ${x.lines}`}`));
};

test('issue 27: the nft changes are compensating (nft gives the rules put back new handles), checked on the table without handles', async () => {
  const inverse = Object.fromEntries(['AllowPort', 'DenyPort', 'AllowSource', 'DenySource', 'SetDefaultPolicy', 'RemoveFirewallRule'].map((n) => [n, byName(n).rollback]));
  assert.deepEqual(Object.fromEntries(Object.entries(inverse).map(([n, r]) => [n, r!.class === 'compensating' ? r!.inverse : r!.class])), {
    AllowPort: 'RemoveFirewallRule',
    DenyPort: 'RemoveFirewallRule',
    AllowSource: 'RemoveFirewallRule',
    DenySource: 'RemoveFirewallRule',
    SetDefaultPolicy: 'SetDefaultPolicy',
    RemoveFirewallRule: 'AllowPort',
  });
  const { cur } = await run('AllowPort', { port: 443, protocol: 'tcp' }, world());
  assert.deepEqual(probesOf('AllowPort', { port: 443, protocol: 'tcp' }, cur), ['nft --stateless list table inet airlock', 'systemctl is-enabled -- airlock-nftables.service']);
});

test('issue 27: ufw, fail2ban and jail options are probed where their state lives', async () => {
  const { cur } = await run('UfwAllow', { port: 8080, protocol: 'tcp' }, world({ ufw: { active: false, added: [] } }));
  const ufw = ['/etc/ufw/user.rules ### tuple ### ', '/etc/ufw/user6.rules ### tuple ### ', 'ufw status numbered', 'nft --stateless list chain ip filter ufw-user-input', 'nft --stateless list chain ip6 filter ufw6-user-input'];
  for (const n of ['UfwAllow', 'UfwDeny', 'UfwDelete']) {
    assert.equal(byName(n).rollback!.class, 'exact', n);
    assert.deepEqual(probesOf(n, { port: 8080, protocol: 'tcp' }, cur), ufw, n);
  }
  // A ban lifted by an undo is made again with the jail's whole bantime: compensating.
  assert.equal(byName('Fail2banBan').rollback!.class, 'exact');
  assert.deepEqual(byName('Fail2banUnban').rollback, { class: 'compensating', inverse: 'Fail2banBan', state: (byName('Fail2banUnban').rollback as { state: unknown }).state });
  assert.deepEqual(probesOf('Fail2banUnban', { jail: 'sshd', ip: '203.0.113.9' }, null), ['fail2ban-client -- get sshd banned 203.0.113.9']);
  assert.deepEqual(probesOf('SetJailOption', { jail: 'sshd', option: 'maxretry', value: 3 }, null), ['fail2ban-client -- status', 'fail2ban-client -- get sshd maxretry']);
  assert.deepEqual(probesOf('SetJailOption', { jail: 'sshd', option: 'enabled', value: false }, null), ['fail2ban-client -- status']);
});
