# Multi-stage build: node builds the console, Go builds static binaries.
#   docker build --target server -t jobwheel-server .
#   docker build --target agent  -t jobwheel-agent .
# Both images carry the command-line tool, /usr/local/bin/jobwheel.

FROM node:20-bookworm-slim AS console
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json frontend/.npmrc ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
COPY graph/schema/ /src/graph/schema/
RUN npm run build

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=console /src/frontend/dist/ ./frontend/dist/
ENV CGO_ENABLED=0
RUN go build -trimpath -ldflags "-s -w" -o /out/jobwheel-server ./cmd/jobwheel-server && \
    go build -trimpath -ldflags "-s -w" -o /out/jobwheel-agent ./cmd/jobwheel-agent && \
    go build -trimpath -ldflags "-s -w" -o /out/jobwheel ./cmd/jobwheel && \
    mkdir -p /out/data

# The server: a static binary on a minimal base. Mount a volume at /data for
# the embedded SQLite file, or set JOBWHEEL_DATABASE_URL to PostgreSQL.
FROM gcr.io/distroless/static-debian12:nonroot AS server
COPY --from=build /out/jobwheel-server /usr/local/bin/jobwheel-server
COPY --from=build /out/jobwheel /usr/local/bin/jobwheel
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /data
ENV JOBWHEEL_DATABASE_URL=sqlite:/data/jobwheel.db
# Every interface: the server's own default is loopback only, which a
# container's published port cannot reach.
ENV JOBWHEEL_HTTP_ADDR=:7700
EXPOSE 7700
ENTRYPOINT ["/usr/local/bin/jobwheel-server"]

# The agent needs a shell and Python for its SHELL and PYTHON processors.
FROM python:3.12-slim-bookworm AS agent
COPY --from=build /out/jobwheel-agent /usr/local/bin/jobwheel-agent
COPY --from=build /out/jobwheel /usr/local/bin/jobwheel
RUN useradd --system --home /work jobwheel && mkdir -p /work && chown jobwheel /work
USER jobwheel
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/jobwheel-agent"]
