import { publicEndpoint } from '#shared/http/endpoint.ts';
import { unsubscribeConfirmation } from '#shared/pages/subscriptions.ts';

export const handler = publicEndpoint('subscriptions/unsubscribe-page', {}, ({ params }) => unsubscribeConfirmation(params.token!));
