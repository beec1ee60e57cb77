/**
 * The typed client of the API (openapi-fetch over the types generated from
 * docs/openapi.json), as a customer would use it, against the local API.
 * Every response also goes through the contract check of test/support/contract.ts.
 *
 * `const api = await apiClient(key); const { data } = await api.POST('/api/audiences', { body: { name: 'Main' } })`
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '#dev/client/schema.ts';
import { startApi } from './api.ts';
import { assertDocumented } from './contract.ts';

export type ApiClient = Client<paths>;

export async function apiClient(key?: string): Promise<ApiClient> {
  const { url } = await startApi();
  const client = createClient<paths>({ baseUrl: url, ...(key === undefined ? {} : { headers: { 'x-api-key': key } }) });
  client.use({
    async onResponse({ request, response }) {
      assertDocumented({
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        contentType: response.headers.get('content-type'),
        body: await response.clone().text(),
        header: (name) => response.headers.get(name) ?? undefined,
      });
    },
  });
  return client;
}
