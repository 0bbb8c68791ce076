# syntax=docker/dockerfile:1
# The service (and, with another command, a runner) in one image. Multi-stage: the build stage
# compiles the TypeScript and better-sqlite3's native module; the runtime stage carries the
# production dependencies and dist/ only, runs as the unprivileged user `node` under tini, and
# keeps the SQLite store and its seal key in the /data volume.

FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary can be fetched.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data \
 && chown node:node /data
WORKDIR /app
ENV NODE_ENV=production \
    SERVICE_HOST=0.0.0.0 \
    SERVICE_PORT=8080 \
    SERVICE_DATA_DIR=/data
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bots ./bots
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SERVICE_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# A runner instead: `node dist/runner-main.js` with SERVICE_RUNNER_URL and SERVICE_RUNNER_TOKEN.
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=50", "dist/main.js"]
