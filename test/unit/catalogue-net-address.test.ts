/** The one network-address model (src/catalogue/lib/net-address.ts) that the firewall and network families share. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressText, canonicalIp, hasHostBits, netContains, netText, parseCidr, parseNet } from '../../src/catalogue/lib/net-address.js';

test('canonical text is what glibc inet_ntop (ip, nft) prints, IPv4 tails dotted', () => {
  // Where the two old models disagreed: netconfig's URL-parser canonicalisation printed these in hex.
  assert.equal(canonicalIp('::ffff:192.0.2.1'), '::ffff:192.0.2.1');
  assert.equal(canonicalIp('0:0:0:0:0:ffff:c000:201'), '::ffff:192.0.2.1');
  assert.equal(canonicalIp('::c000:201'), '::192.0.2.1');
  assert.equal(canonicalIp('::ffff:0'), '::255.255.0.0');
  assert.equal(canonicalIp('::1'), '::1', 'the loopback address is not an IPv4 tail');
  assert.equal(canonicalIp('64:ff9b::192.0.2.1'), '64:ff9b::c000:201', 'only the mapped and compatible prefixes are dotted');
  // Where they agreed: RFC 5952 compression and case.
  assert.equal(canonicalIp('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
  assert.equal(canonicalIp('1:0:0:2:0:0:0:3'), '1:0:0:2::3');
  assert.equal(canonicalIp('192.0.2.1'), '192.0.2.1');
});

test('canonicalIp takes one address: no prefix, no zone id, no leading zeros', () => {
  for (const bad of ['192.0.2.1/32', 'fe80::1%eth0', '01.2.3.4', '1.2.3', '', 'localhost', '::ffff:1.2.3.4%lo']) assert.equal(canonicalIp(bad), null, bad);
});

test('parseCidr needs the prefix length, parseNet does not; both refuse leading zeros and over-long prefixes', () => {
  assert.equal(parseCidr('192.0.2.1'), null);
  assert.deepEqual(parseCidr('192.0.2.1/32'), parseNet('192.0.2.1'));
  for (const bad of ['192.0.2.1/024', '192.0.2.1/33', '2001:db8::1/129', '1.2.3.4/8/8', '10.0.0.0/']) {
    assert.equal(parseCidr(bad), null, bad);
    assert.equal(parseNet(bad), null, bad);
  }
  const n = parseCidr('2001:db8::10/64')!;
  assert.equal(addressText(n), '2001:db8::10');
  assert.equal(netText(n), '2001:db8::10/64');
  assert.ok(hasHostBits(n));
  assert.ok(!hasHostBits(parseCidr('2001:db8::/32')!));
  assert.ok(netContains(parseNet('2001:db8::/32')!, n));
  assert.ok(!netContains(parseNet('10.0.0.0/8')!, parseNet('::ffff:10.0.0.1')!), 'families never mix');
});
