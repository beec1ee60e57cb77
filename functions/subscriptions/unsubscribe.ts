import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { unsubscribe } from '#shared/subscriptions/pages.ts';
import { subscriptions } from './contract.ts';

/** No body schema: the signed link alone decides, so RFC 8058's one-click POST works in any content type it may use (multipart/form-data is its default). */
export const handler = publicEndpoint(subscriptions.unsubscribe, ({ params, now }) => unsubscribe(params.token!, now));
