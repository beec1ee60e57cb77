import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { TableV2, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { PostlaneApi } from './api.ts';
import { PostlaneTable } from './table.ts';

/**
 * Where this region's table comes from: `own` creates it here (with replicas in
 * the listed regions, or none), `replica` uses the replica another stack's global
 * table keeps in this region.
 */
export type TableSource =
  | { readonly kind: 'own'; readonly replicaRegions: readonly string[] }
  | { readonly kind: 'replica' };

export interface RegionalStackProps extends StackProps {
  readonly tableName: string;
  readonly tableSource: TableSource;
}

/** Everything Postlane runs in one region: the API, its functions and the table (or its replica). */
export class RegionalStack extends Stack {
  readonly table: ITableV2;
  readonly api: PostlaneApi;

  constructor(scope: Construct, id: string, props: RegionalStackProps) {
    super(scope, id, props);
    this.table = props.tableSource.kind === 'own'
      ? new PostlaneTable(this, 'Table', { tableName: props.tableName, replicaRegions: props.tableSource.replicaRegions })
      : TableV2.fromTableName(this, 'Table', props.tableName);
    this.api = new PostlaneApi(this, 'Api', { table: this.table });
    new CfnOutput(this, 'ApiUrl', { value: this.api.httpApi.apiEndpoint });
  }
}
