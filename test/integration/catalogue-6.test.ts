/** Catalogue scenarios, shard 6 of 6 (see test/support/catalogue-scenarios.ts). */
import { registerShard } from '../support/catalogue-scenarios.js';

registerShard(5);
