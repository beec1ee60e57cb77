import { endpoint } from '#shared/accounts/endpoint.ts';
import { idempotentOk } from '#shared/platform/http/reply.ts';
import { sendOtp } from '#shared/sending/otp.ts';
import { otp } from './contract.ts';

/** Serves POST /api/otp/send and its alias POST /api/otp. */
export const handler = endpoint(otp.send, async ({ principal, body, now }) => idempotentOk(await sendOtp(body, { principal, now })));
