/**
 * firewall family, in the booted Debian test bed (its own network namespace, so
 * nothing here touches this machine's firewall). Airlock's nftables table is built
 * rule by rule, its effect probed with real TCP connections over loopback, and its
 * boot unit exercised; then ufw rules are added, applied and deleted, and fail2ban
 * bans, unbans and jail options are set, each checked with nft, ufw and
 * fail2ban-client from outside the daemon. One jail option that fails
 * `fail2ban-client --test` shows the automatic rollback.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const NFT = '/usr/sbin/nft';
const UFW = '/usr/sbin/ufw';
const F2B = '/usr/bin/fail2ban-client';
const SYSTEMCTL = '/usr/bin/systemctl';
const NFT_FILE = '/etc/airlock/nftables-airlock.nft';
const DROPIN = '/etc/fail2ban/jail.d/60-airlock.local';

async function must(box: SandboxView, program: string, args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

interface NftRule {
  chain: string;
  handle: number;
  comment?: string;
  expr: unknown[];
}
/** table inet airlock as nft's JSON sees it: chains with policy, rules in order. */
async function airlockTable(box: SandboxView): Promise<{ policy: Record<string, string>; rules: NftRule[] }> {
  const items = (JSON.parse(await must(box, NFT, ['--json', 'list', 'table', 'inet', 'airlock'])) as { nftables: Array<Record<string, unknown>> }).nftables;
  const policy: Record<string, string> = {};
  for (const i of items) if (i.chain) policy[(i.chain as { name: string }).name] = (i.chain as { policy: string }).policy;
  return { policy, rules: items.filter((i) => i.rule).map((i) => i.rule as NftRule) };
}
const inputRules = async (box: SandboxView) => (await airlockTable(box)).rules.filter((r) => r.chain === 'input');
/** The rules of chain input as `nft list` prints them, without handles. */
async function inputText(box: SandboxView): Promise<string[]> {
  const text = await must(box, NFT, ['list', 'chain', 'inet', 'airlock', 'input']);
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^(table|chain|type) |^}$/.test(l));
}

/** Connects to 127.0.0.1:PORT: "open", "refused" (nothing listens: a RST came back) or "timeout" (dropped). */
const PROBE = `import socket, sys
s = socket.socket()
s.settimeout(1.5)
try:
    s.connect(('127.0.0.1', int(sys.argv[1])))
    print('open')
except ConnectionRefusedError:
    print('refused')
except OSError:
    print('timeout')
`;
const probe = async (box: SandboxView, port: number) => (await must(box, '/usr/bin/python3', ['-c', PROBE, String(port)])).trim();

async function nftFileIsLive(box: SandboxView): Promise<void> {
  const file = await box.readFile(NFT_FILE);
  assert.ok(file, `${NFT_FILE} exists`);
  await must(box, NFT, ['--check', '--file', NFT_FILE]);
  const live = await inputText(box);
  const saved = file.split('\n').map((l) => l.trim());
  for (const r of live) assert.ok(saved.includes(r), `the saved file has the live rule ${r}`);
}

const ufwAdded = async (box: SandboxView) => (await must(box, UFW, ['show', 'added'])).split('\n').filter((l) => l.startsWith('ufw '));
const jailStatus = (box: SandboxView, jail: string) => must(box, F2B, ['status', jail]);
const bannedIn = async (box: SandboxView, jail: string) => (/Banned IP list:\s*(.*)$/m.exec(await jailStatus(box, jail))?.[1] ?? '').split(/\s+/).filter(Boolean);
const jails = async (box: SandboxView) => (/Jail list:\s*(.*)$/m.exec(await must(box, F2B, ['status']))?.[1] ?? '').split(/[,\s]+/).filter(Boolean);

let denyHandle = 0;
let handMade = 0;
let savedBefore: string | null = null;
let v6Row = 0;
let dropinBefore: string | null = null;

