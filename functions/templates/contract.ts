import { defineArea, KEYED } from '#shared/http/contract.ts';
import { dataReply, deletedReply, listReply } from '#shared/schemas/replies.ts';
import { listTemplatesQuery } from '#shared/schemas/template-list.ts';
import { createTemplateBody, renderedTemplateReply, renderTemplateBody, templateListItemSchema, templateSchema, updateTemplateBody } from '#shared/schemas/templates.ts';

export const templates = defineArea('templates', {
  create: {
    method: 'POST', path: '/api/templates', ...KEYED, table: ['PutItem', 'UpdateItem'],
    request: { body: createTemplateBody },
    responses: { 201: dataReply(templateSchema) },
    errors: ['CONFLICT'],
    summary: 'Create a template',
    description: 'Subject and components take `{{name}}`, `{{#if name}}…{{/if}}` and `{{name|"default"}}`; a template that does not parse is refused here rather than at send time.',
    example: { name: 'Welcome', subject: 'Welcome, {{firstName|"friend"}}', components: [{ type: 'heading', content: 'Hello {{firstName}}' }, { type: 'button', label: 'Get started', url: 'https://example.com/start' }] },
  },
  list: {
    method: 'GET', path: '/api/templates', ...KEYED, table: ['Query', 'GetItem'],
    request: { query: listTemplatesQuery },
    responses: { 200: listReply('templates', templateListItemSchema) },
    summary: 'List templates',
    description: 'One page of the account\'s templates, newest first, without their components.',
  },
  get: {
    method: 'GET', path: '/api/templates/{id}', ...KEYED, table: ['GetItem'], params: { id: 'template' },
    request: {},
    responses: { 200: dataReply(templateSchema) },
    errors: ['TEMPLATE_NOT_FOUND'],
    summary: 'Get a template with its components and styles',
    description: 'The whole template, as sends and previews render it.',
  },
  update: {
    method: 'PATCH', path: '/api/templates/{id}', ...KEYED, table: ['UpdateItem', 'GetItem'], params: { id: 'template' },
    request: { body: updateTemplateBody },
    responses: { 200: dataReply(templateSchema) },
    errors: ['TEMPLATE_NOT_FOUND', 'CONFLICT'],
    summary: 'Change a template',
    description: 'Only the fields given change; `components` replaces all components.',
    example: { subject: 'Welcome aboard' },
  },
  delete: {
    method: 'DELETE', path: '/api/templates/{id}', ...KEYED, table: ['DeleteItem', 'UpdateItem'], params: { id: 'template' },
    request: {},
    responses: { 200: deletedReply },
    errors: ['TEMPLATE_NOT_FOUND', 'CONFLICT'],
    summary: 'Delete a template',
    description: 'Sends that name the template afterwards fail with 404 `TEMPLATE_NOT_FOUND`.',
  },
  render: {
    method: 'POST', path: '/api/templates/{id}/render', ...KEYED, table: ['GetItem'], params: { id: 'template' },
    request: { body: renderTemplateBody },
    responses: { 200: renderedTemplateReply },
    errors: ['TEMPLATE_NOT_FOUND'],
    summary: 'Render a template with variables (preview)',
    description: 'Answers the subject, HTML and plain text a send with these variables would carry; nothing is sent. Variables are HTML-escaped in the content.',
    example: { variables: { firstName: 'Ada' } },
  },
});
