# Images of the six services and the sandbox, from one multi-stage build. Every image holds
# the whole compiled monorepo (the services share libs/ and one dependency tree, so the
# layers are shared too) and differs only in the command. Build one with its target:
#
#   docker build --target gateway -t loan-analysis/gateway .
#
# Targets: gateway, applications, enrichment, scoring, notifier, janitor, sandbox, and
# runtime (no command: `docker run IMAGE services/<name>/dist/start.js`). The last stage,
# built when no target is given, is the gateway. See deploy/README.md.

# Node 24, the active LTS (Node 20 reached end of life on 2026-04-30); its npm 11 installs the
# lockfile with `npm ci`.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# The manifests alone, so that the dependency layers stay cached until one changes.
# A new workspace needs its package.json listed here and its dist in the runtime stage.
FROM base AS manifests
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY libs/contracts/package.json libs/contracts/
COPY libs/runtime/package.json libs/runtime/
COPY libs/provider/package.json libs/provider/
COPY services/gateway/package.json services/gateway/
COPY services/applications/package.json services/applications/
COPY services/enrichment/package.json services/enrichment/
COPY services/scoring/package.json services/scoring/
COPY services/notifier/package.json services/notifier/
COPY services/janitor/package.json services/janitor/
COPY sandbox/package.json sandbox/
COPY sdk/package.json sdk/

# Every dependency, the sources, the TypeScript build of all workspaces and the bundle of the
# lender console (into services/gateway/dist/console, which the runtime stage copies).
FROM manifests AS build
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts
COPY libs libs
COPY services services
COPY sandbox sandbox
COPY sdk sdk
RUN npx tsc -b \
 && node services/gateway/console/build.mjs \
 && find libs services sandbox sdk -type f \
      \( -name '*.d.ts' -o -name '*.d.ts.map' -o -name '*.tsbuildinfo' \) -delete

# Production dependencies only (workspace packages are symlinks into /app). npm's cache is a
# cache mount, never part of a layer, and shared with the build stage that BuildKit runs at the
# same time: it is left alone (emptying it failed the build stage's `npm ci` or this one).
FROM manifests AS prod-deps
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts

# What runs: the dependencies, the manifests and the compiled output; owned by root and
# read-only for the unprivileged `node` user it runs as.
FROM base AS runtime
# Two malloc arenas instead of glibc's eight per core: the threads of Node's pool and of V8 each
# got one, and freed memory left in them kept a service's resident memory high.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080 \
    SANDBOX_HOST=0.0.0.0
# The production dependency tree as npm laid it out: the root node_modules and the ones npm
# nests in a workspace when it needs another version than the root's (lru-cache 11 under
# applications, enrichment and janitor), with every manifest.
COPY --from=prod-deps /app ./
COPY --from=build /app/libs/contracts/dist libs/contracts/dist
COPY --from=build /app/libs/runtime/dist libs/runtime/dist
COPY --from=build /app/libs/provider/dist libs/provider/dist
COPY --from=build /app/services/gateway/dist services/gateway/dist
COPY --from=build /app/services/applications/dist services/applications/dist
COPY --from=build /app/services/enrichment/dist services/enrichment/dist
COPY --from=build /app/services/scoring/dist services/scoring/dist
COPY --from=build /app/services/notifier/dist services/notifier/dist
COPY --from=build /app/services/janitor/dist services/janitor/dist
COPY --from=build /app/sandbox/dist sandbox/dist
# The lenders' client (@loan/client): no service needs it, but every workspace of the tree is here.
COPY --from=build /app/sdk/dist sdk/dist
USER node
ENTRYPOINT ["node"]

FROM runtime AS applications
EXPOSE 8080
CMD ["services/applications/dist/start.js"]

FROM runtime AS enrichment
EXPOSE 8080
CMD ["services/enrichment/dist/start.js"]

FROM runtime AS scoring
EXPOSE 8080
CMD ["services/scoring/dist/start.js"]

FROM runtime AS notifier
EXPOSE 8080
CMD ["services/notifier/dist/start.js"]

FROM runtime AS janitor
EXPOSE 8080
CMD ["services/janitor/dist/start.js"]

FROM runtime AS sandbox
ENV SANDBOX_PORT=8090
EXPOSE 8090
CMD ["sandbox/dist/start.js"]

# The public API on 8080; health and /metrics on the internal port 9090 (HTTP_PORT).
FROM runtime AS gateway
ENV GATEWAY_PORT=8080 \
    HTTP_PORT=9090
EXPOSE 8080 9090
CMD ["services/gateway/dist/start.js"]
