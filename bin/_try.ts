import { startDynamoDbLocal, ensureTable } from '#shared/local/dynamodb.ts';
const t = Date.now();
const ddb = await startDynamoDbLocal({ port: 8391 });
console.log('up', Date.now() - t, ddb.endpoint);
console.log('created', await ensureTable(ddb.endpoint, 'table-tt'), Date.now() - t);
console.log('created', await ensureTable(ddb.endpoint, 'table-tt'), Date.now() - t);
try { await startDynamoDbLocal({ port: 8391 }); } catch (e) { console.log('second:', (e as Error).message); }
await ddb.stop();
console.log('stopped', Date.now() - t);
