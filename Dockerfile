# arrayd server image.
#
#   docker build -t arrayd:cpu .                                   # CPU backend (Debian 12)
#   docker build -t arrayd:cuda \
#     --build-arg BASE=nvidia/cuda:13.0.0-devel-ubuntu24.04 \
#     --build-arg RUNTIME_BASE=nvidia/cuda:13.0.0-runtime-ubuntu24.04 .
#
# BASE is the build stage's image, RUNTIME_BASE the runtime stage's (default:
# BASE). For CUDA, take the runtime image of the same CUDA version as the
# devel image: the server links cuBLAS, cuSOLVER, cuFFT and NVRTC of that
# major version, which the runtime image has; libcuda and NVML come from the
# host's driver (docker run --gpus, the NVIDIA Container Toolkit). Both
# stages must be the same distribution release (the runtime libraries are
# the build's packages).
#
# By default the server listens only on the unix socket
# /run/arrayd/arrayd.sock; share it with client containers through a volume
# (clients: ARRAYD_ADDRESS=unix:/run/arrayd/arrayd.sock):
#
#   docker run -d --name arrayd -v arrayd-run:/run/arrayd arrayd:cpu   # --gpus all for CUDA
#   docker run --rm -v arrayd-run:/run/arrayd -e ARRAYD_ADDRESS=unix:/run/arrayd/arrayd.sock CLIENT_IMAGE ...
#
# The server runs as the user arrayd, uid and gid 7470 (ARRAYD_UID), never
# root. Its socket is writable by its owner only: a client container
# connects as root or as uid 7470 (`docker run --user 7470 ...`).
#
# With certificates mounted it also serves TCP 0.0.0.0:7470 with TLS, and
# then needs client authentication: a tokens file ('TOKEN TENANT' lines)
# and/or tls/client-ca.crt (mTLS):
#
#   docker run -d -v arrayd-run:/run/arrayd -v "$PWD/certs":/etc/arrayd/tls:ro \
#     -v "$PWD/tokens":/etc/arrayd/tokens:ro -p 7470:7470 arrayd:cpu
#
# certs/ holds server.crt and server.key (and optionally client-ca.crt),
# readable by uid 7470.
# Arguments after the image name are appended to the server's flags (e.g.
# --backend cpu --tenant-quota 8589934592). deploy/docker-entrypoint.sh
# builds the command line and exec's the server, so the server is PID 1 and
# `docker stop` (SIGTERM) drains it: exit 0, sockets removed.
# deploy/compose.yaml is the same for docker compose.
#
# Metrics: the entrypoint passes --metrics-listen $ARRAYD_METRICS_LISTEN
# (0.0.0.0:9470 inside the container; publish it to the host's loopback:
# -p 127.0.0.1:9470:9470). ARRAYD_METRICS_LISTEN=off turns it off.
#
# Health: HEALTHCHECK runs deploy/arrayd-healthcheck, a grpc.health.v1 Check
# made by curl over the unix socket (that file says why curl). It is
# healthy while the server answers SERVING, and unhealthy from the start of
# a drain, after a fatal GPU error (the server then exits 70 for the restart
# policy to start it again) and when the server does not answer.
#
# The CUDA backend is compiled when the build image has the CUDA toolkit at
# /usr/local/cuda; `--backend auto` then picks the GPU when one is visible.
ARG BASE=debian:12
ARG RUNTIME_BASE=${BASE}

FROM ${BASE} AS build
ENV DEBIAN_FRONTEND=noninteractive
# The same -dev package names on Debian 12 and Ubuntu 24.04.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler \
      libabsl-dev libspdlog-dev libgtest-dev libopenblas-dev liblapacke-dev libfftw3-dev \
      prometheus-cpp-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# CMake reads LICENSE (cpack) and installs deploy/'s systemd files.
COPY CMakeLists.txt CMakePresets.json LICENSE ./
COPY proto proto
COPY server server
COPY client-cpp client-cpp
COPY deploy deploy
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DARRAYD_BUILD_TESTS=OFF \
    && cmake --build build -j"$(nproc)" --target arrayd \
    && strip build/bin/arrayd \
    && build/bin/arrayd --version
# The runtime stage's packages are the ones that hold the libraries the
# binary links, read off this stage: Debian 12 and Ubuntu 24.04 name them
# differently (libgrpc++1.51 / libgrpc++1.51t64, libprotobuf32 /
# libprotobuf32t64, libspdlog1.10 / libspdlog1.12, ...).
RUN deploy/runtime_packages.sh build/bin/arrayd > runtime-packages.txt \
    && cat runtime-packages.txt

FROM ${RUNTIME_BASE}
ENV DEBIAN_FRONTEND=noninteractive
# curl: the health probe's HTTP/2 client. ca-certificates: for nothing the
# server needs today, kept small; drop it with EXTRA_PACKAGES=curl.
ARG EXTRA_PACKAGES="curl ca-certificates"
ARG ARRAYD_UID=7470
COPY --from=build /src/runtime-packages.txt /tmp/runtime-packages.txt
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends $(cat /tmp/runtime-packages.txt) $EXTRA_PACKAGES \
    && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt \
    && groupadd --system --gid "$ARRAYD_UID" arrayd \
    && useradd --system --uid "$ARRAYD_UID" --gid arrayd --create-home --shell /usr/sbin/nologin arrayd \
    && install -d -o arrayd -g arrayd -m 0755 /run/arrayd \
    && install -d -m 0755 /etc/arrayd
COPY --from=build /src/build/bin/arrayd /usr/local/bin/arrayd
COPY deploy/docker-entrypoint.sh /usr/local/bin/arrayd-entrypoint
COPY deploy/arrayd-healthcheck /usr/local/bin/arrayd-healthcheck
# Every library resolves here, or the build fails now rather than the
# container at its start.
RUN chmod 0755 /usr/local/bin/arrayd-entrypoint /usr/local/bin/arrayd-healthcheck \
    && if ldd /usr/local/bin/arrayd | grep 'not found'; then exit 1; fi \
    && /usr/local/bin/arrayd --version
ENV ARRAYD_METRICS_LISTEN=0.0.0.0:9470
# A numeric user, so that Kubernetes' runAsNonRoot can check it.
USER ${ARRAYD_UID}:${ARRAYD_UID}
VOLUME /run/arrayd
# 7470: gRPC (TLS, only with certificates mounted); 9470: Prometheus metrics.
EXPOSE 7470 9470
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/arrayd-healthcheck"]
ENTRYPOINT ["/usr/local/bin/arrayd-entrypoint"]
