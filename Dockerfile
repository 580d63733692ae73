# syntax=docker/dockerfile:1
#
# The Tabula node image (used by the Helm chart in helm/tabula):
#
#   docker build -t registry.example.com/tabula-server:0.1.0 .
#
# and the load-test harness, to run next to a deployment (docs/operations.md):
#
#   docker build --target loadtest -t registry.example.com/tabula-load:0.1.0 .
#
# Stage `build` compiles the release binaries (BuildKit cache mounts keep
# the cargo registry and target/ between builds); the runtime is distroless
# (glibc, CA certificates, no shell, no package manager) as the non-root
# user 65532, with the default config in /app/config and the Mini App's
# static files in /app/web (the node serves web.dir = "web" from its working
# directory /app).

ARG RUST_VERSION=1.95.0
ARG DEBIAN_SUITE=bookworm

FROM docker.io/library/rust:${RUST_VERSION}-slim-${DEBIAN_SUITE} AS build
WORKDIR /src
# Symbol names stay (readable panics and profiles); debug info goes.
ENV CARGO_PROFILE_RELEASE_STRIP=debuginfo \
    CARGO_TERM_COLOR=never
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/src/target,sharing=locked \
    cargo build --release --locked -p tabula-server \
 && install -D -m 0755 target/release/tabula-server /out/tabula-server

FROM build AS loadtest-build
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/src/target,sharing=locked \
    cargo build --release --locked -p tabula-loadtest \
 && install -D -m 0755 target/release/tabula-load /out/tabula-load

# `docker build --target loadtest`: tabula-load as the entrypoint, e.g.
#   kubectl run tabula-load --rm -it --restart=Never --image=… -- \
#     --url tabula.tabula.svc:80 --matches 1000 --duration 60s
FROM gcr.io/distroless/cc-debian12:nonroot AS loadtest
COPY --from=loadtest-build /out/tabula-load /usr/local/bin/tabula-load
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/tabula-load"]

# The default target: the node.
FROM gcr.io/distroless/cc-debian12:nonroot AS runtime
WORKDIR /app
COPY --from=build /out/tabula-server /app/tabula-server
# For the chart's `drain.preStopMode: exec` (clusters without the preStop
# sleep action): coreutils' sleep, built for the same Debian glibc.
COPY --from=build /bin/sleep /bin/sleep
COPY config/ /app/config/
COPY web/ /app/web/
USER 65532:65532
# The chart sets the same through its config file; here for `docker run`.
ENV TABULA__SERVER__LISTEN=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/app/tabula-server"]
