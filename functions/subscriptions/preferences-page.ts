import { publicEndpoint } from '#shared/http/endpoint.ts';
import { preferences } from '#shared/pages/subscriptions.ts';

export const handler = publicEndpoint('subscriptions/preferences-page', {}, ({ params }) => preferences(params.token!));
