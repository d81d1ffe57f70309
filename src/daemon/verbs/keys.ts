/**
 * `keys.rotate`: an admin person (the door's `admin-person` access) replaces the audit or the
 * approval key; the rotation entry is signed under their name (key-rotation.ts).
 */
import type { KeyRotated } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { fail } from '../../protocol/errors.js';
import { entryPrincipal, type Request, type VerbContext } from './context.js';

export async function rotate(ctx: VerbContext, r: Request<ParsedParams<'keys.rotate'>>): Promise<KeyRotated> {
  if (!ctx.rotator) fail('integrity', 'internal', 'this daemon cannot rotate keys');
  return ctx.rotator!.rotate(entryPrincipal(r.caller), r.params.key);
}
