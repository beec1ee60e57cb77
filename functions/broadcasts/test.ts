import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { testBroadcast } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.test, async ({ principal, params, body, now }) =>
  ok({ ...(await testBroadcast(params.id!, body.to, { principal, now })) }),
);
