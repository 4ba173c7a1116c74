"""arrayd.scipy.linalg: scipy.linalg on the server.

    from arrayd.scipy import linalg
    x = linalg.solve(a, b, assume_a="pos")
    e = linalg.expm(a)

SciPy's signatures, defaults, dtypes and errors over arrayd.linalg's
server ops (_basic: solvers, decompositions, norms), compositions of them
(_matfuncs: expm, bandwidth, the symmetry tests) and index computations
(_special_matrices: toeplitz, hankel, circulant, block_diag, ...).

Layer: a public namespace (imports arrayd's function modules).
"""
from __future__ import annotations

from arrayd.scipy.linalg._basic import (LinAlgError, cholesky, det, eig,
                                        eigh, eigvals, eigvalsh, inv, lstsq,
                                        norm, pinv, qr, solve, svd, svdvals)
from arrayd.scipy.linalg._decomp_lu import (cho_factor, cho_solve, lu,
                                            lu_factor, lu_solve,
                                            solve_triangular)
from arrayd.scipy.linalg._matfuncs import (bandwidth, expm, ishermitian,
                                           issymmetric)
from arrayd.scipy.linalg._special_matrices import (block_diag, circulant,
                                                   companion,
                                                   convolution_matrix, dft,
                                                   fiedler, hadamard, hankel,
                                                   helmert, hilbert,
                                                   khatri_rao, leslie,
                                                   toeplitz)

__all__ = ["LinAlgError", "bandwidth", "block_diag", "cho_factor",
           "cho_solve", "cholesky", "circulant", "lu", "lu_factor", "lu_solve",
           "solve_triangular",
           "companion", "convolution_matrix", "det", "dft", "eig", "eigh",
           "eigvals", "eigvalsh", "expm", "fiedler", "hadamard", "hankel",
           "helmert", "hilbert", "inv", "ishermitian", "issymmetric",
           "khatri_rao", "leslie", "lstsq", "norm", "pinv", "qr", "solve",
           "svd", "svdvals", "toeplitz"]
