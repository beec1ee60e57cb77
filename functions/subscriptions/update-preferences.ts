import { publicEndpoint } from '#shared/http/endpoint.ts';
import { savePreferences } from '#shared/pages/subscriptions.ts';
import { subscriptions } from './contract.ts';

export const handler = publicEndpoint(subscriptions.updatePreferences, ({ params, body, now }) => savePreferences(params.token!, body, now));
