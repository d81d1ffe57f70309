/** Shapes shared by the blind corpus's generators. */
import type { Rng } from './rng.js';

export interface Secret {
  kind: string;
  /** The exact substring of the text that must not survive masking (never the key name). */
  value: string;
}

export interface PlantedFile {
  name: string;
  text: string;
  secrets: Secret[];
}

export interface OrdinaryFile {
  name: string;
  text: string;
}

/** One kind of secret (or a pair that real files always carry together) and how to plant it. */
export interface KindSpec {
  /** The kinds this generator plants; the first is the one its files are counted by. */
  kinds: string[];
  make(r: Rng): PlantedFile;
}

export interface OrdinarySpec {
  name: string;
  make(r: Rng): string;
}
