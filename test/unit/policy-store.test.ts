/** The policy's [store] section (src/policy/store-settings.ts): defaults, durations, and every mistake named. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePolicy, PolicyError, explainPolicy } from '../../src/policy/policy.js';
import { DEFAULT_STORE_SETTINGS, formatDuration, parseDuration } from '../../src/policy/store-settings.js';

test('no [store] section means the defaults: a week of details, 90 days of history, segments of 100,000, 256 MB free, 64 MB reserved', () => {
  assert.deepEqual(parsePolicy('').store, DEFAULT_STORE_SETTINGS);
  assert.deepEqual(DEFAULT_STORE_SETTINGS, { keepDetailsMs: 7 * 86_400_000, keepHistoryMs: 90 * 86_400_000, archiveSegmentEntries: 100_000, archiveAfterMs: 30 * 86_400_000, archiveDir: null, minFreeBytes: 256 * 1048576, reserveBytes: 64 * 1048576 });
});

test('durations are a number and one unit; they print back as the largest whole unit', () => {
  assert.deepEqual(['30s', '15m', '12h', '7d', '0s'].map(parseDuration), [30_000, 900_000, 43_200_000, 604_800_000, 0]);
  for (const bad of ['7', 'd', '1w', '1.5d', '-1d', ' 7d', '7d ', '7D', '1234567d']) assert.equal(parseDuration(bad), null, bad);
  assert.deepEqual([604_800_000, 43_200_000, 90_000, 1500].map(formatDuration), ['7d', '12h', '90s', '2s']);
});

test('every setting is read, and a mistake says where and what', () => {
  const p = parsePolicy('[store]\nkeep_details = "1h"\nkeep_history = "2d"\narchive_segment_entries = 64\narchive_after = "12h"\narchive_dir = "/srv/a"\nmin_free_mb = 100\nreserve_mb = 10\n');
  assert.deepEqual(p.store, { keepDetailsMs: 3_600_000, keepHistoryMs: 2 * 86_400_000, archiveSegmentEntries: 64, archiveAfterMs: 43_200_000, archiveDir: '/srv/a', minFreeBytes: 100 * 1048576, reserveBytes: 10 * 1048576 });
  const refused: Array<[string, RegExp]> = [
    ['keep_details = "7 days"', /a duration is a number and a unit/],
    ['keep_details = "2d"\nkeep_history = "1d"', /keep_history \(1d\) is shorter than keep_details \(2d\)/],
    ['min_free_mb = 64\nreserve_mb = 64', /reserve_mb \(64\) must be less than min_free_mb \(64\)/],
    ['archive_segment_entries = 10', /16/],
    ['archive_dir = "relative/dir"', /absolute path/],
    ['archive_dir = "/srv/\\u0007"', /absolute path/],
    ['keep_everything = true', /keep_everything|unrecognized/i],
  ];
  for (const [body, message] of refused) {
    assert.throws(() => parsePolicy(`[store]\n${body}\n`), (e: Error) => e instanceof PolicyError && message.test(e.message), body);
  }
});

test('policy check explains the section in words', () => {
  const lines = explainPolicy(parsePolicy('[store]\nkeep_details = "1d"\n')).lines.join('\n');
  assert.match(lines, /kept 1d, then compacted/);
  assert.match(lines, /segments of 100,000 entries/);
  assert.match(lines, /refused under 256 MB free; 64 MB are set aside/);
});
