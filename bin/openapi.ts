// `npm run openapi`: writes the API description to docs/openapi.json, which
// GET /openapi.json serves and dev/client/schema.ts is generated from.
import { writeFile } from 'node:fs/promises';
import { openApiJson, typedClientSource } from '#dev/openapi/generate.ts';

const json = await openApiJson();
await writeFile('docs/openapi.json', json);
await writeFile('dev/client/schema.ts', await typedClientSource(JSON.parse(json)));
console.log('wrote docs/openapi.json and dev/client/schema.ts');
