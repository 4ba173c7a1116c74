"""arrayd.linalg: numpy.linalg on the server (norm; products are in the
top-level namespace: ad.matmul, ad.dot, ...)."""
from arrayd._linalg import matmul, norm, outer, tensordot, vdot

__all__ = ["matmul", "norm", "outer", "tensordot", "vdot"]
