import { CATALOGUE } from '../src/catalogue/index.js';
const rows = [...CATALOGUE.values()].filter((a: any) => !a.readOnly);
const by: Record<string, any[]> = {};
for (const a of rows as any[]) (by[a.family] ??= []).push(a);
for (const [f, as] of Object.entries(by)) console.log(f, as.map((a: any) => `${a.name}:${a.risk[0]}${a.rollback ? '+R' : ''}`).join(' '));
console.log('changes', rows.length, 'rollback', (rows as any[]).filter(a=>a.rollback).length);
