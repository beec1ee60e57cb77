import { isId, newId, randomBase62 } from '#shared/platform/ids.ts';
import { notFound, ValidationError } from '#shared/platform/errors.ts';
import { getAccount } from '#shared/accounts/service.ts';
import {
  deleteTemplate as removeTemplate,
  getTemplate as readTemplate,
  insertTemplate,
  templateRead,
  listTemplates as readTemplates,
  updateTemplate as writeTemplate,
  type TemplateRecord,
  type TemplateSummary,
} from './store.ts';
import { BUILTIN_VARIABLE_NAMES, builtinVariables, withBuiltins } from './builtins.ts';
import { TEMPLATE_STYLE_DEFAULTS } from './components.ts';
import { renderDesign, renderHtmlContent, TemplatePartError, type RenderedEmail } from './compose.ts';
import { checkTemplate, TemplateRenderError, variablesOf } from '#shared/platform/templating/renderer.ts';
import type { TemplateStyles } from './styles.ts';
import { pagination, type ListPage } from '#shared/platform/schema/common.ts';
import { componentParts, SPACER_DEFAULT_HEIGHT } from './schema.ts';
import type { ComponentInput, CreateTemplateInput, RenderDraftInput, TemplateComponent, TemplateStylesInput, UpdateTemplateInput } from './schema.ts';
import type { ListTemplatesQuery } from './list-schema.ts';
import type { templateListItemSchema, templateSchema } from './schema.ts';
import type * as v from 'valibot';
import { findById } from '#shared/platform/lookup.ts';
import type { KeyedRead } from '#shared/platform/dynamodb/batches.ts';

export type Template = v.InferOutput<typeof templateSchema>;
export type TemplateListItem = v.InferOutput<typeof templateListItemSchema>;

function toListItem(summary: TemplateSummary): TemplateListItem {
  return { id: summary.templateId, name: summary.name, subject: summary.subject, createdAt: summary.createdAt, updatedAt: summary.updatedAt };
}

function toTemplate(record: TemplateRecord): Template {
  const { templateId: id, name, subject, components, styles, createdAt, updatedAt } = record;
  return { id, name, subject, components, styles, createdAt, updatedAt };
}

/** Every component gets an id (kept when the client gave one) and the same shape whatever was omitted. */
function normalizeComponents(components: ComponentInput[]): TemplateComponent[] {
  return components.map(normalizeComponent);
}

function normalizeComponent(component: ComponentInput): TemplateComponent {
  const id = component.id ?? `cmp_${randomBase62(12)}`;
  switch (component.type) {
    case 'heading':
      return { id, type: 'heading', content: component.content, level: component.level ?? 1, styles: component.styles ?? {} };
    case 'text':
      return { id, type: 'text', content: component.content, styles: component.styles ?? {} };
    case 'button':
      return { id, type: 'button', label: component.label, url: component.url, styles: component.styles ?? {} };
    case 'image': {
      const { href, width } = component;
      return {
        id,
        type: 'image',
        url: component.url,
        alt: component.alt,
        ...(href === undefined ? {} : { href }),
        ...(width === undefined ? {} : { width }),
        styles: component.styles ?? {},
      };
    }
    case 'divider':
      return { id, type: 'divider', styles: component.styles ?? {} };
    case 'spacer':
      return { id, type: 'spacer', height: component.height ?? SPACER_DEFAULT_HEIGHT, styles: {} };
  }
}

/** Stored whole, defaults filled in: a template renders the same if the defaults ever change. */
function normalizeStyles(styles: TemplateStylesInput): TemplateStyles {
  return { ...TEMPLATE_STYLE_DEFAULTS, ...styles };
}

/** The same 404 for an unknown, malformed or another account's id. */
async function findTemplate(accountId: string, templateId: string, field?: string): Promise<TemplateRecord> {
  const record = await findById(
    'tpl',
    templateId,
    () => readTemplate(accountId, templateId),
    () => notFound.template(field === undefined ? undefined : { field }),
  );
  return record;
}

/**
 * Text in the template language is parsed when saved, so a syntax error is a
 * 422 on the part that has it (`components[2].content`), in the order of the
 * body. Checked here rather than in the body schema so that only the
 * functions that save a template bundle the engine.
 */
