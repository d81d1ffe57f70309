/**
 * The second factor's methods (the steps and their reasons: totp-enrolment.ts). The door let
 * in only who may call each: an approver enrols and confirms their own factor (`enroller`: the
 * person behind the connection is whose factor it is), a person approves others' first
 * enrolments, and an admin approver through sudo resets one; the checks that need the
 * enrolment's owner (never one's own) are asked by totp-enrolment.ts. Whoever the policy
 * names is told of each factor enrolled, awaiting approval or reset.
 */
import type { ParsedParams, ResultOf } from '../../protocol/methods.js';
import type { Caller } from '../authz.js';
import { principalName } from '../identity.js';
import { iso, type Request, type VerbContext } from './context.js';

/** Whose factor an enrolment is: the person behind the connection (the door's `enroller` access saw one stands there). */
const enrolling = (who: Caller): { uid: number; user: string } => ({ uid: who.person!.uid, user: who.person!.user });

/** A person enrols their own second factor: a pending secret, returned to this connection only. */
export async function enroll(ctx: VerbContext, r: Request<ParsedParams<'totp.enroll'>>): Promise<ResultOf<'totp.enroll'>> {
  return ctx.enrolment.issue(r.caller, enrolling(r.caller), r.params);
}

/** The person's first code makes their pending secret their factor. */
export async function confirm(ctx: VerbContext, r: Request<ParsedParams<'totp.confirm'>>): Promise<ResultOf<'totp.confirm'>> {
  const res = await ctx.enrolment.confirm(r.caller, enrolling(r.caller), r.params);
  const event = res.state === 'confirmed' ? 'totp_enrolled' : 'totp_awaiting_approval';
  ctx.notify({ event, approver: res.approver, by: principalName(r.caller), at: iso(ctx.now()) });
  return res;
}

/** Another approver, with their own code, vouches for a person's proven first enrolment; whoever the policy names is told. */
export async function approveEnrolments(ctx: VerbContext, r: Request<ParsedParams<'totp.approve'>>): Promise<ResultOf<'totp.approve'>> {
  const res = await ctx.enrolment.approve(r.caller, r.params);
  for (const a of res.approved) ctx.notify({ event: 'totp_enrolled', approver: a.approver, by: principalName(r.caller), at: iso(ctx.now()) });
  return res;
}

/** An admin approver (through sudo, with their own code) deletes another person's factor, logged; whoever the policy names is told. */
export async function reset(ctx: VerbContext, r: Request<ParsedParams<'totp.reset'>>): Promise<ResultOf<'totp.reset'>> {
  const res = await ctx.enrolment.reset(r.caller, r.params);
  ctx.notify({ event: 'totp_reset', approver: res.approver, by: principalName(r.caller), at: iso(ctx.now()) });
  return res;
}
