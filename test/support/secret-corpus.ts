/**
 * The masking corpus (issue 11): realistic files with planted fake secrets, and ordinary host output full of
 * near-misses. It measures the detectors; it was written without reading them. The measure: after masking a file,
 * no planted `value` occurs anywhere in its text (recall), and no line of an ordinary output changes (false positives).
 * Everything is generated from fixed seeds, so two calls give identical text and figures stay comparable.
 */
import { Rng } from './corpus-random.js';
import { keyFiles } from './corpus-planted-keys.js';
import { serviceFiles } from './corpus-planted-services.js';
import { configFiles } from './corpus-planted-config.js';
import { outputFiles } from './corpus-planted-output.js';
import { publicFiles } from './corpus-ordinary-public.js';
import { hostFiles } from './corpus-ordinary-host.js';
import { configOrdinaryFiles } from './corpus-ordinary-config.js';

/** `value` is the secret material alone, an exact substring of its file's text; `kind` is a label for reports only. */
export interface PlantedSecret { value: string; kind: string }
export interface CorpusFile { name: string; text: string; secrets: PlantedSecret[] }

/** Realistic files with planted fake secrets (none was ever a credential). */
export function plantedSecrets(): CorpusFile[] {
  const rng = new Rng(0x5ec2e7);
  return [...keyFiles(rng), ...serviceFiles(rng), ...configFiles(rng), ...outputFiles(rng)];
}

/** Ordinary host output full of near-misses; every `secrets` is []. */
export function ordinaryOutputs(): CorpusFile[] {
  const rng = new Rng(0x0dd1a7);
  return [...publicFiles(rng), ...hostFiles(rng), ...configOrdinaryFiles(rng)];
}
