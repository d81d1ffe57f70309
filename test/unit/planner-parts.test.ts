/**
 * The one completeness check (src/planner/parts.ts): the request's parts as the offline
 * planner splits them, and a part covered only by a step that says its words (its part, its
 * reason, its action's name) or by a missing part; what no step covers comes back missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlanStep } from '../../src/planner/contract.js';
import { requestParts, uncoveredParts } from '../../src/planner/parts.js';

const step = (action_name: string, reason: string, part?: string): PlanStep => ({ action_name, params: {}, reason, ...(part !== undefined ? { part } : {}) });

test('the parts: split at and, then or a comma before a request; a list of names stays one part', () => {
  assert.deepEqual(requestParts('install nginx and start it'), ['install nginx', 'start it']);
  assert.deepEqual(requestParts('install nginx, start it and enable it at boot'), ['install nginx', 'start it', 'enable it at boot']);
  assert.deepEqual(requestParts('install nginx and frobnicate it'), ['install nginx', 'frobnicate it']);
  assert.deepEqual(requestParts('install curl and jq'), ['install curl and jq']);
  assert.deepEqual(requestParts('create a group ops, then add carol to it'), ['create a group ops', 'add carol to it']);
});

test('a part is covered by the words a step or a missing part says, else it comes back missing', () => {
  const install = step('InstallPackage', 'install the package');
  assert.deepEqual(uncoveredParts('install nginx and start it', [install], []), [{ part: 'start it', why: 'the planner proposed no step for it' }]);
  assert.deepEqual(uncoveredParts('install nginx and start it', [install, step('StartService', 'its service')], []), [], 'the action name says "start"');
  assert.deepEqual(uncoveredParts('install nginx and make sure it starts at boot', [install, step('EnableService', 'enable it at boot')], []), [], '"starts" is "start"; "boot" is said');
  assert.deepEqual(uncoveredParts('install nginx and frobnicate it', [install], [{ part: 'frobnicate it', why: 'no action' }]), [], 'named missing: covered');
  assert.deepEqual(uncoveredParts('how long has it been up? then add a group web', [step('Uptime', 'look first', 'how long has it been up?'), step('CreateGroup', 'asked', 'add a group web')], []), [], 'by the part a step names');
  // A word both parts say covers neither on its own: "nginx" is not "frobnicate". (Without "then",
  // an unknown verb before a name reads as a list, "install curl and jq": one part, the limit of word rules.)
  assert.deepEqual(uncoveredParts('install nginx and then frobnicate nginx', [step('InstallPackage', 'install nginx')], []).map((m) => m.part), ['frobnicate nginx']);
  // One request and a step: the step is for it; one request and none: missing.
  assert.deepEqual(uncoveredParts('restart nginx', [step('RestartService', 'x')], []), []);
  assert.deepEqual(uncoveredParts('restart nginx', [], []).map((m) => m.part), ['restart nginx']);
});
