/**
 * The one definition of the single table: the CDK stack, `npm start` and the
 * test setup all build the table from it, so the three can never disagree.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';
/** Epoch seconds; DynamoDB removes the item some time (up to 48 h) after it passes. */
export const TTL_ATTRIBUTE = 'expiresAt';

/**
 * The stream's view. The event fan-out reads only the new image, but a global
 * table's replicas need both images on their streams (AWS refuses any other
 * view once a table has replicas), and one view everywhere keeps the
 * single-region table the same table.
 */
export const STREAM_VIEW_TYPE = 'NEW_AND_OLD_IMAGES';

export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey: string;
}

/** Overloaded indexes: each entity documents in docs/data-model.md what it puts in them. */
export const GLOBAL_INDEXES = [
  { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
] as const satisfies readonly IndexDefinition[];

export type IndexName = (typeof GLOBAL_INDEXES)[number]['indexName'];

/** The CreateTable request for local and test tables (on-demand, as in AWS). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttributes = [PARTITION_KEY, SORT_KEY, ...GLOBAL_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
      { AttributeName: SORT_KEY, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: GLOBAL_INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    // The webhook fan-out reads new event items off it (shared/webhooks/stream.ts).
    StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE },
  };
}
