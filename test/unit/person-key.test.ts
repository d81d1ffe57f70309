/** The one writer and reader of a person key (src/protocol/person-key.ts), as the daemon stores it and the clients read it from the log. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePersonKey, personKey } from '../../src/protocol/person-key.js';

test('a person key reads back as the name and uid it was written from', () => {
  for (const p of [{ user: 'alice', uid: 1001 }, { user: 'svc.backup-2', uid: 0 }, { user: 'a(b)', uid: 4294967294 }]) assert.deepEqual(parsePersonKey(personKey(p)), p);
});

test('what is not a person key reads as none', () => {
  for (const s of ['alice', 'alice(uid )', 'alice(uid 1001) via sudo', '(uid 1001)', 'alice(uid 12345678901)', 'token:ci']) assert.equal(parsePersonKey(s), null, s);
});
