/**
 * Issue 22, finding 4: every ELF program of the test bed's /usr/bin and /usr/sbin (Debian 12)
 * put to the one check for commands root runs later on the agent's behalf
 * (src/catalogue/lib/agent-command.ts), reading the test bed's root as plain files. Only the
 * allowlist's programs pass, and each only with arguments of one of its usage lines.
 * Before the allowlist, about 750 of them passed a runner denylist.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, promises as fsp } from 'node:fs';
import type { Host } from '../../src/catalogue/action.js';
import { agentCommandRefusal } from '../../src/catalogue/lib/agent-command.js';
import { AGENT_GRAMMARS, AGENT_PROGRAMS } from '../../src/catalogue/lib/agent-programs.js';
import { exampleArgs } from '../../src/catalogue/lib/command-grammar.js';
import { componentsOf, judgeComponent, untrustedPathError } from '../../src/catalogue/lib/trusted-path.js';
import { buildTestbedRoot } from '../../src/sandbox/testbed-root.js';

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** The Host reads of the one check, answered from the test bed's root directory (lstat: no link followed). */
function rootedHost(root: string): Host {
  const lstat = async (p: string) => fsp.lstat(root + p).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e)));
  const none = () => Promise.reject(new Error('not read by the check'));
  return {
    platform: 'debian',
    readFile: none,
    run: none,
    users: none,
    groups: none,
    finishedChange: none,
    checkStaged: none,
    async stat(p) {
      const st = await lstat(p);
      return st && { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, size: st.size, isFile: st.isFile(), isDir: st.isDirectory(), isSymlink: st.isSymbolicLink() };
    },
    async trustedPath(p) {
      for (const { component, ancestor } of componentsOf(p)) {
        const st = await lstat(component);
        if (!st) return;
        const reason = judgeComponent({ isDir: st.isDirectory(), isSymlink: st.isSymbolicLink(), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }, ancestor);
        if (reason) throw untrustedPathError(p, { component, reason });
      }
    },
    async fileHead(p, bytes) {
      const fh = await fsp.open(root + p, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
      if (!fh) return null;
      try {
        const st = await fh.stat();
        const head = Buffer.alloc(Math.min(bytes, st.size));
        await fh.read(head, 0, head.length, 0);
        return { head, links: st.nlink };
      } finally {
        await fh.close();
      }
    },
  };
}

/** The regular files that are ELF executables, directly in dir of the root, by their path on the test bed. */
async function elfPrograms(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await fsp.readdir(root + dir)).sort()) {
    const st = await fsp.lstat(`${root}${dir}/${name}`);
    if (!st.isFile() || (st.mode & 0o111) === 0) continue;
    const fh = await fsp.open(`${root}${dir}/${name}`, constants.O_RDONLY | constants.O_NOFOLLOW);
    const head = Buffer.alloc(4);
    await fh.read(head, 0, 4, 0).finally(() => fh.close());
    if (head.equals(ELF)) out.push(`${dir}/${name}`);
  }
  return out;
}

test('of every ELF program in the test bed\'s /usr/bin and /usr/sbin, only the allowlist\'s pass, each only with its grammar', async (t) => {
  const root = buildTestbedRoot();
  const host = rootedHost(root);
  const programs = [...(await elfPrograms(root, '/usr/bin')), ...(await elfPrograms(root, '/usr/sbin'))];
  const check = (program: string, args: string[]) => agentCommandRefusal(host, { what: 'the sudo grant', program, args });
  const passed: string[] = [];
  for (const program of programs) {
    const grammars = AGENT_GRAMMARS.get(program);
    if (!grammars) {
      for (const args of [[], ['--help'], ['--version']]) {
        const r = await check(program, args);
        assert.equal(r?.code, 'program_refused', `${program} ${args.join(' ')}: ${r?.message ?? 'passed'}`);
      }
      continue;
    }
    for (const g of grammars) {
      for (const full of [false, true]) {
        const args = exampleArgs(g, full);
        assert.equal((await check(program, args))?.message ?? null, null, `${program} ${args.join(' ')}`);
        for (const bad of [[...args, '--help'], ['--help'], ['--version', ...args]]) {
          const r = await check(program, bad);
          assert.ok(r, `${program} ${bad.join(' ')} passed`);
          assert.equal(r.code, 'arguments_refused', r.message);
        }
      }
    }
    passed.push(program);
  }
  assert.deepEqual(passed.sort(), AGENT_PROGRAMS.map((p) => p.program).sort(), 'every program of the table is an ELF program of Debian 12, and no other passes');
  t.diagnostic(`${programs.length} ELF programs walked, ${passed.length} pass (with their grammars only)`);
});
