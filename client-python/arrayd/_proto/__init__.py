"""Generated protobuf messages of the arrayd v1 protocol (see gen_proto.sh).

Import the messages as ``from arrayd._proto import pb``.
"""
from arrayd._proto.arrayd.v1 import arrayd_pb2 as pb

__all__ = ["pb"]
