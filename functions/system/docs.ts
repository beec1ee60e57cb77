import { publicEndpoint } from '#shared/http/endpoint.ts';
import { docsPage } from '#shared/pages/docs.ts';
import { system } from './contract.ts';

export const handler = publicEndpoint(system.docs, async () => docsPage());
