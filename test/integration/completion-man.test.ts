/**
 * `airlock completion SHELL` and `airlock man`, run as a person would: the scripts are
 * loaded by the real shells (bash always; zsh and fish when installed) and asked to
 * complete, and the page is rendered by man(1) with groff's warnings on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { airlock } from '../support/cli.js';

const has = (bin: string) => existsSync(bin) || `${bin} is not installed`;
const tmp = mkdtempSync(join(tmpdir(), 'airlock-completion-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

async function script(shell: string): Promise<string> {
  const r = await airlock(['completion', shell]);
  assert.equal(r.code, 0, r.stderr);
  const file = join(tmp, `airlock.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

/** What the shell offers after these words (the last one being completed). */
function bashComplete(file: string, words: string[]): string[] {
  const r = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _airlock; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', file, ...words], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

test('bash: the script registers airlock, and completes commands, subcommands, options and action names', async () => {
  const file = await script('bash');
  const p = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', 'source "$1"; complete -p airlock', 'bash', file], { encoding: 'utf8' });
  assert.equal(p.stdout.trim(), 'complete -F _airlock airlock');
  assert.deepEqual(bashComplete(file, ['airlock', 'pre']), ['preview']);
  assert.deepEqual(bashComplete(file, ['airlock', 'audit', 'v']), ['verify']);
  assert.deepEqual(bashComplete(file, ['airlock', '--socket', '/run/x.sock', 'pre']), ['preview']);
  assert.deepEqual(bashComplete(file, ['airlock', 'preview', '--json', 'CreateUs']), ['CreateUser']);
  assert.deepEqual(bashComplete(file, ['airlock', 'describe', 'InstallPack']), ['InstallPackage']);
  assert.deepEqual(bashComplete(file, ['airlock', 'preview', 'CreateUser', '--para']), ['--param', '--params']);
  assert.deepEqual(bashComplete(file, ['airlock', 'uninstall', '--p']), ['--purge']);
  // Only the first argument is an action; the second is not completed as one.
  assert.deepEqual(bashComplete(file, ['airlock', 'preview', 'CreateUser', 'CreateUs']), []);
});

test('every command and option that --help shows is in the completions', async () => {
  const file = await script('bash');
  const help = await airlock(['audit', 'verify', '--help']);
  // The options it lists (its examples below may name other commands' options).
  for (const [, opt] of help.stdout.split('Options:')[1]!.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)) assert.ok(bashComplete(file, ['airlock', 'audit', 'verify', '--']).includes(opt!), opt);
  const top = await airlock(['--help']);
  const commands = [...top.stdout.split('Commands:')[1]!.split('\n\n')[0]!.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
  assert.ok(commands.length > 20);
  assert.deepEqual(bashComplete(file, ['airlock', '']).sort(), commands.sort());
});

test('zsh: completes commands and action names', { skip: has('/usr/bin/zsh') !== true && has('/usr/bin/zsh') }, async () => {
  const file = await script('zsh');
  // compadd and compdef exist only in a completion context: stand-ins that print what would be offered.
  const run = (words: string[]) =>
    spawnSync('/usr/bin/zsh', ['-f', '-c', 'compdef() { print -r -- "compdef $*" }; compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@" }; _files() { print -r -- FILES }; source "$1"; shift; words=("$@"); CURRENT=$#; _airlock', 'zsh', file, ...words], { encoding: 'utf8' });
  const loaded = run(['airlock', '']);
  assert.equal(loaded.status, 0, loaded.stderr);
  assert.match(loaded.stdout, /^compdef _airlock airlock$/m);
  const offered = (words: string[]) => run(words).stdout.split('\n').filter((l) => l && !l.startsWith('compdef'));
  assert.ok(offered(['airlock', 'pre']).includes('preview'));
  assert.ok(offered(['airlock', 'preview', 'Create']).includes('CreateUser'));
  assert.ok(offered(['airlock', 'audit', '']).includes('verify'));
});

test('fish: completes commands and action names', { skip: has('/usr/bin/fish') !== true && has('/usr/bin/fish') }, async () => {
  const file = await script('fish');
  const offered = (line: string) => {
    const r = spawnSync('/usr/bin/fish', ['--no-config', '-c', `source ${file}; complete -C '${line}'`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!);
  };
  assert.deepEqual(offered('airlock pre'), ['preview']);
  assert.deepEqual(offered('airlock audit v'), ['verify']);
  assert.ok(offered('airlock preview CreateUs').includes('CreateUser'));
  assert.ok(offered('airlock preview --json CreateUs').includes('CreateUser'));
  assert.ok(offered('airlock uninstall --p').includes('--purge'));
});

test('an unknown shell is refused with the list', async () => {
  const r = await airlock(['completion', 'tcsh']);
  assert.equal(r.code, 5);
  assert.match(r.stderr, /bash, zsh or fish/);
});

test('the man page renders without a groff warning and documents every command and option --help shows', async () => {
  const r = await airlock(['man']);
  assert.equal(r.code, 0, r.stderr);
  const page = join(tmp, 'airlock.1');
  writeFileSync(page, r.stdout);
  const shown = spawnSync('/usr/bin/man', ['--warnings', '-l', page], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', MANWIDTH: '200', MANPAGER: 'cat', LANG: 'C.UTF-8' } });
  assert.equal(shown.status, 0, shown.stderr);
  assert.equal(shown.stderr, '', 'groff warnings');
  const text = shown.stdout.replace(/.\x08/g, '');
  for (const cmd of ['airlock preview [action]', 'airlock audit verify', 'airlock uninstall', 'airlock completion <shell>']) assert.ok(text.includes(cmd), cmd);
  const help = await airlock(['uninstall', '--help']);
  // The options it lists (its examples below may name other commands' options).
  for (const [, opt] of help.stdout.split('Options:')[1]!.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)) assert.ok(text.includes(opt!), opt);
});
