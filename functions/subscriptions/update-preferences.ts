import { publicEndpoint } from '#shared/http/endpoint.ts';
import { preferencesBody } from '#shared/schemas/subscriptions.ts';
import { savePreferences } from '#shared/pages/subscriptions.ts';

export const handler = publicEndpoint('subscriptions/update-preferences', { body: preferencesBody }, ({ params, body, now }) =>
  savePreferences(params.token!, body, now));
