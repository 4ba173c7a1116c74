#!/bin/sh
# Regenerates arrayd/_proto/arrayd/v1/arrayd_pb2.py from proto/arrayd/v1/arrayd.proto.
# grpcio-tools 1.62.3 is pinned on purpose: its gencode has no runtime-version
# check, so the generated module loads under protobuf 4.25 .. 6.x.
# Only message classes are generated (no _pb2_grpc stubs): the client calls the
# RPC methods by name, which avoids grpcio version checks too.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
out="$here/arrayd/_proto"
python -m grpc_tools.protoc -I "$repo/proto" --python_out="$out" \
  "$repo/proto/arrayd/v1/arrayd.proto"
# The generated module imports nothing of ours; the packages below only make
# arrayd._proto.arrayd.v1.arrayd_pb2 importable.
touch "$out/arrayd/__init__.py" "$out/arrayd/v1/__init__.py"
