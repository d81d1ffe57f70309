/**
 * The README's "Many hosts" section, followed as written on the fleet of fleet.test.ts (three
 * booted test-bed hosts and a workstation, set up by nothing but these lines: the fleet's other
 * parts run on what they made). The commands are read
 * from the README (blocks `many-hosts-workstation`, `many-hosts-host`, `many-hosts-add`,
 * `many-hosts-agent`): a README that drifts fails here.
 *
 * Who types what: `sudo` lines are root's (the workstation's, or each host's); `agent$` lines
 * are the agent's account on the workstation. The README's placeholders take this run's values:
 * the key `ssh-ed25519 AAAA... airlock-relay@workstation` is the one `relay install` printed,
 * web1..web3 and 10.0.0.5..7 are the hosts' names and addresses. `hosts add` asks at a real
 * pseudo-terminal; the answer is `y` only when the fingerprint it shows is the one the host's
 * own `ssh-keygen -lf` line printed, as the README tells the person.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { relayListening, AIRLOCK_JS, type Fleet } from '../../support/fleet.js';
import { readmeBlock, type ReadmeLine } from '../../support/readme.js';
import { typeAt } from '../../support/terminal.js';

const README = readFileSync(join(fileURLToPath(import.meta.url), '..', '..', '..', '..', 'README.md'), 'utf8');

/** The README's words with this run's values. */
function ours(fleet: Fleet, words: string[], key: string): string[] {
  const names: Record<string, string> = { web1: 'fleet-1', web2: 'fleet-2', web3: 'fleet-3' };
  const addresses: Record<string, number> = { '10.0.0.5': 0, '10.0.0.6': 1, '10.0.0.7': 2 };
  return words.map((w) => {
    if (w.startsWith('ssh-ed25519 AAAA...')) return key;
    if (w in addresses) return fleet.hosts[addresses[w]!]!.address;
    return w.replace(/web[123]/g, (m) => names[m]!);
  });
}

/** `sudo airlock ...` as root: on the workstation this checkout's entry point, on a host the package's /usr/bin/airlock. */
function asRoot(words: string[], on: 'workstation' | 'host' = 'workstation'): { program: string; args: string[] } {
  const [cmd, ...rest] = words[0] === 'sudo' ? words.slice(1) : words;
  if (cmd === 'airlock') return on === 'host' ? { program: '/usr/bin/airlock', args: rest } : { program: process.execPath, args: [AIRLOCK_JS, ...rest] };
  return { program: existsSync(`/usr/sbin/${cmd}`) ? `/usr/sbin/${cmd}` : `/usr/bin/${cmd}`, args: rest };
}

const commandsOf = (lines: ReadmeLine[]) => lines.flatMap((l) => l.commands.map((words) => ({ who: l.who, words, text: l.text })));

/** The README's Many hosts section, on `fleet()` as `startFleet(3, { setUp: false })` left it. */
export function readmeSection(fleet: () => Fleet): void {
  describe("the README's Many hosts section, on three hosts", () => {
    let key = '';
    test('the workstation: the relay installed, the agent may use it', async () => {
      for (const c of commandsOf(readmeBlock(README, 'many-hosts-workstation'))) {
        const { program, args } = asRoot(c.words);
        const r = await fleet().ws.runAs('root', program, args);
        assert.equal(r.code, 0, `${c.text}\n${r.stderr}${r.stdout}`);
        if (args.includes('install')) key = /airlock proxy authorize '([^']+)'/.exec(r.stdout)?.[1] ?? '';
      }
      assert.match(key, /^ssh-ed25519 \S+ airlock-relay@/, 'relay install printed the key for the hosts');
      // install started the relay's unit (systemd runs on the workstation).
      await relayListening(fleet().ws);
    });

    const fingerprints = new Map<string, string>();
    test('each host: the relay key authorised, its own fingerprint read', async () => {
      for (const h of fleet().hosts) {
        for (const c of commandsOf(readmeBlock(README, 'many-hosts-host'))) {
          const { program, args } = asRoot(ours(fleet(), c.words, key), 'host');
          const r = await h.box.run(program, args);
          assert.equal(r.code, 0, `${c.text} on ${h.name}\n${r.stderr}${r.stdout}`);
          if (program.endsWith('ssh-keygen')) fingerprints.set(h.name, r.stdout.split(' ')[1]!);
        }
        assert.equal(fingerprints.get(h.name), await h.fingerprint());
      }
    });

    test('the workstation: each host added after its fingerprint was compared at a terminal', async () => {
      const lines = commandsOf(readmeBlock(README, 'many-hosts-add'));
      assert.equal(lines.length, 3);
      for (const c of lines) {
        const words = ours(fleet(), c.words, key);
        const name = words[words.indexOf('add') + 1]!;
        const { program, args } = asRoot(words);
        const shown = await typeAt([program, ...args].join(' '), [['[y/N]', (tty) => (tty.includes(fingerprints.get(name)!) ? 'y\n' : 'n\n')]], { via: ['/usr/bin/nsenter', '-t', String(fleet().ws.box.pid), '-a', '--'] });
        assert.equal(shown.code, 0, `${c.text}\n${shown.out}`);
        assert.match(shown.out, new RegExp(`key ${fingerprints.get(name)!.replace(/[+/]/g, '\\$&')} trusted`));
      }
    });

    test("the agent: the hosts by name, a read on one, a plan previewed on each", async () => {
      const lines = commandsOf(readmeBlock(README, 'many-hosts-agent'));
      assert.deepEqual(lines.map((l) => l.who), ['agent', 'agent', 'agent']);
      const [list, read, plan] = lines.map((c) => ours(fleet(), c.words, key).slice(1));
      const listed = await fleet().ws.airlock('agent', list!);
      assert.equal(listed.code, 0, listed.stderr);
      for (const h of fleet().hosts) assert.match(listed.stdout, new RegExp(`${h.name}  ${fingerprints.get(h.name)!.replace(/[+/]/g, '\\$&')}`));
      const ran = await fleet().ws.airlock('agent', read!);
      assert.equal(ran.code, 0, ran.stderr + ran.stdout);
      assert.match(ran.stderr, /fleet-1 \(fleet-1\), through the relay/);
      assert.match(ran.stdout, /airlock-dev/, "the host's own groups, read on fleet-1");
      const planned = await fleet().ws.airlock('agent', plan!);
      assert.equal(planned.code, 0, planned.stderr + planned.stdout);
      for (const h of fleet().hosts) assert.match(planned.stdout, new RegExp(`=== ${h.name}`));
      assert.equal((planned.stdout.match(/tx_[0-9a-f]{24}/g) ?? []).filter((v, i, a) => a.indexOf(v) === i).length >= 3, true, 'a transaction on each host');
    });
  });
}
