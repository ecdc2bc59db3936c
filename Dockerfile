# syntax=docker/dockerfile:1
# Build: compile TypeScript with the dev toolchain.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY adaptors ./adaptors
RUN npm run build

# Runtime: production dependencies and the compiled code only, as a non-root user.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    SANDBOX=false \
    PORT=8080
# Memory (docs/performance.md): on a host with 16 GB or more V8 allows a 4 GB heap and lets
# garbage pile up to hundreds of MB before its first full collection, and collects rarely
# after. The service keeps 40-60 MB alive; an old space bounded at 384 MB makes V8 collect it
# while it is a fraction of that (API and worker settle under 200 MB RSS after the bench's
# loads). The young generation keeps the size it was measured with, V8's default up to Node 22
# (semi-spaces of up to 16 MB): a smaller one may cost callback throughput (noisy trials), and
# Node 24's V8 defaults to 64 MB, which would raise the heap's bound from 432 to 576 MB.
# Raise the bound for very large or very many concurrent request bodies (BODY_LIMIT):
# past it the process exits and restarts.
ENV NODE_OPTIONS="--max-old-space-size=384 --max-semi-space-size=16"
# glibc's malloc keeps an arena per thread, up to 8 per core, and hands little of a freed arena
# back: V8's helper threads, libuv's pool and the API's derivation threads each grow one under
# load. Two arenas: the API settled at 122-125 MB after the bench's 24,000 mixed requests,
# against 130-149 MB with glibc's default (docs/performance.md).
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
# 8080: the API (PORT); 8081: a worker's /status and /metrics (WORKER_PORT).
EXPOSE 8080 8081
# Checks the API by default. A container running the worker sets HEALTHCHECK_URL to
# http://127.0.0.1:8081/status (or overrides the check, as docker-compose.yml does).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch(process.env.HEALTHCHECK_URL||'http://127.0.0.1:'+(process.env.PORT||8080)+'/api/v1.0/status').then(r=>r.json()).then(b=>process.exit(b.healthy?0:1)).catch(()=>process.exit(1))"
# The worker runs from the same image: `node dist/src/worker-main.js`.
CMD ["node", "dist/src/main.js"]
