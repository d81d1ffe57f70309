/**
 * Structural invariants checked on the source: the trust boundary (clients never
 * import daemon or store code) and no shell anywhere in the daemon or catalogue.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../../src/catalogue/index.js';
import { PROGRAMS, shellViolation, type ProgramName } from '../../src/catalogue/programs.js';
import { neverRunByDaemon } from '../../src/catalogue/lib/program-runners.js';
import { Executor } from '../../src/daemon/executor.js';
import { command } from '../../src/catalogue/mechanism.js';
import { AirlockError } from '../../src/protocol/errors.js';
import { STEP_KINDS } from '../../src/catalogue/mechanism.js';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
const within = (d: string) => files(join(SRC, d)).filter(() => true);
const safeDirs = ['client', 'cli', 'mcp', 'sandbox', 'planner', 'relay'].filter((d) => {
  try {
    return statSync(join(SRC, d)).isDirectory();
  } catch {
    return false;
  }
});

test('unprivileged code never imports src/daemon or src/store', () => {
  const offenders: string[] = [];
  for (const d of safeDirs) {
    for (const f of within(d)) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const target = join(dirname(f), m[1]!);
        const rel = relative(SRC, target);
        if (m[1]!.startsWith('.') && (rel.startsWith('daemon') || rel.startsWith('store'))) offenders.push(`${relative(SRC, f)} imports ${m[1]}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});

test('audit verification needs nothing from the daemon or the store', () => {
  for (const f of within('audit')) assert.doesNotMatch(readFileSync(f, 'utf8'), /from ['"]\.\.\/(daemon|store)\//, f);
});

test('no shell: no shell: true, no exec/execSync, no spawn of a shell, no -c strings in the daemon, the catalogue or the relay', () => {
  const hits: string[] = [];
  // The relay holds the SSH key to every host: it runs ssh by path with an argv array, never a shell.
  for (const f of [...within('daemon'), ...within('catalogue'), ...within('relay')]) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"](node:)?child_process['"]/g)) {
      if (/\bexec(Sync)?\b/.test(m[1]!)) hits.push(`${relative(SRC, f)} imports exec/execSync`);
    }
    text.split('\n').forEach((line, i) => {
      if (/^\s*(\/\/|\*)/.test(line)) return;
      // The one place that names -c is the guard that refuses it, with the one exact command it lets through (`shutdown -c`).
      if (relative(SRC, f) === join('catalogue', 'programs.ts') && (line.includes("if (args.includes('-c') && !(program === CANCEL_SHUTDOWN.program") || line.startsWith("export const CANCEL_SHUTDOWN = { program: 'shutdown', args: ['-c'] }"))) return;
      // Login shells such as '/bin/bash' may appear as data (usermod -s); what is refused is running one.
      if (/shell:\s*true|child_process\.exec|(spawn|execFile)\w*\(\s*['"][^'"]*\b(ba|da|z|k)?sh['"]|['"]-c['"]/.test(line)) hits.push(`${relative(SRC, f)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(hits, []);
});

test('the program table names no shell, interpreter or program runner (the one table: src/catalogue/lib/program-runners.ts)', () => {
  for (const [name, paths] of Object.entries(PROGRAMS)) {
    assert.ok(!neverRunByDaemon(name), `${name} is a shell, an interpreter or a runner`);
    for (const p of paths) {
      assert.ok(p.startsWith('/'), `${name}: ${p} is not absolute`);
      const base = p.split('/').pop()!;
      assert.ok(!neverRunByDaemon(base), `${name} resolves to ${base}`);
    }
  }
  for (const name of ['sh', 'bash', 'env', 'xargs', 'su', 'sudo', 'runuser', 'nsenter', 'chroot', 'find', 'perl', 'python3', 'awk', 'sed', 'busybox', 'ld-linux-x86-64.so.2', 'setarch', 'logsave', 'systemd-run', 'strace']) {
    assert.ok(neverRunByDaemon(name), `${name} must never run`);
  }
});

test('every action is a complete declaration', () => {
  assert.ok(CATALOGUE.size >= 30, `only ${CATALOGUE.size} actions`);
  const families = new Set([...CATALOGUE.values()].map((a) => a.family));
  assert.ok(families.size >= 7, `only ${families.size} families`);
  for (const a of CATALOGUE.values()) {
    assert.match(a.name, /^[A-Z][A-Za-z0-9]+$/);
    assert.ok(a.description.length > 10, `${a.name} lacks a description`);
    assert.ok(['low', 'medium', 'high'].includes(a.risk));
    assert.ok(a.platforms.length > 0);
    assert.equal(typeof a.current, 'function');
    assert.equal(typeof a.preview, 'function');
    assert.equal(typeof a.mechanism, 'function');
    assert.ok(a.params.safeParse(a.example).success, `${a.name}'s example does not validate`);
    assert.ok(!a.params.safeParse({ ...a.example, extra: 1 }).success, `${a.name} accepts unknown keys`);
    if (!a.readOnly) assert.notEqual(a.risk, 'low', `${a.name} changes the host but is low risk`);
    assert.ok(a.files.every((g: string) => g.startsWith('/') && !g.includes('..')), `${a.name} has a bad file glob`);
  }
});

test('mechanism steps are one of the five LACS shapes', () => {
  assert.deepEqual([...STEP_KINDS].sort(), ['command', 'fileDelete', 'filePatch', 'fileScan', 'fileWrite']);
});

test('the executor refuses a shell, a program runner or -c before anything starts, undo steps included', async () => {
  // A table that (wrongly) resolves them: the refusal must not depend on the binary being missing.
  const ex = new Executor({ programs: { bash: '/bin/bash', env: '/usr/bin/env', ls: '/bin/ls' } as never });
  const refused = (e: unknown) => e instanceof AirlockError && e.code === 'shell_refused' && e.category === 'execution';
  await assert.rejects(ex.run(command('bash' as ProgramName, ['-c', 'id'])), refused);
  await assert.rejects(ex.run(command('env' as ProgramName, ['id'])), refused);
  await assert.rejects(ex.run(command('ls', ['-c'])), refused);
  assert.throws(() => ex.claim([command('ls', ['-l'], { undo: command('bash' as ProgramName, ['-c', 'true']) })]), refused);
  assert.equal(shellViolation('ls', ['-l', '--', '-c-file']), null);
});
