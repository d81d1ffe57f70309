/**
 * The trusted-path rule (src/catalogue/lib/trusted-path.ts) applied to the real file
 * system: each component is lstat'ed from "/" down, and judged before the next one is
 * looked at. lstat of /a/b follows /a; that is sound here because /a was judged first:
 * a real directory that only root can change, so /a/b resolves where it did when judged.
 * The first component that breaks the rule stops the walk with the typed refusal.
 */
import { promises as fsp } from 'node:fs';
import { componentsOf, judgeComponent, untrustedPathError, type ComponentState } from '../catalogue/lib/trusted-path.js';

async function lstatComponent(path: string): Promise<ComponentState | null> {
  try {
    const st = await fsp.lstat(path);
    return { isDir: st.isDirectory(), isSymlink: st.isSymbolicLink(), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Refuses (AirlockError untrusted_path, naming the component) unless `path` may be handed to a root program by name. */
export async function checkTrustedPath(path: string): Promise<void> {
  for (const { component, ancestor } of componentsOf(path)) {
    const st = await lstatComponent(component);
    if (st === null) return;
    const reason = judgeComponent(st, ancestor);
    if (reason) throw untrustedPathError(path, { component, reason });
  }
}
