import { mapFound, type KeyedRead } from '#shared/platform/dynamodb/batches.ts';
import {
  queryPage,
  tableName,
  transactWrite,
  TransactionCancelled,
  type TransactItems,
  putNew,
  getMapped,
  firstConditionFailed,
} from '#shared/platform/dynamodb/client.ts';
import { accountKey, TEMPLATE_COUNT_ATTRIBUTE } from '#shared/platform/dynamodb/account-item.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import type { TemplateStyles } from './styles.ts';
import type { TemplateComponent } from './schema.ts';
import { notFound } from '#shared/platform/errors.ts';
import { strings } from '#shared/platform/dynamodb/attributes.ts';

/**
 * A template is two items written together: a small summary (name, subject,
 * dates) that lists and searches read, and the full template that get and
 * render read. Components can reach 200 KB; a list of 20 read from full items
 * would cost up to 4 MB of reads, from summaries about 4 KB.
 */
export interface TemplateRecord {
  templateId: string;
  name: string;
  subject: string;
  components: TemplateComponent[];
  styles: TemplateStyles;
  createdAt: string;
  updatedAt: string;
}

export type TemplateSummary = Pick<TemplateRecord, 'templateId' | 'name' | 'subject' | 'createdAt' | 'updatedAt'>;

export type TemplateChanges = Partial<Pick<TemplateRecord, 'name' | 'subject' | 'components' | 'styles'>>;

const summaryKey = (accountId: string, templateId: string) => ({ pk: accountScoped(accountId, 'TPL'), sk: templateId });
const fullKey = (accountId: string, templateId: string) => ({ pk: accountScoped(accountId, 'TPLFULL'), sk: templateId });

/** Most summaries a name search examines; past it the total is a lower bound. */
export const TEMPLATE_SEARCH_SCAN_LIMIT = 10_000;

/** Lower-cased, so `search` is a case-insensitive `contains` in the query filter. */
const searchName = (name: string) => name.toLowerCase();

function toSummary(item: Record<string, unknown>): TemplateSummary {
  return strings(item, 'templateId', 'name', 'subject', 'createdAt', 'updatedAt');
}

function toTemplate(item: Record<string, unknown>): TemplateRecord {
  return {
    ...toSummary(item),
    components: (item.components ?? []) as TemplateComponent[],
    styles: item.styles as TemplateStyles,
  };
}

function summaryOf(template: TemplateRecord): TemplateSummary & { searchName: string } {
  const { templateId, name, subject, createdAt, updatedAt } = template;
  return { templateId, name, subject, createdAt, updatedAt, searchName: searchName(name) };
}

function templateCountChange(accountId: string, change: 1 | -1): TransactItems[number] {
  return {
    Update: {
      TableName: tableName,
      Key: accountKey(accountId),
      UpdateExpression: 'ADD #templates :change',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#templates': TEMPLATE_COUNT_ATTRIBUTE },
      ExpressionAttributeValues: { ':change': change },
    },
  };
}

/** Summary, full template and the account's template count in one transaction, so the count never drifts. */
export async function insertTemplate(accountId: string, template: TemplateRecord): Promise<void> {
  await transactWrite([
    putNew({ ...summaryKey(accountId, template.templateId), entity: 'templateSummary', ...summaryOf(template) }),
    putNew({ ...fullKey(accountId, template.templateId), entity: 'template', ...template }),
    templateCountChange(accountId, 1),
  ]);
}

/** The template, as a read `readTogether` can join to others (the send path reads it with the sender's domain). */
export function templateRead(accountId: string, templateId: string): KeyedRead<TemplateRecord | undefined> {
  const key = fullKey(accountId, templateId);
  return { keys: [key], result: (found) => mapFound(found(key), toTemplate) };
}

export async function getTemplate(accountId: string, templateId: string): Promise<TemplateRecord | undefined> {
  return getMapped(fullKey(accountId, templateId), toTemplate);
}

/**
 * Newest first. Without `search`: reads only up to `offset + limit` summaries.
 * With it: examines the summaries up to TEMPLATE_SEARCH_SCAN_LIMIT to count every match.
 */
export async function listTemplates(
  accountId: string,
  search: string | undefined,
  offset: number,
  limit: number,
  scanLimit = TEMPLATE_SEARCH_SCAN_LIMIT,
): Promise<{ templates: TemplateSummary[]; matched: number; truncated: boolean }> {
  const page = await queryPage(
    {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': summaryKey(accountId, '').pk, ...(search === undefined ? {} : { ':search': searchName(search) }) },
      ...(search === undefined ? {} : { FilterExpression: 'contains(searchName, :search)' }),
      ScanIndexForward: false,
    },
    offset,
    limit,
    scanLimit,
  );
  return { templates: page.items.map(toSummary), matched: page.matched, truncated: page.truncated };
}

/** `SET a = :a, b = :b` over the given fields, each under a placeholder name (`name` is a reserved word). */
function setChanges(fields: Record<string, unknown>): {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
} {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  return {
    UpdateExpression: `SET ${entries.map(([field]) => `#${field} = :${field}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([field]) => [`#${field}`, field])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([field, value]) => [`:${field}`, value])),
  };
}

/**
 * Changes the given fields of summary and full template together; both must
 * exist. Returns the template as stored afterwards, or undefined when there is
 * no such template.
 */
export async function updateTemplate(accountId: string, templateId: string, changes: TemplateChanges, now: Date): Promise<TemplateRecord | undefined> {
  const updatedAt = now.toISOString();
  const summaryChanges = {
    name: changes.name,
    searchName: changes.name === undefined ? undefined : searchName(changes.name),
    subject: changes.subject,
    updatedAt,
  };
  try {
    await transactWrite([
      { Update: { TableName: tableName, Key: summaryKey(accountId, templateId), ConditionExpression: 'attribute_exists(pk)', ...setChanges(summaryChanges) } },
      {
        Update: {
          TableName: tableName,
          Key: fullKey(accountId, templateId),
          ConditionExpression: 'attribute_exists(pk)',
          ...setChanges({ ...changes, updatedAt }),
        },
      },
    ]);
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons.includes('ConditionalCheckFailed')) return undefined;
    throw error;
  }
  return getTemplate(accountId, templateId);
}

/** Removes both items and counts the template out, in one transaction; throws TEMPLATE_NOT_FOUND when absent. */
export async function deleteTemplate(accountId: string, templateId: string): Promise<void> {
  try {
    await transactWrite([
      { Delete: { TableName: tableName, Key: summaryKey(accountId, templateId), ConditionExpression: 'attribute_exists(pk)' } },
      { Delete: { TableName: tableName, Key: fullKey(accountId, templateId) } },
      templateCountChange(accountId, -1),
    ]);
  } catch (error) {
    if (firstConditionFailed(error)) throw notFound.template();
    throw error;
  }
}