export const scenarios: Scenario[] = [
  {
    action: 'FirewallStatus',
    params: {},
    // Debian's sshd jail reads /var/log/auth.log, which a minimal system without rsyslog lacks.
    setup: async (box) => {
      await box.writeFile!('/var/log/auth.log', '');
      await must(box, SYSTEMCTL, ['restart', 'fail2ban.service']);
      for (let i = 0; i < 50 && (await box.run(F2B, ['ping'])).code !== 0; i++) await new Promise((r) => setTimeout(r, 200));
    },
    check: async (box, r) => {
      const text = r.output.join('\n');
      assert.match(text, /^Status: inactive$/m, 'ufw is reported');
      assert.match(text, /Jail list:\s*sshd/, 'fail2ban is reported');
      assert.doesNotMatch(text, /table inet airlock/, 'no Airlock table yet');
      assert.notEqual((await box.run(NFT, ['list', 'table', 'inet', 'airlock'])).code, 0);
    },
  },
  {
    action: 'AllowPort',
    params: { port: 22, protocol: 'tcp' },
    check: async (box) => {
      const t = await airlockTable(box);
      assert.deepEqual(t.policy, { input: 'accept', forward: 'accept' });
      assert.deepEqual(await inputText(box), ['tcp dport 22 accept comment "airlock: allow tcp/22"']);
      await nftFileIsLive(box);
      assert.equal((await must(box, SYSTEMCTL, ['is-enabled', 'airlock-nftables.service'])).trim(), 'enabled', 'the table loads at boot');
    },
  },
  {
    title: 'from one network',
    action: 'AllowPort',
    params: { port: 5432, protocol: 'tcp', source: '10.0.0.0/8' },
    check: async (box) => {
      assert.deepEqual((await inputText(box)).slice(-1), ['ip saddr 10.0.0.0/8 tcp dport 5432 accept comment "airlock: allow tcp/5432 from 10.0.0.0/8"']);
      await nftFileIsLive(box);
    },
  },
  {
    action: 'AllowSource',
    params: { source: '2001:DB8:0:0::/32' },
    check: async (box) => {
      assert.deepEqual((await inputText(box)).slice(-1), ['ip6 saddr 2001:db8::/32 accept comment "airlock: allow from 2001:db8::/32"']);
    },
  },
  {
    // Before DenyPort: undone, a rule added renumbers every rule (nft-change.ts, nftUndo), and ListRuleset checks DenyPort's handle.
    action: 'DenySource',
    params: { source: '203.0.113.7' },
    check: async (box) => {
      assert.equal((await inputText(box))[0], 'ip saddr 203.0.113.7 drop comment "airlock: deny from 203.0.113.7"', 'drops go first');
    },
  },
  {
    action: 'DenyPort',
    params: { port: 2323, protocol: 'tcp' },
    setup: async (box) => assert.equal(await probe(box, 2323), 'refused', 'before: nothing listens, the kernel answers with a reset'),
    check: async (box) => {
      const rules = await inputRules(box);
      assert.equal(rules[0]!.comment, 'airlock: deny tcp/2323');
      denyHandle = rules[0]!.handle;
      assert.equal(rules.length, 5);
      assert.equal(await probe(box, 2323), 'timeout', 'after: the SYN is dropped');
      assert.equal(await probe(box, 22), 'open', 'SSH still answers');
      await nftFileIsLive(box);
    },
  },
  {
    action: 'SetDefaultPolicy',
    params: { chain: 'input', policy: 'drop' },
    rollbackRounds: { skip: "its undo fills the table again (the baseline rules it adds have handles only once added), renumbering DenyPort's rule, whose handle ListRuleset checks; forward drop and back to accept show the rounds" },
    check: async (box) => {
      assert.equal((await airlockTable(box)).policy.input, 'drop');
      const rules = await inputText(box);
      for (const r of ['ct state established,related accept', 'iif "lo" accept', 'meta l4proto ipv6-icmp accept']) {
        assert.ok(rules.some((l) => l.startsWith(r)), `the baseline rule ${r} was added`);
      }
      assert.equal(await probe(box, 22), 'open', 'SSH over loopback still answers');
      await nftFileIsLive(box);
    },
  },
  {
    action: 'ListRuleset',
    params: {},
    check: async (box, r) => {
      const text = r.output.join('\n');
      assert.match(text, /table inet airlock \{ # handle \d+/);
      // Changes since DenyPort left its rule's handle alone.
      assert.match(text, new RegExp(`tcp dport 2323 drop comment "airlock: deny tcp/2323" # handle ${denyHandle}$`, 'm'));
      assert.match(text, /policy drop;/);
    },
  },
  {
    action: 'RemoveFirewallRule',
    get params() {
      return { handle: denyHandle };
    },
    rollbackRounds: { skip: 'undone, the rule comes back with a new handle (nft never gives one twice), so the same request names no rule: named as it was added shows the rounds' },
    check: async (box) => {
      assert.ok(!(await inputRules(box)).some((r) => r.handle === denyHandle), 'the rule is gone');
      assert.ok((await inputText(box)).some((l) => l.startsWith('ip saddr 203.0.113.7 drop')), 'the other rules stay');
      assert.equal(await probe(box, 2323), 'refused', 'port 2323 answers again');
      await nftFileIsLive(box);
    },
  },
  {
    title: 'a rule made by hand that nft cannot read back fails the check and is rolled back',
    action: 'AllowPort',
    params: { port: 8443, protocol: 'tcp' },
    expect: 'RolledBack',
    // Through JSON, a comment may hold a double quote that nft then lists unescaped.
    setup: async (box) => {
      savedBefore = await box.readFile(NFT_FILE);
      await box.writeFile!('/tmp/quoted-rule.json', JSON.stringify({ nftables: [{ add: { rule: { family: 'inet', table: 'airlock', chain: 'input', comment: 'say "hi"', expr: [{ match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: 2424 } }, { accept: null }] } } }] }));
      await must(box, NFT, ['--json', '--file', '/tmp/quoted-rule.json']);
      handMade = (await inputRules(box)).find((r) => r.comment === 'say "hi"')!.handle;
    },
    check: async (box, r) => {
      assert.match(r.error?.message ?? '', /nft exited with status 1/);
      assert.equal(await box.readFile(NFT_FILE), savedBefore, 'the saved file is restored');
      assert.ok(!(await inputText(box)).some((l) => l.includes('8443')), 'the live table did not change');
    },
  },
  {
    title: 'the rule made by hand',
    action: 'RemoveFirewallRule',
    get params() {
      return { handle: handMade };
    },
    rollbackRounds: { skip: 'named by its handle, which its undo does not give back; and nft lists this rule in a form it cannot read back, so no undo could add it again' },
    check: async (box) => {
      assert.ok(!(await inputRules(box)).some((r) => r.handle === handMade));
      await nftFileIsLive(box);
    },
  },
  {
    title: 'named as it was added, not by handle',
    action: 'RemoveFirewallRule',
    params: { rule: 'allow', port: 5432, protocol: 'tcp', source: '10.0.0.0/8' },
    check: async (box) => {
      const rules = await inputText(box);
      assert.ok(!rules.some((l) => l.includes('dport 5432')), 'the rule AllowPort added from 10.0.0.0/8 is gone');
      assert.ok(rules.some((l) => l.startsWith('tcp dport 22 accept')), 'the other rules stay');
      await nftFileIsLive(box);
    },
  },
  {
    title: 'forward drop, then the table reloads from its file as at boot',
    action: 'SetDefaultPolicy',
    params: { chain: 'forward', policy: 'drop' },
    check: async (box) => {
      const before = await inputText(box);
      assert.equal((await airlockTable(box)).policy.forward, 'drop');
      await must(box, NFT, ['delete', 'table', 'inet', 'airlock']);
      await must(box, SYSTEMCTL, ['start', 'airlock-nftables.service']);
      assert.deepEqual(await inputText(box), before, 'airlock-nftables.service loads the same rules');
      assert.deepEqual((await airlockTable(box)).policy, { input: 'drop', forward: 'drop' });
    },
  },
  {
    title: 'back to accept',
    action: 'SetDefaultPolicy',
    params: { chain: 'input', policy: 'accept' },
    check: async (box) => assert.equal((await airlockTable(box)).policy.input, 'accept'),
  },
  {
    action: 'UfwStatus',
    params: {},
    check: async (_box, r) => {
      const text = r.output.join('\n');
      assert.match(text, /^Status: inactive$/m);
      assert.match(text, /Added user rules/);
    },
  },
  {
    action: 'UfwAllow',
    params: { port: 8080, protocol: 'tcp' },
    check: async (box) => {
      assert.ok((await ufwAdded(box)).includes('ufw allow 8080/tcp'));
      assert.match((await box.readFile('/etc/ufw/user.rules')) ?? '', /^### tuple ### allow tcp 8080 0\.0\.0\.0\/0 any 0\.0\.0\.0\/0 in$/m);
      assert.match((await box.readFile('/etc/ufw/user6.rules')) ?? '', /^### tuple ### allow tcp 8080 ::\/0 any ::\/0 in$/m);
    },
  },
  {
    action: 'UfwDeny',
    params: { port: 5353, protocol: 'udp' },
    check: async (box) => assert.ok((await ufwAdded(box)).includes('ufw deny 5353/udp')),
  },
  {
    title: 'active, rules applied',
    action: 'UfwStatus',
    params: {},
    setup: async (box) => void (await must(box, UFW, ['--force', 'enable'])),
    check: async (box, r) => {
      const text = r.output.join('\n');
      assert.match(text, /^Status: active$/m);
      assert.match(text, /^Default: deny \(incoming\)/m);
      const row = /^\[\s*(\d+)\] 5353\/udp \(v6\)\s+DENY IN/m.exec(text);
      assert.ok(row, `a numbered v6 row in ${text}`);
      v6Row = Number(row[1]);
      // The stored rules are live in ufw's iptables-nft chains.
      assert.match(await must(box, NFT, ['list', 'chain', 'ip', 'filter', 'ufw-user-input']), /tcp dport 8080 .*accept/);
      assert.match(await must(box, NFT, ['list', 'chain', 'ip6', 'filter', 'ufw6-user-input']), /udp dport 5353 .*drop/);
    },
  },
  {
    title: 'by number',
    action: 'UfwDelete',
    get params() {
      return { number: v6Row };
    },
    check: async (box) => {
      assert.doesNotMatch(await must(box, UFW, ['status']), /5353\/udp \(v6\)/, 'the IPv6 row is gone');
      assert.match(await must(box, UFW, ['status']), /^5353\/udp\s+DENY\s/m, 'the IPv4 row stays');
      assert.doesNotMatch(await must(box, NFT, ['list', 'chain', 'ip6', 'filter', 'ufw6-user-input']), /dport 5353/);
    },
  },
  {
    title: 'by spec',
    action: 'UfwDelete',
    params: { rule: 'allow', port: 8080, protocol: 'tcp' },
    check: async (box) => {
      assert.ok(!(await ufwAdded(box)).includes('ufw allow 8080/tcp'));
      assert.doesNotMatch(await must(box, NFT, ['list', 'chain', 'ip', 'filter', 'ufw-user-input']), /dport 8080/);
      assert.doesNotMatch((await box.readFile('/etc/ufw/user6.rules')) ?? '', /8080/);
    },
  },
  {
    action: 'Fail2banStatus',
    params: {},
    check: async (_box, r) => assert.match(r.output.join('\n'), /Jail list:\s*sshd$/m),
  },
  {
    action: 'Fail2banBan',
    params: { jail: 'sshd', ip: '203.0.113.50' },
    check: async (box) => {
      assert.deepEqual(await bannedIn(box, 'sshd'), ['203.0.113.50']);
      // fail2ban's iptables-multiport action, through iptables-nft.
      assert.match(await must(box, NFT, ['list', 'chain', 'ip', 'filter', 'f2b-sshd']), /ip saddr 203\.0\.113\.50 .*reject/);
    },
  },
  {
    title: 'one jail',
    action: 'Fail2banStatus',
    params: { jail: 'sshd' },
    check: async (_box, r) => assert.match(r.output.join('\n'), /Banned IP list:\s*203\.0\.113\.50$/m),
  },
  {
    action: 'Fail2banUnban',
    params: { jail: 'sshd', ip: '203.0.113.50' },
    check: async (box) => {
      assert.deepEqual(await bannedIn(box, 'sshd'), []);
      assert.doesNotMatch(await must(box, NFT, ['list', 'chain', 'ip', 'filter', 'f2b-sshd']), /203\.0\.113\.50/);
    },
  },
  {
    action: 'SetJailOption',
    params: { jail: 'sshd', option: 'maxretry', value: 3 },
    setup: async (box) => assert.equal(await box.readFile(DROPIN), null),
    check: async (box) => {
      assert.match((await box.readFile(DROPIN)) ?? '', /^\[sshd\]\nmaxretry = 3$/m);
      assert.equal((await must(box, F2B, ['get', 'sshd', 'maxretry'])).trim(), '3', 'the running jail has the new value');
    },
  },
  {
    title: 'bantime',
    action: 'SetJailOption',
    params: { jail: 'sshd', option: 'bantime', value: '1h' },
    check: async (box) => {
      assert.match((await box.readFile(DROPIN)) ?? '', /^\[sshd\]\nmaxretry = 3\nbantime = 1h$/m);
      assert.equal((await must(box, F2B, ['get', 'sshd', 'bantime'])).trim(), '3600');
    },
  },
  {
    title: 'a jail whose log file is missing fails the configuration test and is rolled back',
    action: 'SetJailOption',
    params: { jail: 'apache-auth', option: 'enabled', value: true },
    expect: 'RolledBack',
    setup: async (box) => void (dropinBefore = await box.readFile(DROPIN)),
    check: async (box, r) => {
      assert.match(r.error?.message ?? '', /fail2ban-client exited/);
      assert.equal(await box.readFile(DROPIN), dropinBefore, 'the drop-in is restored');
      assert.deepEqual(await jails(box), ['sshd'], 'fail2ban still runs its jail');
    },
  },
  {
    title: 'disable a jail',
    action: 'SetJailOption',
    params: { jail: 'sshd', option: 'enabled', value: false },
    check: async (box) => {
      assert.match((await box.readFile(DROPIN)) ?? '', /^enabled = false$/m);
      assert.deepEqual(await jails(box), []);
    },
  },
  {
    title: 'enable it again',
    action: 'SetJailOption',
    params: { jail: 'sshd', option: 'enabled', value: true },
    check: async (box) => {
      assert.deepEqual(await jails(box), ['sshd']);
      assert.equal((await must(box, F2B, ['get', 'sshd', 'maxretry'])).trim(), '3', 'with the options set before');
    },
  },
  {
    title: 'everything at the end',
    action: 'FirewallStatus',
    params: {},
    check: async (_box, r) => {
      const text = r.output.join('\n');
      assert.match(text, /table inet airlock \{ # handle \d+/);
      assert.match(text, /^enabled$/m, 'airlock-nftables.service');
      assert.match(text, /^Status: active$/m);
      assert.match(text, /Jail list:\s*sshd/);
    },
  },
];
