"""arrayd.cuda.compiler: the exceptions of CuPy's ``cupy.cuda.compiler``
that user kernels raise. Compiling is the server's (NVRTC, see
arrayd.RawModule); a CompileException carries the compiler's log.

Layer: a public namespace module below arrayd.cuda (imports _errors).
"""
from __future__ import annotations

from arrayd._errors import CompileException, JitifyException

__all__ = ["CompileException", "JitifyException"]
