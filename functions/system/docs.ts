import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { docsPage } from '#shared/platform/http/docs-page.ts';
import { system } from './contract.ts';

export const handler = publicEndpoint(system.docs, async () => docsPage());
