import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { testBroadcast } from '#shared/domain/broadcasts.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.test, async ({ principal, params, body, now }) =>
  ok({ ...(await testBroadcast(params.id!, body.to, { principal, now })) }),
);
