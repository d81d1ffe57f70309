/**
 * Many hosts, for real, on ONE fleet per run (booting four test beds and installing the package
 * on three is most of this file's time): three booted Debian test-bed hosts on a private network,
 * each with sshd and Airlock's Debian package, and a workstation where the relay runs under its
 * real unit (test/support/fleet.ts). The parts run in order, each on what the one before left:
 *
 * 0. each host's daemon keeps its log in the shared PostgreSQL from its first start (fleet/evidence.ts);
 * 1. fleet/readme-section.ts sets the fleet up by the README's "Many hosts" lines alone;
 * 2. each host then gets the policy below, and fleet/ceremony.ts approves a plan on the three
 *    with one passkey assertion in Chromium;
 * 3. fleet/relay.ts shows the relay's guarantees, ending with one host's key changed and another's
 *    daemon stopped;
 * 4. an auditor verifies every host's log in the database (fleet/evidence.ts).
 */
import { existsSync } from 'node:fs';
import { after, before, describe } from 'node:test';
import { testbedMissing } from '../../src/sandbox/testbed-root.js';
import { startFleet, type Fleet } from '../support/fleet.js';
import { freePort } from '../support/loopback.js';
import { ceremony, CHROMIUM } from './fleet/ceremony.js';
import { readmeSection } from './fleet/readme-section.js';
import { sharedStore } from './fleet/evidence.js';
import { FLEET_GROUPS_RULE, relayTests } from './fleet/relay.js';

const skip = testbedMissing() ?? (existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing`);
let fleet: Fleet | undefined;
const theFleet = (): Fleet => {
  if (!fleet) throw new Error('the fleet did not start');
  return fleet;
};

describe('many hosts', { skip: skip ?? false }, () => {
  // The fleet approval page's port: its origin is the hosts' passkey origin.
  let port = 0;
  const store = sharedStore();
  before(async () => {
    port = await freePort();
    await store.start(3);
    fleet = await startFleet(3, { setUp: false, beforePackage: store.beforePackage });
  });
  after(async () => {
    await fleet?.stop();
    await store.stop();
  });

  readmeSection(theFleet);

  describe("with each host's policy: passkeys for the fleet page's origin, and the relay's rule for groups named fleet-*", () => {
    before(async () => {
      const policy = `[passkeys]\nrp_id = "localhost"\norigins = ["http://localhost:${port}"]\n\n${FLEET_GROUPS_RULE}`;
      await Promise.all(theFleet().hosts.map((h) => h.setPolicy(policy)));
    });
    ceremony(theFleet, () => port);
    relayTests(theFleet);
  });

  store.tests(theFleet);
});
