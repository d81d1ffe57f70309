/**
 * The preview envelope as a schema, so a preview read back from the store (or received by a
 * client) is checked, not cast. It is the wire's own statement of the envelope
 * (src/protocol/wire/preview.ts), from which PreviewEnvelope's type is inferred: the check and
 * the type cannot drift apart.
 */
export { PreviewEnvelopeSchema } from './wire/preview.js';
