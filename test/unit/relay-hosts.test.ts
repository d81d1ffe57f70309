/**
 * The relay's host list and trusted keys (src/protocol/relay-hosts.ts): strict parsing (a host
 * list is what decides which machines an agent may reach), OpenSSH's own fingerprint for a key,
 * and the known_hosts edits `airlock hosts add` and `remove` make.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fingerprint, formatHosts, hostFromDestination, hostKeysOf, parseHosts, parseScannedKeys, withHostKeys } from '../../src/protocol/relay-hosts.js';

test('a destination is [USER@]ADDRESS[:PORT], with the proxy account and port 22 by default', () => {
  assert.deepEqual(hostFromDestination('web1', '10.0.0.5'), { name: 'web1', address: '10.0.0.5', port: 22, user: 'airlock-relay' });
  assert.deepEqual(hostFromDestination('db-2', 'ops@db2.example.org:2222'), { name: 'db-2', address: 'db2.example.org', port: 2222, user: 'ops' });
  assert.deepEqual(hostFromDestination('v6', '[fd00::5]:22'), { name: 'v6', address: 'fd00::5', port: 22, user: 'airlock-relay' });
});

test('what could become an ssh option, or more than one word, is refused', () => {
  for (const dest of ['-oProxyCommand=x', 'a b', 'root@-x', 'host:0', 'host:70000', 'Ro ot@host', 'host;rm', '']) {
    assert.throws(() => hostFromDestination('web1', dest), /destination|address|port|user/, dest);
  }
  for (const name of ['Web1', '-x', 'a/b', '', 'x'.repeat(64), 'a b']) assert.throws(() => hostFromDestination(name, '10.0.0.5'), /host name/, name);
});

test('the host list round-trips and refuses anything it does not know', () => {
  const hosts = new Map([['web1', hostFromDestination('web1', '10.0.0.5')], ['db', hostFromDestination('db', 'ops@db.example:2222')]]);
  assert.deepEqual(parseHosts(formatHosts(hosts)), hosts);
  assert.throws(() => parseHosts('[hosts.web1]\naddress = "10.0.0.5"\ncommand = "x"\n'), /unknown key "command"/);
  assert.throws(() => parseHosts('[other]\nx = 1\n'), /unknown table/);
  assert.throws(() => parseHosts('[hosts.web1]\naddress = "-oProxyCommand=x"\n'), /not an IP address or a DNS name/);
  assert.throws(() => parseHosts('[hosts.Bad]\naddress = "10.0.0.5"\n'), /host name/);
  assert.throws(() => parseHosts('not toml ['), /not TOML/);
});

test("a key's fingerprint is the one ssh-keygen prints", () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-fp-'));
  try {
    execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'k')]);
    const [type, key] = readFileSync(join(dir, 'k.pub'), 'utf8').split(' ');
    const printed = execFileSync('/usr/bin/ssh-keygen', ['-lf', join(dir, 'k.pub')]).toString().split(' ')[1];
    assert.equal(fingerprint({ type: type!, key: key! }), printed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('scanned keys: only known key types with base64 blobs; known_hosts keeps one alias per host', () => {
  const scanned = parseScannedKeys('# 10.0.0.5:22 SSH-2.0-OpenSSH\n10.0.0.5 ssh-ed25519 AAAAC3Nza\n10.0.0.5 ssh-dss AAAAB3\n10.0.0.5 ssh-rsa not base64!\n');
  assert.deepEqual(scanned, [{ type: 'ssh-ed25519', key: 'AAAAC3Nza' }]);
  let known = withHostKeys('', 'web1', scanned);
  known = withHostKeys(known, 'web2', [{ type: 'ssh-ed25519', key: 'BBBB' }]);
  assert.equal(known, 'airlock-host-web1 ssh-ed25519 AAAAC3Nza\nairlock-host-web2 ssh-ed25519 BBBB\n');
  known = withHostKeys(known, 'web1', [{ type: 'ssh-ed25519', key: 'CCCC' }]);
  assert.deepEqual(hostKeysOf(known, 'web1'), [{ type: 'ssh-ed25519', key: 'CCCC' }], 'replaced, not added');
  assert.deepEqual(hostKeysOf(withHostKeys(known, 'web1', []), 'web1'), [], 'removed');
  assert.deepEqual(hostKeysOf(known, 'web2'), [{ type: 'ssh-ed25519', key: 'BBBB' }]);
});
