# arrayd server image.
#
#   docker build -t arrayd .                                   # CPU backend
#   docker build -t arrayd --build-arg BASE=nvidia/cuda:13.0.0-devel-ubuntu24.04 .
#
# By default the server listens only on the unix socket
# /run/arrayd/arrayd.sock; share it with client containers through a volume
# (clients: ARRAYD_ADDRESS=unix:/run/arrayd/arrayd.sock):
#
#   docker run -d --name arrayd -v arrayd-run:/run/arrayd arrayd   # add --gpus all for CUDA
#   docker run --rm -v arrayd-run:/run/arrayd -e ARRAYD_ADDRESS=unix:/run/arrayd/arrayd.sock CLIENT_IMAGE ...
#
# The socket is writable by its owner only (the image's arrayd user): a client
# container connects as root or as that uid
# (`docker run --rm --entrypoint id arrayd -u`).
#
# With certificates mounted it also serves TCP 0.0.0.0:7470 with TLS, and
# then needs client authentication: a tokens file ('TOKEN TENANT' lines)
# and/or tls/client-ca.crt (mTLS):
#
#   docker run -d -v arrayd-run:/run/arrayd -v "$PWD/certs":/etc/arrayd/tls:ro \
#     -v "$PWD/tokens":/etc/arrayd/tokens:ro -p 7470:7470 arrayd
#
# certs/ holds server.crt and server.key (and optionally client-ca.crt),
# readable by the arrayd user.
# Arguments after the image name are appended to the server's flags (e.g.
# --backend cpu --tenant-quota 8589934592). deploy/docker-entrypoint.sh
# builds the command line; deploy/compose.yaml is the same for docker compose.
#
# The CUDA backend is compiled when the base image has the CUDA toolkit at
# /usr/local/cuda; `--backend auto` then picks the GPU when one is visible.
ARG BASE=debian:12
FROM ${BASE} AS build
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler \
      libabsl-dev libspdlog-dev libgtest-dev libopenblas-dev liblapacke-dev libfftw3-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt CMakePresets.json ./
COPY proto proto
COPY server server
COPY client-cpp client-cpp
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DARRAYD_BUILD_TESTS=OFF \
    && cmake --build build -j"$(nproc)" --target arrayd \
    && strip build/bin/arrayd

FROM ${BASE}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
      libgrpc++1.51 libprotobuf32 libspdlog1.10 libopenblas0-pthread liblapacke libfftw3-single3 \
      libfftw3-double3 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home arrayd \
    && install -d -o arrayd -g arrayd -m 0755 /run/arrayd
COPY --from=build /src/build/bin/arrayd /usr/local/bin/arrayd
COPY deploy/docker-entrypoint.sh /usr/local/bin/arrayd-entrypoint
RUN chmod 0755 /usr/local/bin/arrayd-entrypoint
USER arrayd
VOLUME /run/arrayd
EXPOSE 7470
HEALTHCHECK --interval=10s --timeout=3s CMD test -S /run/arrayd/arrayd.sock || exit 1
ENTRYPOINT ["/usr/local/bin/arrayd-entrypoint"]
