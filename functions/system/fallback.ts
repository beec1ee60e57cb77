import { fallbackEndpoint } from '#shared/platform/http/endpoint.ts';
import { ROUTES } from '../routes.ts';

export const handler = fallbackEndpoint(ROUTES);
