import { preflightEndpoint } from '#shared/platform/http/cors.ts';
import { ROUTES } from '../routes.ts';

export const handler = preflightEndpoint(ROUTES);