async function checkSyntax(input: Pick<UpdateTemplateInput, 'subject' | 'components'>): Promise<void> {
  const parts: [string, string][] = input.subject === undefined ? [] : [['subject', input.subject]];
  for (const [index, component] of (input.components ?? []).entries()) {
    for (const [name, source] of componentParts(component)) parts.push([`components[${index}].${name}`, source]);
  }
  for (const [field, source] of parts) {
    try {
      await checkTemplate(source);
    } catch (error) {
      if (!(error instanceof TemplateRenderError)) throw error;
      throw new ValidationError('VALIDATION_ERROR', `${field}: invalid template syntax: ${error.message}`, field);
    }
  }
}

export async function createTemplate(accountId: string, input: CreateTemplateInput, now: Date): Promise<Template> {
  await checkSyntax(input);
  const record: TemplateRecord = {
    templateId: newId('tpl', now.getTime()),
    name: input.name,
    subject: input.subject,
    components: normalizeComponents(input.components),
    styles: normalizeStyles(input.styles),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await insertTemplate(accountId, record);
  return toTemplate(record);
}

export async function getTemplate(accountId: string, templateId: string): Promise<Template> {
  return toTemplate(await findTemplate(accountId, templateId));
}

/**
 * Newest first. The total is the account's template counter unless `search`
 * filters the list; then the matches are counted while reading the summaries.
 */
export async function listTemplates(accountId: string, { page, limit, search }: ListTemplatesQuery): Promise<ListPage<'templates', TemplateListItem>> {
  const [found, account] = await Promise.all([
    readTemplates(accountId, search, (page - 1) * limit, limit),
    search === undefined ? getAccount(accountId) : undefined,
  ]);
  const total = search === undefined ? (account?.templateCount ?? 0) : found.matched;
  return {
    templates: found.templates.map(toListItem),
    pagination: pagination(total, page, limit, found.truncated),
  };
}

export async function updateTemplate(accountId: string, templateId: string, input: UpdateTemplateInput, now: Date): Promise<Template> {
  await checkSyntax(input);
  if (!isId('tpl', templateId)) throw notFound.template();
  const record = await writeTemplate(
    accountId,
    templateId,
    {
      name: input.name,
      subject: input.subject,
      components: input.components === undefined ? undefined : normalizeComponents(input.components),
      styles: input.styles === undefined ? undefined : normalizeStyles(input.styles),
    },
    now,
  );
  if (!record) throw notFound.template();
  return toTemplate(record);
}

export async function deleteTemplate(accountId: string, templateId: string): Promise<void> {
  if (!isId('tpl', templateId)) throw notFound.template();
  await removeTemplate(accountId, templateId);
}

/** Rendering failed: 422 on `field`, the message naming the template (or content) and the part that failed. */
function renderFailure(error: unknown, field: string, source: string): never {
  if (!(error instanceof TemplatePartError)) throw error;
  throw new ValidationError('VALIDATION_ERROR', `${source} could not be rendered: ${error.message}`, field);
}

async function renderRecord(
  record: TemplateRecord,
  variables: Record<string, unknown>,
  options: { subject?: string; builtins: Record<string, string> },
): Promise<RenderedEmail> {
  const subject = options.subject ?? record.subject;
  try {
    return await renderDesign({ subject, components: record.components, styles: record.styles }, withBuiltins(variables, options.builtins));
  } catch (error) {
    const requestSubject = options.subject !== undefined && error instanceof TemplatePartError && error.part === 'subject';
    return renderFailure(error, requestSubject ? 'subject' : 'templateId', requestSubject ? 'The subject' : `Template ${record.templateId}`);
  }
}

/**
 * Renders a stored template for sending: subject, HTML, plain text. The
 * request's `subject`, when given, replaces the template's and may hold
 * variables too. Built-ins win over caller variables of the same name.
 *
 * Throws TEMPLATE_NOT_FOUND (404, field `templateId`) for an unknown id, and
 * VALIDATION_ERROR (422) when rendering fails: field `subject` when the
 * request's subject is at fault, `templateId` otherwise.
 *
 * `await renderStoredTemplate(accountId, 'tpl_…', { name: 'Ann' }, { builtins: builtinVariables(now, links) })`
 */
export async function renderStoredTemplate(
  accountId: string,
  templateId: string,
  variables: Record<string, unknown>,
  options: { subject?: string; builtins: Record<string, string> },
): Promise<{ subject: string; html: string; text: string; usesUnsubscribeLink: boolean }> {
  return renderRecord(await loadTemplate(accountId, templateId), variables, options);
}

/** A template read once for a send to many recipients; 404 TEMPLATE_NOT_FOUND on `templateId`. */
export function loadTemplate(accountId: string, templateId: string): Promise<TemplateRecord> {
  return findTemplate(accountId, templateId, 'templateId');
}

/**
 * `loadTemplate` as a read the send joins to its others (`readTogether`).
 * Its result gives the template when called, or throws 404 TEMPLATE_NOT_FOUND
 * on `templateId` for an unknown id (or one of another kind, never read):
 * called once the checks that rank before it passed.
 */
export function templateLookup(accountId: string, templateId: string): KeyedRead<() => TemplateRecord> {
  const read = isId('tpl', templateId) ? templateRead(accountId, templateId) : { keys: [], result: () => undefined };
  return {
    keys: read.keys,
    result: (found) => {
      const record = read.result(found);
      return () => {
        if (!record) throw notFound.template({ field: 'templateId' });
        return record;
      };
    },
  };
}

/** Renders a template from loadTemplate for one recipient, as renderStoredTemplate does. */
export const renderLoadedTemplate = renderRecord;

/**
 * Renders a send's own HTML `content` and `subject` (variables escaped in the
 * HTML, not in the subject); the plain text is the HTML without its tags.
 * Throws VALIDATION_ERROR (422) with field `content` or `subject` when rendering fails.
 */
export async function renderInlineContent(
  content: string,
  subject: string,
  variables: Record<string, unknown>,
  builtins: Record<string, string>,
): Promise<{ subject: string; html: string; text: string; usesUnsubscribeLink: boolean }> {
  try {
    return await renderHtmlContent(content, subject, withBuiltins(variables, builtins));
  } catch (error) {
    const part = error instanceof TemplatePartError && error.part === 'subject' ? 'subject' : 'content';
    return renderFailure(error, part, part === 'subject' ? 'The subject' : 'The content');
  }
}

/** The preview of `POST /api/templates/:id/render`: the built-in links are placeholders, no recipient exists. */
export async function previewTemplate(
  accountId: string,
  templateId: string,
  variables: Record<string, unknown>,
  now: Date,
): Promise<Pick<RenderedEmail, 'subject' | 'html' | 'text'>> {
  const { subject, html, text } = await renderRecord(await findTemplate(accountId, templateId), variables, { builtins: builtinVariables(now) });
  return { subject, html, text };
}

/**
 * The preview of `POST /api/templates/render`: a template that is not saved
 * (or not as it stands), rendered as previewTemplate renders a stored one,
 * with the variables it reads. Nothing is read or written. A part that fails
 * (syntax, a link that renders to no address) is a 422 on that part:
 * `components[2].url`.
 */
export async function previewDraft(input: RenderDraftInput, now: Date): Promise<Pick<RenderedEmail, 'subject' | 'html' | 'text'> & { variables: string[] }> {
  const components = normalizeComponents(input.components);
  let rendered: RenderedEmail;
  try {
    rendered = await renderDesign(
      { subject: input.subject, components, styles: normalizeStyles(input.styles) },
      withBuiltins(input.variables, builtinVariables(now)),
    );
  } catch (error) {
    if (!(error instanceof TemplatePartError)) throw error;
    throw new ValidationError('VALIDATION_ERROR', error.message, error.part);
  }
  const builtins = new Set<string>(BUILTIN_VARIABLE_NAMES);
  const sources = components.flatMap((component) => componentParts(component).map(([, source]) => source));
  const variables = (await variablesOf([input.subject, ...sources])).filter((name) => !builtins.has(name));
  return { subject: rendered.subject, html: rendered.html, text: rendered.text, variables };
}

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export type { TemplateRecord } from './store.ts';
