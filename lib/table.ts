import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, StreamViewType, TableV2, type Attribute, type GlobalSecondaryIndexPropsV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { GlobalSecondaryIndex, KeySchemaElement, Projection } from '@aws-sdk/client-dynamodb';
import { createTableInput, TTL_ATTRIBUTE } from '#shared/platform/dynamodb/table.ts';

export interface PostlaneTableProps {
  /** Fixed, because a global table keeps one name in every region and the other stacks find it by that name. */
  readonly tableName: string;
  /** Regions other than the stack's own that get a replica; empty for a single-region table. */
  readonly replicaRegions: readonly string[];
}

/**
 * The single table in AWS. It is translated from `createTableInput`, the very
 * request `npm start` and the tests send to DynamoDB Local, so attribute types,
 * key schema, indexes and projections cannot drift between the three.
 */
export class PostlaneTable extends TableV2 {
  constructor(scope: Construct, id: string, props: PostlaneTableProps) {
    const input = createTableInput(props.tableName);
    const types: AttributeTypes = new Map((input.AttributeDefinitions ?? []).map((definition) => [definition.AttributeName, definition.AttributeType]));
    super(scope, id, {
      tableName: props.tableName,
      partitionKey: partitionKey(input.KeySchema, types, `table ${props.tableName}`),
      sortKey: keyAttribute(input.KeySchema, 'RANGE', types),
      globalSecondaryIndexes: (input.GlobalSecondaryIndexes ?? []).map((index) => globalIndex(index, types)),
      timeToLiveAttribute: TTL_ATTRIBUTE,
      dynamoStream: StreamViewType[input.StreamSpecification!.StreamViewType!],
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      replicas: props.replicaRegions.map((region) => ({ region })),
    });
  }
}

type AttributeTypes = ReadonlyMap<string | undefined, string | undefined>;

function keyAttribute(schema: KeySchemaElement[] | undefined, keyType: 'HASH' | 'RANGE', types: AttributeTypes): Attribute | undefined {
  const name = schema?.find((element) => element.KeyType === keyType)?.AttributeName;
  return name === undefined ? undefined : { name, type: attributeType(types.get(name), name) };
}

function partitionKey(schema: KeySchemaElement[] | undefined, types: AttributeTypes, owner: string): Attribute {
  const key = keyAttribute(schema, 'HASH', types);
  if (!key) throw new Error(`The ${owner} in shared/platform/dynamodb/table.ts has no partition key`);
  return key;
}

function attributeType(type: string | undefined, name: string): AttributeType {
  switch (type) {
    case 'S':
      return AttributeType.STRING;
    case 'N':
      return AttributeType.NUMBER;
    case 'B':
      return AttributeType.BINARY;
    default:
      throw new Error(`Key attribute ${name} has no attribute definition`);
  }
}

function globalIndex(index: GlobalSecondaryIndex, types: AttributeTypes): GlobalSecondaryIndexPropsV2 {
  const indexName = index.IndexName ?? '';
  return {
    indexName,
    partitionKey: partitionKey(index.KeySchema, types, `index ${indexName}`),
    sortKey: keyAttribute(index.KeySchema, 'RANGE', types),
    ...projection(index.Projection),
  };
}

function projection(spec: Projection | undefined): Pick<GlobalSecondaryIndexPropsV2, 'projectionType' | 'nonKeyAttributes'> {
  switch (spec?.ProjectionType) {
    case undefined:
    case 'ALL':
      return { projectionType: ProjectionType.ALL };
    case 'KEYS_ONLY':
      return { projectionType: ProjectionType.KEYS_ONLY };
    case 'INCLUDE':
      return { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: spec?.NonKeyAttributes ?? [] };
    default:
      throw new Error(`Unknown projection type ${spec?.ProjectionType}`);
  }
}
