/** Catalogue scenarios, shard 2 of 6 (see test/support/catalogue-scenarios.ts). */
import { registerShard } from '../support/catalogue-scenarios.js';

registerShard(1);
