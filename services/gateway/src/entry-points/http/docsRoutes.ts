import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { adminDocument, lenderDocument } from './openapi/document';
import { allowOnlyRoutedMethods } from './support';

/** Swagger UI's files, from the npm package: the page works without reaching any other host. */
const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png'];

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Loan Application Analysis API</title>
<link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/api/docs/page.css">
</head>
<body>
<div id="reference"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>`;

const pageCss = `body{margin:0}
.swagger-ui .info .markdown table{border-collapse:collapse}
.swagger-ui .info .markdown td,.swagger-ui .info .markdown th{border:1px solid #ddd;padding:.25rem .5rem}
`;

/**
 * What the reference page may load: its own scripts and styles, the document and "Try it out"
 * calls from this origin, and the data: icons of Swagger UI's stylesheet. Nothing from another
 * host, no inline script, no framing.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const withPagePolicy: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  next();
};

// No validator (it would send the document to another host); "Try it out" calls this gateway.
const init = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  displayOperationId: false,
  defaultModelsExpandDepth: 0,
  docExpansion: 'list',
  persistAuthorization: false,
  tryItOutEnabled: false,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'BaseLayout'
});`;

/**
 * The OpenAPI documents and the reference page. `/api/openapi.json` and `/api/docs` are public;
 * the operator document is served by `adminDocs`, mounted behind the admin token.
 */
export function docsRoutes(deps: { publicUrl: () => string }): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(lenderDocument(deps.publicUrl()));
  });
  router.get('/docs', withPagePolicy, (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/docs/page.css', (_req, res) => {
    res.type('text/css').send(pageCss);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  const assets = express.static(swaggerUiDir, { index: false, fallthrough: false, maxAge: '1h' });
  for (const name of ASSETS) {
    router.get(`/docs/assets/${name}`, ((req, res, next) => {
      req.url = `/${name}`;
      assets(req, res, next);
    }) as RequestHandler);
  }
  return allowOnlyRoutedMethods(router);
}

export function adminDocsRoutes(deps: { publicUrl: () => string }): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(adminDocument(deps.publicUrl()));
  });
  return allowOnlyRoutedMethods(router);
}
