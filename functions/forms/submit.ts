import { publicEndpoint } from '#shared/http/endpoint.ts';
import { submissionBody } from '#shared/schemas/forms.ts';
import { submissionReply } from '#shared/pages/form-submission.ts';

/** JSON for API clients and the hosted page's script; a page for a browser's plain form post. */
export const handler = publicEndpoint('forms/submit', { body: submissionBody }, ({ params, body, headers, sourceIp, now }) =>
  submissionReply({ formRef: params.id!, body, headers, sourceIp, now }));
