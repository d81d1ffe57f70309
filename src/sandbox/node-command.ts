/**
 * argv to run one of our modules in a fresh Node process: the compiled .js when it
 * exists, else the .ts source through tsx (resolved to an absolute URL, because
 * the process may start in a chroot or with a cwd where `tsx` cannot be found).
 */
import { existsSync } from 'node:fs';

export function nodeCommand(jsPath: string): string[] {
  if (existsSync(jsPath)) return [process.execPath, jsPath];
  return [process.execPath, '--import', import.meta.resolve('tsx'), jsPath.replace(/\.js$/, '.ts')];
}
