/**
 * Request bodies of the POST routes that have no body schema: their signed
 * link alone decides, so their handlers read no body, but mail clients and
 * the pages' buttons do send one, and the description says what.
 */

type JsonObject = Record<string, unknown>;

/** RFC 8058 section 3.1: the body of a one-click unsubscribe POST is exactly this field. */
const oneClick = {
  type: 'object',
  description: "RFC 8058 one-click unsubscribe: what a mail client posts for the `List-Unsubscribe-Post` header. The unsubscribe page's button posts no field.",
  properties: { 'List-Unsubscribe': { const: 'One-Click' } },
};

const oneClickExamples = {
  oneClick: { summary: "A mail client's one-click POST (RFC 8058)", value: { 'List-Unsubscribe': 'One-Click' } },
  button: { summary: "The unsubscribe page's button", value: {} },
};

const emptyForm = { type: 'object', description: "The confirmation page's button posts no field; any body is ignored." };

export const FORM_POST_BODIES: Partial<Record<string, JsonObject>> = {
  'subscriptions/unsubscribe': {
    description:
      'Any body is accepted and ignored: the signed link decides. Mail clients post `List-Unsubscribe=One-Click` (RFC 8058), as multipart/form-data or form-urlencoded.',
    required: false,
    content: {
      'application/x-www-form-urlencoded': { schema: oneClick, examples: oneClickExamples },
      'multipart/form-data': { schema: oneClick, examples: { oneClick: oneClickExamples.oneClick } },
    },
  },
  'forms/confirm': {
    description: "The confirmation page's button: an empty form post. Any body is accepted and ignored: the signed link decides.",
    required: false,
    content: { 'application/x-www-form-urlencoded': { schema: emptyForm, example: {} } },
  },
};
