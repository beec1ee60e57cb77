import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { unsubscribeConfirmation } from '#shared/subscriptions/pages.ts';
import { subscriptions } from './contract.ts';

export const handler = publicEndpoint(subscriptions.unsubscribePage, ({ params }) => unsubscribeConfirmation(params.token!));
