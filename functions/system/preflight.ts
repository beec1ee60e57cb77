import { preflightEndpoint } from '#shared/http/cors.ts';
import { ROUTES } from '../routes.ts';

export const handler = preflightEndpoint(ROUTES);
