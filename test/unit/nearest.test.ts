/** The nearest names for "did you mean": case first, then edits, then containment; bounded. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { didYouMean, MAX_SUGGESTIONS, nearestNames } from '../../src/protocol/nearest.js';
import { catalogueMetadata } from '../../src/protocol/catalogue-metadata.js';

const NAMES = catalogueMetadata().actions.map((a) => a.name);

test('a name in another case is the one answer', () => {
  assert.deepEqual(nearestNames('installpackage', NAMES), ['InstallPackage']);
  assert.deepEqual(nearestNames('RESTARTSERVICE', NAMES), ['RestartService']);
});

test('typos find the nearest names, a clearly nearer one alone', () => {
  assert.deepEqual(nearestNames('RestartServce', NAMES), ['RestartService']);
  assert.deepEqual(nearestNames('usr', ['user', 'group', 'shell']), ['user']);
  assert.ok(nearestNames('Journal', NAMES).every((n) => /journal/i.test(n)));
  assert.ok(nearestNames('Service', NAMES).length <= MAX_SUGGESTIONS);
});

test('nothing near means no suggestion, and long or empty input is not compared', () => {
  assert.deepEqual(nearestNames('Frobnicate', NAMES), []);
  assert.deepEqual(nearestNames('', NAMES), []);
  assert.deepEqual(nearestNames('x'.repeat(10_000), NAMES), []);
  assert.equal(didYouMean('zz', ['user']), '');
  assert.equal(didYouMean('usr', ['user', 'users'], (n) => `\`${n}\``), ' (did you mean `user` or `users`?)');
});
