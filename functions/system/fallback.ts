import { fallbackEndpoint } from '#shared/http/endpoint.ts';
import { ROUTES } from '../routes.ts';

export const handler = fallbackEndpoint(ROUTES);
