# Shelfmark's container image: `docker build -t shelfmark .`, then `docker run -p 3000:3000 -v shelfmark-data:/data shelfmark`.
# Configuration comes only from the environment (docs/operating/configuration.md); the command picks
# what the container runs: `serve` (API and delivery worker), `serve --role api`, `serve --role worker`,
# `migrate`, or any other `shelfmark` command. The production guide: docs/operating/production.md.

# The Node.js image both stages start from (a Debian bookworm one: the build installs with apt-get).
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 is compiled from source, against the headers of the Node.js in this image (no
# download from GitHub or nodejs.org): node-gyp needs Python, make and a C++ compiler.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_build_from_source=true \
    npm_config_nodedir=/usr/local \
    npm_config_fund=false \
    npm_config_audit=false \
    npm_config_update_notifier=false
WORKDIR /src
# Dependencies first, so that a change to the sources alone reuses this layer.
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-web.mjs scripts/
COPY src src
RUN npx tsc -p tsconfig.build.json && node scripts/build-web.mjs
# What the runtime carries: production dependencies only, and of better-sqlite3 its compiled module.
RUN npm prune --omit=dev --workspaces=false \
 && rm -rf node_modules/@shelfmark dist/.tsbuildinfo \
 && find node_modules -mindepth 1 -maxdepth 2 -type d -empty -delete \
 && cd node_modules/better-sqlite3 \
 && find build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} + \
 && find build/Release -mindepth 1 ! -name better_sqlite3.node -exec rm -rf {} + \
 && rm -rf deps src

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/shelfmark.sqlite
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY bin bin
# The SQLite database lives on a volume, owned by the unprivileged user the service runs as.
# `shelfmark` is on the PATH for `docker exec <container> shelfmark clients create …`.
RUN mkdir /data && chown node:node /data && ln -s /app/bin/shelfmark.js /usr/local/bin/shelfmark
VOLUME /data
USER node
EXPOSE 3000
# Readiness: the database answers and the offers are in memory (`/readyz`). A `serve --role worker` container serves no HTTP:
# turn the check off for it (compose.yaml does).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM (docker stop) ends it gracefully: requests and webhook attempts in flight finish, claimed
# but unsent deliveries are handed back; give it 30 s (`docker stop -t 30`, compose's stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/bin/shelfmark.js"]
CMD ["serve"]
