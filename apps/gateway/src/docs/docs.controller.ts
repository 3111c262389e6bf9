import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import getAbsoluteFSPath = require('swagger-ui-dist/absolute-path.js');
import { ApiError } from '../http/api-error';
import { OperationsRegistry } from '../operations/operations.registry';
import { Public } from '../operations/operation.decorator';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Pet Store API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;

// "Authorize" takes the API key; persistAuthorization keeps it across reloads.
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    displayRequestDuration: true,
    tryItOutEnabled: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
};
`;

interface Asset {
  type: string;
  body: Buffer;
}

/** The Swagger UI files the page needs, read once at start and served from memory. */
function loadAssets(): Map<string, Asset> {
  const root = getAbsoluteFSPath();
  const file = (name: string, type: string): [string, Asset] => [name, { type, body: readFileSync(join(root, name)) }];
  return new Map([
    file('swagger-ui.css', 'text/css; charset=utf-8'),
    file('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
    file('favicon-32x32.png', 'image/png'),
    file('favicon-16x16.png', 'image/png'),
    ['swagger-initializer.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(INITIALIZER) }],
  ]);
}

@Controller()
export class DocsController {
  private readonly assets = loadAssets();

  constructor(private readonly registry: OperationsRegistry) {}

  @Get('openapi.json')
  @Public()
  @Header('content-type', 'application/json; charset=utf-8')
  openApi(): string {
    return this.registry.openApi;
  }

  @Get('docs')
  @Public()
  @Header('content-type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }

  @Get('docs/:file')
  @Public()
  asset(@Param('file') name: string, @Res({ passthrough: true }) reply: FastifyReply): Buffer {
    const asset = this.assets.get(name);
    if (!asset) throw new ApiError('NOT_FOUND', `There is no /docs/${name}`);
    reply.header('content-type', asset.type).header('cache-control', 'public, max-age=3600');
    return asset.body;
  }
}
