/**
 * `airlock actions` and `airlock describe` as a person meets them, run as the real command
 * with no daemon (the built-in catalogue): the listing is grouped by family under a header
 * each, pages through $PAGER at a terminal shorter than it (run by path, with its words as
 * arguments) and never through a pipe or with --no-pager, falls back to plain output when
 * the pager is missing; an unknown --family is refused with the list (exit 2); an unknown
 * action suggests the nearest names, and a name in the wrong case describes that action.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { airlock, CLI } from '../support/cli.js';
import { typeAt } from '../support/terminal.js';
import { catalogueMetadata, FAMILY_DESCRIPTIONS } from '../../src/protocol/catalogue-metadata.js';

const dir = mkdtempSync(join(tmpdir(), 'airlock-cli-catalogue-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const NO_DAEMON = { AIRLOCK_SOCKET: join(dir, 'no-daemon.sock') };
/** `airlock ARGS` at a real terminal of `rows` rows, with `env` set. */
const atTerminal = (args: string, env: Record<string, string>, rows = 10) =>
  typeAt(`stty rows ${rows} cols 250; exec env ${Object.entries({ ...NO_DAEMON, ...env }).map(([k, v]) => `${k}='${v}'`).join(' ')} ${process.execPath} --import tsx ${CLI} ${args}`, []);

test('every family has a one-line description', () => {
  for (const f of catalogueMetadata().families) assert.ok(FAMILY_DESCRIPTIONS[f], f);
});

test('actions are listed by family, each under a header with its description', async () => {
  const r = await airlock(['actions'], { env: NO_DAEMON });
  assert.equal(r.code, 0, r.stderr);
  const { families, actions } = catalogueMetadata();
  const headers = r.stdout.split('\n').filter((l) => /^\S/.test(l));
  assert.deepEqual(headers, families.filter((f) => actions.some((a) => a.family === f)).map((f) => `${f}  ${FAMILY_DESCRIPTIONS[f]}`));
  const services = r.stdout.split('\n\n').find((s) => s.startsWith('services '))!;
  assert.match(services, /^ {2}RestartService +medium +\S+ +Restart/m);
  assert.doesNotMatch(services, /InstallPackage/);
});

test('an unknown --family is refused with the list of families, exit 2', async () => {
  const r = await airlock(['actions', '--family', 'service'], { env: NO_DAEMON });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /there is no family named "service"/);
  assert.ok(r.stderr.includes(`families: ${catalogueMetadata().families.join(', ')}`), r.stderr);
  assert.equal(r.stdout, '');
  const ok = await airlock(['actions', '--family', 'ssh', '--json'], { env: NO_DAEMON });
  assert.ok((JSON.parse(ok.stdout) as { family: string }[]).every((a) => a.family === 'ssh'));
});

test('at a terminal shorter than the listing it goes through $PAGER, run by path with its words as arguments', async () => {
  const paged = join(dir, 'paged.txt');
  const r = await atTerminal('actions', { PAGER: `tee ${paged}` });
  assert.equal(r.code, 0, r.out);
  assert.match(readFileSync(paged, 'utf8'), /^services {2}/m, 'the pager (tee, found on PATH) got the listing on stdin');
});

test('no pager with --no-pager, --json, a listing that fits, or a pipe; a missing pager means plain output', async () => {
  const paged = join(dir, 'not-paged.txt');
  const tee = { PAGER: `/usr/bin/tee ${paged}` };
  for (const args of ['actions --no-pager', 'actions --json']) {
    const r = await atTerminal(args, tee);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /RestartService/);
  }
  const fits = await atTerminal('actions --family identity', tee, 200);
  assert.match(fits.out, /SetTimezone/);
  const piped = await airlock(['actions'], { env: { ...NO_DAEMON, ...tee } });
  assert.match(piped.stdout, /RestartService/);
  assert.equal(existsSync(paged), false, 'the pager never ran');
  const missing = await atTerminal('actions', { PAGER: join(dir, 'no-such-pager') });
  assert.equal(missing.code, 0, missing.out);
  assert.match(missing.out, /RestartService/);
});

test('an unknown action suggests the nearest names; the name in another case describes the action', async () => {
  const typo = await airlock(['describe', 'RestartServce'], { env: NO_DAEMON });
  assert.equal(typo.code, 5);
  assert.match(typo.stderr, /there is no action named "RestartServce" \(did you mean RestartService\?\)/);
  const lower = await airlock(['describe', 'installpackage'], { env: NO_DAEMON });
  assert.equal(lower.code, 0, lower.stderr);
  assert.match(lower.stdout, /^InstallPackage \(packages\)/);
  const far = await airlock(['describe', 'Frobnicate'], { env: NO_DAEMON });
  assert.match(far.stderr, /there is no action named "Frobnicate"\n/);
});
