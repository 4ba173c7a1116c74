"""arrayd.cuda.driver: the driver API error CuPy's ``cupy.cuda.driver``
raises where arrayd's users meet it: loading a module (RawModule(path=) of
a missing or invalid file) and getting a kernel the module does not have
(``CUDA_ERROR_NOT_FOUND``). The driver itself is the server's.

Layer: a public namespace module below arrayd.cuda (imports _errors).
"""
from __future__ import annotations

from arrayd._errors import (CUDA_ERROR_FILE_NOT_FOUND,
                            CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_NOT_FOUND,
                            CUDADriverError)

__all__ = ["CUDADriverError", "CUDA_ERROR_FILE_NOT_FOUND",
           "CUDA_ERROR_INVALID_IMAGE", "CUDA_ERROR_NOT_FOUND"]
