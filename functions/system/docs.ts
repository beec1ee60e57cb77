import { publicEndpoint } from '#shared/http/endpoint.ts';
import { docsPage } from '#shared/openapi/docs-page.ts';

export const handler = publicEndpoint('system/docs', {}, async () => docsPage());
