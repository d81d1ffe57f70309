/**
 * `npm test` installs what its tests need and changes nothing else: the reading of apt's
 * simulation tells a new package from an upgrade of an installed one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error: a plain ES module of scripts/, without types
import { parseMadison, parseSimulation } from '../../scripts/apt-plan.js';

// What Debian 12's apt printed for `apt-get install -s --no-install-recommends debootstrap systemd-container`.
const SIMULATION = `NOTE: This is only a simulation!
Reading package lists...
Inst libnss-systemd [252.38-1~deb12u1] (252.39-1~deb12u2 Debian:12.15/oldstable [amd64]) []
Inst systemd [252.38-1~deb12u1] (252.39-1~deb12u2 Debian:12.15/oldstable [amd64]) []
Inst libsystemd0 [252.38-1~deb12u1] (252.39-1~deb12u2 Debian:12.15/oldstable [amd64])
Inst debootstrap (1.0.128+nmu2+deb12u2 Debian:12.15/oldstable [all])
Inst systemd-container (252.39-1~deb12u2 Debian:12.15/oldstable [amd64])
Conf debootstrap (1.0.128+nmu2+deb12u2 Debian:12.15/oldstable [all])
`;

test('an upgrade of an installed package is told from a new install', () => {
  const { installs, upgrades } = parseSimulation(SIMULATION);
  assert.deepEqual(installs.map((i: { name: string }) => i.name), ['debootstrap', 'systemd-container']);
  assert.deepEqual(upgrades, [
    { name: 'libnss-systemd', from: '252.38-1~deb12u1', to: '252.39-1~deb12u2' },
    { name: 'systemd', from: '252.38-1~deb12u1', to: '252.39-1~deb12u2' },
    { name: 'libsystemd0', from: '252.38-1~deb12u1', to: '252.39-1~deb12u2' },
  ]);
});

test("apt-cache madison's versions, newest first, each once", () => {
  const text = [
    'systemd-container | 252.39-1~deb12u2 | http://deb.debian.org/debian bookworm/main amd64 Packages',
    'systemd-container | 252.38-1~deb12u1 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages',
    'systemd-container | 252.38-1~deb12u1 | http://deb.debian.org/debian bookworm/main Sources',
  ].join('\n');
  assert.deepEqual(parseMadison(text), ['252.39-1~deb12u2', '252.38-1~deb12u1']);
});

test('a package apt would remove to install another counts as a change to the machine', () => {
  const { upgrades } = parseSimulation('Remv systemd-timesyncd [252.38-1~deb12u1]\nInst systemd-container (252.39-1~deb12u2 Debian:12.15/oldstable [amd64])\n');
  assert.deepEqual(upgrades, [{ name: 'systemd-timesyncd', from: '252.38-1~deb12u1', to: '(removed)' }]);
});
