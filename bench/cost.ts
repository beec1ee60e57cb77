/**
 * Estimated AWS cost per million requests from measured figures. List prices,
 * us-east-1, on-demand, no free tier; written next to every estimate so it can
 * be redone when they change.
 */
export const PRICES = {
  checked: '2026-11-21',
  region: 'us-east-1',
  /** Lambda, arm64, per GB-second of billed duration (1 ms granularity). */
  lambdaPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** DynamoDB on-demand (the price since November 2024). */
  dynamoPerMillionReadUnits: 0.125,
  dynamoPerMillionWriteUnits: 0.625,
  /** HTTP API, first 300 million requests a month. */
  httpApiPerMillionRequests: 1.0,
  /** SQS standard queue, per million requests (a batch of up to 10 messages is one request). */
  sqsPerMillionRequests: 0.4,
} as const;

export type Prices = typeof PRICES;

export interface RequestFigures {
  /** Handler duration of a warm request, ms. */
  durationMs: number;
  memoryMb: number;
  readUnits: number;
  writeUnits: number;
}

export interface CostPerMillion {
  lambda: number;
  dynamo: number;
  apiGateway: number;
  total: number;
}

/**
 * `costPerMillion({ durationMs: 12, memoryMb: 512, readUnits: 2, writeUnits: 1 })`:
 * Lambda 12 ms × 0.5 GB, plus 2 RRU and 1 WRU, plus one HTTP API request, each a million times.
 */
export function costPerMillion(figures: RequestFigures, prices: Prices = PRICES): CostPerMillion {
  const gbSeconds = (Math.ceil(figures.durationMs) / 1000) * (figures.memoryMb / 1024);
  const lambda = gbSeconds * prices.lambdaPerGbSecond * 1e6 + prices.lambdaPerMillionRequests;
  const dynamo = figures.readUnits * prices.dynamoPerMillionReadUnits + figures.writeUnits * prices.dynamoPerMillionWriteUnits;
  const apiGateway = prices.httpApiPerMillionRequests;
  return { lambda, dynamo, apiGateway, total: lambda + dynamo + apiGateway };
}
