import { defineArea, HTML_PAGE, PUBLIC } from '#shared/platform/http/contract.ts';
import { openApiDocument } from '#shared/platform/http/openapi-schema.ts';

// The API description (docs/openapi.json, `npm run openapi`) and its reference page.
export const system = defineArea('system', {
  openapi: {
    method: 'GET',
    path: '/openapi.json',
    ...PUBLIC,
    table: [],
    request: {},
    responses: { 200: openApiDocument },
    summary: 'This API description (OpenAPI 3.1)',
    description: 'The document this reference is built from; generate a client from it.',
  },
  docs: {
    method: 'GET',
    path: '/docs',
    ...PUBLIC,
    table: [],
    request: {},
    responses: { 200: HTML_PAGE },
    summary: 'The API reference page',
    description: 'A browsable page of this API description.',
  },
});
