import { publicEndpoint } from '#shared/http/endpoint.ts';
import { unsubscribeConfirmation } from '#shared/pages/subscriptions.ts';
import { subscriptions } from './contract.ts';

export const handler = publicEndpoint(subscriptions.unsubscribePage, ({ params }) => unsubscribeConfirmation(params.token!));
