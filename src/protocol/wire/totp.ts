/** Second-factor enrolment's results, as schemas: `totp.enroll`, `totp.confirm`, `totp.approve`, `totp.reset`. */
import { z } from 'zod';

/** `totp.enroll`: a pending secret, on this connection only; it approves nothing until confirmed. */
export const TotpIssuedSchema = z.strictObject({
  approver: z.string(),
  user: z.string(),
  state: z.literal('pending'),
  expires_at: z.string(),
  secret: z.string(),
  /** otpauth:// URI of the secret, for a QR code. */
  uri: z.string(),
});
export type TotpIssued = z.infer<typeof TotpIssuedSchema>;

/**
 * `totp.confirm`: the pending secret is the person's factor now ('confirmed'), or, for a first
 * enrolment on a host that has an approver already, it is proven and waits until `expires_at`
 * for another approver's `totp.approve` ('awaiting_approval'); then `check` is the secret's
 * check code (XXXX-XXXX), for this person to read out to the approver, on this connection only.
 */
export const TotpConfirmedSchema = z.discriminatedUnion('state', [
  z.strictObject({ approver: z.string(), user: z.string(), state: z.literal('confirmed') }),
  z.strictObject({ approver: z.string(), user: z.string(), state: z.literal('awaiting_approval'), expires_at: z.string(), check: z.string() }),
]);
export type TotpConfirmed = z.infer<typeof TotpConfirmedSchema>;

/** `totp.approve`: another approver vouched for these people's proven enrolments; they count now. */
export const TotpApprovedSchema = z.strictObject({
  approved: z.array(z.strictObject({ approver: z.string(), user: z.string() })),
  state: z.literal('confirmed'),
  approved_by: z.string(),
});
export type TotpApproved = z.infer<typeof TotpApprovedSchema>;

/** `totp.reset`: what there was to delete. */
/** `passkeys`: with the reset's `passkeys`, how many of the person's passkeys were deleted. */
export const TotpResetDoneSchema = z.strictObject({ approver: z.string(), user: z.string(), factor: z.boolean(), pending: z.boolean(), passkeys: z.number().int().optional() });
export type TotpResetDone = z.infer<typeof TotpResetDoneSchema>;
