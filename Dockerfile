# ferry as a one-shot container for schedulers (Kubernetes CronJob, ECS
# scheduled tasks, cron). The exit code is the run's (0, 1, 2, 3 — see
# docs/errors.md); logs are JSON lines on stderr (no TTY in a container).
#
#   docker build -t ferry .
#   docker run --rm -v "$PWD:/project" -v ferry-state:/project/state \
#     -e FERRY_BASE_URL -e FERRY_API_KEY ferry run
#
# /project holds ferry.yaml and the pipelines (mount it read-only if you like);
# /project/state is a volume: it holds the SQLite state (cursors, ledger,
# dead-letter) that makes the next run incremental. Losing it re-pushes
# everything once (unchanged records then cost no request), so keep it on a
# persistent volume, or point `state.url` at Postgres.

# 1. Build: compile TypeScript and pack the package exactly as `npm publish` would.
FROM node:20-bookworm-slim AS build
WORKDIR /src
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are copied.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY connectors ./connectors
RUN npm run build && npm pack --ignore-scripts --pack-destination /tmp && mv /tmp/ferry-*.tgz /tmp/ferry.tgz

# 2. Install the packed tarball with production dependencies only (no
# TypeScript, no tsx/esbuild: the image runs compiled JavaScript). The native
# SQLite addon compiles here, where the toolchain is.
FROM node:20-bookworm-slim AS install
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY --from=build /tmp/ferry.tgz /tmp/ferry.tgz
RUN npm install --global --prefix /opt/ferry --omit=dev --omit=optional --no-audit --no-fund /tmp/ferry.tgz

# 3. Run: the installed package and Node, as the unprivileged `node` user.
FROM node:20-bookworm-slim
COPY --from=install /opt/ferry /opt/ferry
ENV PATH=/opt/ferry/bin:$PATH \
    NODE_ENV=production \
    FERRY_LOG_FORMAT=json
WORKDIR /project
RUN mkdir -p /project/state && chown node:node /project/state
VOLUME ["/project/state"]
USER node
ENTRYPOINT ["ferry"]
CMD ["run"]
