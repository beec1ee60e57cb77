import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { countSegment } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.segmentCount, async ({ principal, params, body }) =>
  ok({ data: await countSegment(principal.accountId, params.id!, body.segment) }),
);
