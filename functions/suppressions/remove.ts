import { endpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { removeSuppression } from '#shared/suppressions/service.ts';
import { suppressions } from './contract.ts';

export const handler = endpoint(suppressions.remove, async ({ principal, params, query, now }) => {
  await removeSuppression(principal, params.email!, query.confirm, now);
  return deleted('Suppression lifted: sends reach this address again');
});
