import { fallbackEndpoint } from '#shared/http/endpoint.ts';

export const handler = fallbackEndpoint();
