import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { preferences } from '#shared/subscriptions/pages.ts';
import { subscriptions } from './contract.ts';

export const handler = publicEndpoint(subscriptions.preferencesPage, ({ params }) => preferences(params.token!));
