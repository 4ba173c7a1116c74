"""arrayd.linalg: numpy.linalg on the server. Solvers, decompositions and
norms (_decompositions.py) run on the server's LAPACK-backed ops; products
are also in the top-level namespace (ad.matmul, ad.dot, ...).

Layer: a public namespace, above the function modules it re-exports.
"""
from arrayd._decompositions import (EighResult, EigResult, LinAlgError,
                                    QRResult, SlogdetResult, SVDResult,
                                    cholesky, cond, det, diagonal, eig, eigh,
                                    eigvals, eigvalsh, inv, lstsq,
                                    matrix_norm, matrix_power, matrix_rank,
                                    matrix_transpose, multi_dot, norm, pinv,
                                    qr, slogdet, solve, svd, svdvals,
                                    tensorinv, tensorsolve, trace,
                                    vector_norm)
from arrayd._linalg import linalg_cross as cross
from arrayd._linalg import matmul, outer, tensordot, vdot, vecdot

__all__ = ["EigResult", "EighResult", "LinAlgError", "QRResult", "SVDResult",
           "SlogdetResult", "cholesky", "cond", "cross", "det", "diagonal",
           "eig", "eigh", "eigvals",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot",
           "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace",
           "vdot", "vecdot", "vector_norm"]
