/**
 * GET /docs: the API reference, rendered in the browser by Swagger UI from
 * GET /openapi.json. The renderer ships in the npm package swagger-ui-dist and
 * is inlined into the page, so the page loads nothing from any other host.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { html, type Reply } from './reply.ts';

/** Files of swagger-ui-dist the page inlines; a deployed function carries them in its own node_modules. */
export const RENDERER_FILES = ['swagger-ui-dist/swagger-ui-bundle.js', 'swagger-ui-dist/swagger-ui.css'] as const;

let page: string | undefined;

function rendererFile(name: (typeof RENDERER_FILES)[number]): string {
  return readFileSync(createRequire(import.meta.url).resolve(name), 'utf8');
}

function render(): string {
  const [script, style] = RENDERER_FILES.map(rendererFile) as [string, string];
  // `openapi.json` relative to `/docs`: the page works under any base address.
  const options = { url: 'openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null, tryItOutEnabled: false };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Postlane API reference</title>
<style>${style}</style>
</head>
<body>
<div id="reference"></div>
<script>${script.replaceAll('</script', '<\\/script')}</script>
<script>window.reference = SwaggerUIBundle(${JSON.stringify(options)});</script>
</body>
</html>
`;
}

/** The page, built once per process: about 1.8 MB, most of it the renderer. */
export function docsPage(): Reply {
  page ??= render();
  const reply = html(page);
  return { ...reply, headers: { ...reply.headers, 'Cache-Control': 'public, max-age=300' } };
}
