import { CATALOGUE } from '../src/catalogue/index.js';
import { readdirSync } from 'node:fs';
const dir = 'test/scenarios';
for (const f of readdirSync(dir).filter((f) => f !== 'types.ts')) {
  const mod = await import(`../${dir}/${f}`);
  const acts = [...new Set(mod.scenarios.map((s: any) => s.action))].map((n: any) => CATALOGUE.get(n)!).filter((a) => !a.readOnly);
  console.log(f, mod.host ?? 'overlay', acts.map((a) => `${a.name}:${a.family}:${a.risk[0]}:${a.rollback.class}${a.rollback.class === 'none' && /not yet/.test(a.rollback.reason) ? '?' : ''}`).join(' '));
}
