# arrayd server image.
#
#   docker build -t arrayd .                                   # CPU backend
#   docker build -t arrayd --build-arg BASE=nvidia/cuda:13.0.0-devel-ubuntu24.04 .
#   docker run --rm -p 7470:7470 arrayd                        # add --gpus all for CUDA
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
    && useradd --system --create-home arrayd
COPY --from=build /src/build/bin/arrayd /usr/local/bin/arrayd
USER arrayd
EXPOSE 7470
HEALTHCHECK CMD test -S /tmp/arrayd.sock || exit 1
ENTRYPOINT ["/usr/local/bin/arrayd", "--backend", "auto", "--listen", "0.0.0.0:7470", \
            "--listen", "unix:/tmp/arrayd.sock"]
