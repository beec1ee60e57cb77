import { publicEndpoint } from '#shared/http/endpoint.ts';
import { preferences } from '#shared/pages/subscriptions.ts';
import { subscriptions } from './contract.ts';

export const handler = publicEndpoint(subscriptions.preferencesPage, ({ params }) => preferences(params.token!));
