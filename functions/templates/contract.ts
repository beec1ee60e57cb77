import { defineArea, KEYED, resource } from '#shared/platform/http/contract.ts';
import { listTemplatesQuery } from '#shared/templates/list-schema.ts';
import {
  createTemplateBody,
  renderDraftBody,
  renderedDraftReply,
  renderedTemplateReply,
  renderTemplateBody,
  templateListItemSchema,
  templateSchema,
  updateTemplateBody,
} from '#shared/templates/schema.ts';

const template = resource('/api/templates', 'template', 'TEMPLATE_NOT_FOUND', { schema: templateSchema, writeErrors: ['CONFLICT'] });

export const templates = defineArea('templates', {
  create: template.create({
    table: ['PutItem', 'UpdateItem'],
    body: createTemplateBody,
    summary: 'Create a template',
    description:
      'Subject and components take `{{name}}`, `{{#if name}}…{{/if}}` and `{{name|"default"}}`; a template that does not parse is refused here rather than at send time.',
    example: {
      name: 'Welcome',
      subject: 'Welcome, {{firstName|"friend"}}',
      components: [
        { type: 'heading', content: 'Hello {{firstName}}' },
        { type: 'button', label: 'Get started', url: 'https://example.com/start' },
      ],
    },
  }),
  list: template.list({
    table: ['Query', 'GetItem'],
    query: listTemplatesQuery,
    name: 'templates',
    item: templateListItemSchema,
    summary: 'List templates',
    description: "One page of the account's templates, newest first, without their components.",
  }),
  get: template.get({
    table: ['GetItem'],
    summary: 'Get a template with its components and styles',
    description: 'The whole template, as sends and previews render it.',
  }),
  update: template.update({
    table: ['UpdateItem', 'GetItem'],
    body: updateTemplateBody,
    summary: 'Change a template',
    description: 'Only the fields given change; `components` replaces all components.',
    example: { subject: 'Welcome aboard' },
  }),
  delete: template.delete({
    table: ['DeleteItem', 'UpdateItem'],
    summary: 'Delete a template',
    description: 'Sends that name the template afterwards fail with 404 `TEMPLATE_NOT_FOUND`.',
  }),
  render: template.action({
    sub: 'render',
    table: ['GetItem'],
    body: renderTemplateBody,
    reply: renderedTemplateReply,
    summary: 'Render a template with variables (preview)',
    description:
      'Answers the subject, HTML and plain text a send with these variables would carry; nothing is sent. Variables are HTML-escaped in the content.',
    example: { variables: { firstName: 'Ada' } },
  }),
  renderDraft: {
    method: 'POST',
    path: '/api/templates/render',
    ...KEYED,
    // Renders the body alone: no template is read.
    table: [],
    request: { body: renderDraftBody },
    responses: { 200: renderedDraftReply },
    summary: 'Render a template that is not saved (preview)',
    description:
      'Takes what creating a template takes (without `name`) and `variables`, and answers what `POST /api/templates/{id}/render` would for it once saved, with `variables`: the names the subject and components read that a send may give (built-ins left out), in order of first use. Nothing is stored. A part that does not parse or render is a 422 `VALIDATION_ERROR` whose `field` names it (`subject`, `components[2].url`).',
    example: {
      subject: 'Welcome, {{firstName|"friend"}}',
      components: [{ type: 'heading', content: 'Hello {{firstName}}' }],
      styles: { backgroundColor: '#f4f4f5' },
      variables: { firstName: 'Ada' },
    },
  },
});
