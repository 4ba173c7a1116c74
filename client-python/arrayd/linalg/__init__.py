"""arrayd.linalg: numpy.linalg on the server. Solvers and decompositions
(_decompositions.py) run on the server's LAPACK-backed ops; products are
also in the top-level namespace (ad.matmul, ad.dot, ...)."""
from arrayd._decompositions import (EighResult, LinAlgError, QRResult,
                                    SlogdetResult, SVDResult, cholesky, det,
                                    eigh, eigvalsh, inv, lstsq, matrix_power,
                                    matrix_rank, pinv, qr, slogdet, solve, svd,
                                    svdvals)
from arrayd._linalg import matmul, norm, outer, tensordot, vdot

__all__ = ["EighResult", "LinAlgError", "QRResult", "SVDResult",
           "SlogdetResult", "cholesky", "det", "eigh", "eigvalsh", "inv",
           "lstsq", "matmul", "matrix_power", "matrix_rank", "norm", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
           "vdot"]
