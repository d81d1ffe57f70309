/**
 * Kernel module blacklist (kernel family), in the booted Debian test bed: Airlock's
 * drop-in is written and deleted in /etc/modprobe.d and checked with the file system
 * and `modprobe -c` (the configuration modprobe really parses).
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const FILE = '/etc/modprobe.d/60-airlock-blacklist-usb_storage.conf';
const OTHER = '/etc/modprobe.d/local-demo.conf';
const showConfig = async (box: SandboxView) => (await box.run('/usr/sbin/modprobe', ['-c'])).stdout.split('\n');

export const scenarios: Scenario[] = [
  {
    action: 'ListModuleBlacklist',
    params: {},
    setup: async (box) => {
      assert.ok(box.writeFile);
      await box.writeFile(OTHER, '# a local file\nblacklist pcspkr\n');
    },
    check: async (_box, r) => assert.ok(r.output.join('\n').includes('blacklist pcspkr'), JSON.stringify(r.output)),
  },
  {
    action: 'BlacklistModule',
    params: { module: 'usb-storage' },
    check: async (box) => {
      assert.equal(await box.readFile(FILE), '# Written by Airlock (BlacklistModule); UnblacklistModule removes it.\nblacklist usb_storage\ninstall usb_storage /bin/false\n');
      const conf = await showConfig(box);
      assert.ok(conf.includes('blacklist usb_storage'), 'modprobe parses the blacklist line');
      assert.ok(conf.includes('install usb_storage /bin/false'), 'and the install line');
    },
  },
  {
    title: 'the new file is listed',
    action: 'ListModuleBlacklist',
    params: {},
    check: async (_box, r) => assert.ok(r.output.join('\n').includes('install usb_storage /bin/false')),
  },
  {
    action: 'UnblacklistModule',
    params: { module: 'usb_storage' },
    check: async (box) => {
      assert.equal(await box.readFile(FILE), null);
      assert.ok(!(await showConfig(box)).some((l) => l.includes('usb_storage')));
      assert.notEqual(await box.readFile(OTHER), null, 'files Airlock did not write stay');
    },
  },
  {
    title: 'this kernel has no loadable modules: refused before anything runs',
    action: 'LoadModule',
    params: { module: 'wireguard' },
    refused: 'no_loadable_modules',
    check: async (box) => {
      assert.equal(await box.readFile('/proc/modules'), null, 'the test-bed kernel really has no module support');
      assert.equal((await box.run('/usr/sbin/modprobe', ['--dry-run', '--', 'wireguard'])).code === 0, false, 'and modprobe itself cannot load it');
    },
  },
];
