# One recipe for every service image:
#   docker build --build-arg APP=catalog -t petstore-catalog .
# APP is one of catalog, orders, inventory, gateway. The workspace's own Nx build
# produces dist/apps/$APP/main.js (a webpack bundle, node_modules left external)
# plus a package.json and lock file listing only what that bundle imports; the
# runtime stage installs exactly those. No secret is read or written at build
# time: every credential arrives when the container starts (environment, or a file on a volume).
# No `# syntax=` line: the engine's built-in Dockerfile frontend handles everything used here,
# and naming a frontend image would make every build pull it from a registry.

# Node 24 LTS on Debian 12 for building and running alike, so native addons match.
FROM node:24-bookworm-slim AS deps
WORKDIR /workspace
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund

FROM deps AS build
# No daemon and no remote cache inside an image build: both would outlive or leak out of it.
ENV NX_DAEMON=false \
    NX_NO_CLOUD=true \
    NX_TUI=false
COPY . .
ARG APP
RUN if [ -z "$APP" ]; then echo "build arg APP is required: catalog, orders, inventory or gateway" >&2; exit 1; fi && \
    npx nx build "$APP" && \
    test -f "dist/apps/$APP/main.js" && \
    test -f "dist/apps/$APP/package.json" && \
    test -f "dist/apps/$APP/package-lock.json"

FROM node:24-bookworm-slim AS runtime
ARG APP
ENV NODE_ENV=production \
    NODE_OPTIONS="--enable-source-maps"
WORKDIR /app
# Where the services keep the database password their migrate step generated, and the NATS, Redis
# and Kafka secrets `main.js bus-secrets` makes, one folder per volume (docker-compose.yml; a named
# volume takes its directory's owner when first used). openssl makes bus-secrets' certificates.
RUN apt-get update && apt-get install -y --no-install-recommends openssl && rm -rf /var/lib/apt/lists/* && \
    mkdir -p /var/lib/petstore/gateway /var/lib/petstore/catalog /var/lib/petstore/orders /var/lib/petstore/inventory \
        /var/lib/petstore/nats /var/lib/petstore/redis /var/lib/petstore/kafka /var/lib/petstore/kafka-admin \
        /var/lib/petstore/kafka-dead-letters /var/lib/petstore/kafka-probe /var/lib/petstore/kafka-bench /var/lib/petstore/ca && \
    chown -R node:node /var/lib/petstore
# Dependencies first so that a code-only change reuses the installed node_modules layer.
COPY --from=build /workspace/dist/apps/${APP}/package.json /workspace/dist/apps/${APP}/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --no-audit --no-fund
COPY --from=build /workspace/dist/apps/${APP}/ ./
# Files stay owned by root: the process can read its code but not rewrite it.
USER node
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HTTP_PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The services with a database run `node main.js migrate` first (see docker-compose.yml).
CMD ["node", "main.js"]
