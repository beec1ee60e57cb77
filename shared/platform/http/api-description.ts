/**
 * The API description as served: docs/openapi.json is one file for every
 * deployment, so its server list is generic; GET /openapi.json puts the
 * address of the deployment that answers first, which is where Swagger UI's
 * "Try it out" and generated clients send requests by default.
 */

export interface ServerObject {
  url: string;
  description?: string;
  variables?: Record<string, unknown>;
}

/**
 * `npm start` at its default port. The committed document lists it for
 * readers of the file; a served document drops it, its first server being the
 * real address (under `npm start`, whatever PORT was chosen).
 */
export const LOCAL_SERVER: ServerObject = { url: 'http://127.0.0.1:3000', description: 'npm start on its default port (PORT=3000)' };

/**
 * The document with `base` (publicBase(): configuration, never the request's
 * Host) as its first server, then the committed servers.
 *
 * `servedDocument(document, 'https://abc123defg.execute-api.eu-west-1.amazonaws.com').servers[0].url`
 */
export function servedDocument<T extends { servers?: readonly ServerObject[] }>(document: T, base: string): T {
  const others = (document.servers ?? []).filter((server) => server.url !== LOCAL_SERVER.url && server.url !== base);
  return { ...document, servers: [{ url: base, description: 'This deployment: the address that served this document' }, ...others] };
}
