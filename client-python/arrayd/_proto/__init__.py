"""Generated protobuf messages of the arrayd v1 protocol (see gen_proto.sh).

Import the messages as ``from arrayd._proto import pb``. Layer: the
bottom of the package; imports only protobuf.
"""
from arrayd._proto.arrayd.v1 import arrayd_pb2 as pb

__all__ = ["pb"]
