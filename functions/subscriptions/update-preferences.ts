import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { savePreferences } from '#shared/subscriptions/pages.ts';
import { subscriptions } from './contract.ts';

export const handler = publicEndpoint(subscriptions.updatePreferences, ({ params, body, now }) => savePreferences(params.token!, body, now));
