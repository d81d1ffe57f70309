/**
 * The README blocks test/integration/readme.test.ts follows (and the server install from the
 * Debian package, which test/integration/package.test.ts follows): each parses as plain
 * commands (no pipe, redirection or substitution the test would have to interpret),
 * and the reader refuses what it does not understand rather than guessing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeBlock, readReadme } from '../support/readme.js';

const README = readReadme(join(fileURLToPath(import.meta.url), '..', '..', '..', 'README.md'));
/** Followed by test/integration/readme.test.ts, then (many-hosts-*) by fleet.test.ts (fleet/readme-section.ts). */
const FOLLOWED = ['install', 'enrol', 'agent-account', 'flow', 'own-account', 'console', 'console-flow', 'many-hosts-workstation', 'many-hosts-host', 'many-hosts-add', 'many-hosts-agent'];
/** Followed by test/integration/package.test.ts, in the README's order before the others. */
const PACKAGE_BLOCK = 'package';

test('every block the README test follows is there and reads as plain commands', () => {
  const tagged = [...README.matchAll(/<!-- readme-test: ([\w-]+)/g)].map((m) => m[1]);
  assert.deepEqual(tagged.filter((n) => n !== 'prerequisites'), [PACKAGE_BLOCK, ...FOLLOWED], 'a tagged block nobody follows, or one missing');
  for (const name of [PACKAGE_BLOCK, ...FOLLOWED]) assert.ok(readmeBlock(README, name).length > 0, name);
  assert.deepEqual(readmeBlock(README, PACKAGE_BLOCK).map((l) => l.commands[0]!.slice(0, 2)), [['sha256sum', '-c'], ['sudo', 'apt'], ['sudo', 'usermod']]);
  const install = readmeBlock(README, 'install');
  assert.deepEqual(install[1]!.commands, [['cd', '/opt/airlock'], ['sudo', 'npm', 'install']]);
  assert.deepEqual(install.at(-1)!.commands[0], ['sudo', 'usermod', '-aG', 'airlock-admin,airlock-approvers', '$USER']);
  const flow = readmeBlock(README, 'flow');
  assert.deepEqual(flow.map((l) => l.who), ['you', 'agent', 'you', 'agent', 'anyone', 'anyone']);
  assert.equal(flow[1]!.commands[0]!.at(-1), 'key=ssh-ed25519 AAAA... laptop');
});

test('the reader refuses shell it would have to interpret, and the prerequisites block is such', () => {
  const block = (line: string) => readmeBlock(`<!-- readme-test: x -->\n\`\`\`sh\n${line}\n\`\`\``, 'x');
  for (const line of ['curl -fsSL https://x | sudo bash', 'echo a > /etc/x', 'ls $(pwd)', 'echo $HOME', 'a; b']) assert.throws(() => block(line), /shell syntax|variable/, line);
  assert.deepEqual(block(`you$ echo "it's" 'a b' # note`)[0]!.commands, [['echo', "it's", 'a b']]);
  assert.throws(() => readmeBlock(README, 'prerequisites'), /shell syntax/);
  assert.throws(() => readmeBlock(README, 'no-such-block'), /no block/);
});
