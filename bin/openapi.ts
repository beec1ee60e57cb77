// `npm run openapi`: writes the API description to docs/openapi.json, which
// GET /openapi.json serves and shared/client/schema.ts is generated from.
import { writeFile } from 'node:fs/promises';
import { openApiJson, typedClientSource } from '#shared/openapi/generate.ts';

const json = await openApiJson();
await writeFile('docs/openapi.json', json);
await writeFile('shared/client/schema.ts', await typedClientSource(JSON.parse(json)));
console.log('wrote docs/openapi.json and shared/client/schema.ts');
