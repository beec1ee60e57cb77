import { publicEndpoint } from '#shared/http/endpoint.ts';
import { confirmationPage } from '#shared/pages/forms.ts';
import { forms } from './contract.ts';

/** No body schema: the signed link alone decides, so the page's button works whatever its form post carries. */
export const handler = publicEndpoint(forms.confirm, ({ params, now }) => confirmationPage(params.token!, now));
