# syntax=docker/dockerfile:1
#
# One image, three entrypoints:
#   /usr/local/bin/api          HTTP API on API_ADDR (:8080): /healthz /readyz /metrics
#   /usr/local/bin/worker       asynq server; metrics+health on WORKER_METRICS_ADDR (:9091)
#                               (`worker migrate` applies the migrations and exits)
#   /usr/local/bin/scheduler    leader-elected loops; metrics+health on SCHEDULER_METRICS_ADDR (:9092)
#   /usr/local/bin/healthcheck  `healthcheck URL` exits 0 on a 2xx answer (for Docker/Compose
#                               healthchecks: the runtime image has no shell and no curl)
#
#   docker build -t foiaflow .
#   docker run --rm foiaflow                      # api (the default command)
#   docker run --rm foiaflow /usr/local/bin/worker migrate

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
# Dependencies first, in their own cached layer and module cache.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=bind,source=go.mod,target=go.mod \
    --mount=type=bind,source=go.sum,target=go.sum \
    go mod download
ARG TARGETOS
ARG TARGETARCH
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    --mount=type=bind,target=. \
    GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags='-s -w' \
        -o /out/ ./cmd/api ./cmd/worker ./cmd/scheduler \
 && cd deploy/healthcheck \
 && GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags='-s -w' -o /out/healthcheck . \
 && mkdir -p /data

# distroless/static: CA certificates, tzdata, /etc/passwd with nonroot (65532), /tmp; no shell.
FROM gcr.io/distroless/static-debian12:nonroot
LABEL org.opencontainers.image.title="foiaflow" \
      org.opencontainers.image.description="foiaflow api, worker and scheduler" \
      org.opencontainers.image.source="https://github.com/foiaflow/foiaflow"
COPY --from=build /out/ /usr/local/bin/
# DATA_DIR: the message store (MESSAGE_STORE=dir) and scratch space for
# inbound bodies. Owned by the runtime user so a fresh named volume mounted
# here (docker-compose.yml) is writable; Kubernetes uses S3 and an emptyDir.
COPY --from=build --chown=65532:65532 /data /data
# Numeric so that Kubernetes runAsNonRoot can verify it without /etc/passwd.
USER 65532:65532
WORKDIR /tmp
# Relative default (var/outbox) would land in the read-only image; /tmp is a
# tmpfs/emptyDir in compose and Kubernetes. Only used when SMTP_HOST is empty.
ENV MAIL_SINK_DIR=/tmp/outbox DATA_DIR=/data
EXPOSE 8080 9091 9092
# No HEALTHCHECK here: each process has its own port; docker-compose.yml sets
# one per service with /usr/local/bin/healthcheck, Kubernetes uses httpGet.
CMD ["/usr/local/bin/api"]
