import { preflightEndpoint } from '#shared/http/cors.ts';

export const handler = preflightEndpoint();
