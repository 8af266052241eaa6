# ferry as a one-shot container for schedulers (Kubernetes CronJob, ECS
# scheduled tasks, cron). Mount the project at /project and its state on a
# volume; the exit code is the run's (0, 1, 2, 3 — see README).
FROM node:20-bookworm-slim AS build
WORKDIR /opt/ferry
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY connectors ./connectors
COPY tsconfig.json ./

FROM node:20-bookworm-slim
WORKDIR /project
COPY --from=build /opt/ferry /opt/ferry
RUN ln -s /opt/ferry/bin/ferry.js /usr/local/bin/ferry
# JSON logs on stderr (no TTY in a container), state under /project/state.
ENV NODE_ENV=production
USER node
ENTRYPOINT ["ferry"]
CMD ["run"]
