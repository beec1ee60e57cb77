import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { CODE_REQUESTED, requestSignInCode } from '#shared/people/service.ts';
import { session } from './contract.ts';

export const handler = publicEndpoint(session.requestCode, async ({ body, now }) => {
  await requestSignInCode(body.email, now);
  return ok({ message: CODE_REQUESTED });
});
