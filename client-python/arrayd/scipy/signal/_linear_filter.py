"""The one linear recurrence of arrayd.scipy.signal: ``linear_filter``.

lfilter, filtfilt, sosfilt, sosfiltfilt and everything that filters an IIR
filter goes through ``linear_filter(b, a, x, zi)``, so that a server op
(a ``linear_filter`` kernel) can replace this file's composition by
changing that one function.

How it runs on the server without a loop over samples. The filter of
order n in SciPy's transposed direct form II is the state recurrence
``s[k+1] = A s[k] + B x[k]``, ``y[k] = C s[k] + D x[k]`` (A the n x n
companion matrix of a, C = e_0, D = b[0]). The signal is cut into blocks
of L samples (a batch of rows at once):

- within a block, the zero-state response is an FIR filter of the first L
  samples of the impulse response: one matmul of the blocks with an L x L
  lower-triangular Toeplitz matrix;
- a block's start state contributes ``C A^i s`` to its i-th output: one
  matmul with the L x n matrix of the rows ``C A^i``;
- the states at the block starts obey ``s_{b+1} = A^L s_b + u_b``, with
  ``u_b`` the block's inputs times the n x L matrix of ``A^(L-1-j) B``:
  the same recurrence on nb/L steps, solved the same way, blocks of
  blocks (the map from a super-block's inputs to its states is one
  block-triangular matrix of powers of A^L), until a handful of steps is
  left for a short loop of small matmuls.

The matrices are powers of A, computed on the host in float64 (or
complex128) from the coefficients; everything on the signal runs as
arrayd matmuls, pads and reshapes, in float64/complex128 whatever the
input's precision (the result is cast to SciPy's dtype at the end). The
work is about L + n multiply-adds a sample, exact up to rounding (no
truncated impulse response). This is used for orders 1 and 2 (every
section of sosfilt). Higher orders go by the cascade of their poles (see
linear_filter): the powers of a high-order companion matrix are far too
ill-conditioned. Measured against scipy.signal.lfilter: ~1e-15 of the
output's peak for ordinary sections, ~1e-10 for sections whose poles lie
within 1e-3 of z = 1 (butter(10, 0.002)), ~1e-10 for an order-6 transfer
function of a low cutoff (where SciPy's own error is ~2e-11); unstable
filters grow as SciPy's do. The server's ``lfilter`` kernel (server/ops/filters.cc) does the
recurrence in n multiply-adds a sample; linear_filter uses it up to its
order limit, and this composition beyond.

An FIR filter (a = [1]) is the direct convolution (sliding windows times
the taps), with zi added to the first outputs and the convolution's tail
as the final state.

Layer: a helper of the arrayd.scipy.signal namespace (imports arrayd's
public namespace).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

import arrayd as ad
from arrayd.lib.stride_tricks import sliding_window_view
from arrayd.scipy import _kernels as _k

# Samples a block (the Toeplitz matmul's side); block starts a super-block;
# steps left for the loop.
_BLOCK = 128
_SUPER = 32
_LOOP = 16
# Elements of the sliding-window matrix of an FIR filter at most one
# matmul (longer signals go in chunks).
_FIR_CHUNK = 1 << 24


def _state_space(b: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, ...]:
    """(A, B, C-row selector is e_0, D) of the transposed direct form II of
    b/a (a[0] == 1, both of length n + 1)."""
    n = len(a) - 1
    dt = np.result_type(b, a, np.float64)
    A = np.zeros((n, n), dt)
    A[:, 0] = -a[1:]
    A[np.arange(n - 1), np.arange(1, n)] = 1
    B = b[1:] - a[1:] * b[0]
    return A, B.astype(dt), b[0]


def _powers(M: np.ndarray, count: int) -> np.ndarray:
    """M^0 .. M^(count-1), stacked (host)."""
    out = np.empty((count,) + M.shape, M.dtype)
    out[0] = np.eye(M.shape[0], dtype=M.dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # unstable filters
        for k in range(1, count):
            out[k] = out[k - 1] @ M
    return out


def _scan(M: np.ndarray, U: ad.ndarray, s0: ad.ndarray) -> ad.ndarray:
    """States S[:, 0..nb] of s[k+1] = M s[k] + U[:, k] (rows are states,
    shape (batch, nb, n)) from s0 (batch, n): (batch, nb + 1, n)."""
    batch, nb, n = U.shape
    wdt = U.dtype
    if nb <= _LOOP:
        mt = ad.asarray(M.T.astype(wdt))
        states = [s0]
        for k in range(nb):
            states.append(ad.matmul(states[-1], mt) + U[:, k])
        return ad.stack(states, axis=1)
    L2 = _SUPER
    nc = -(-nb // L2)
    P = _powers(M, L2 + 1)
    # W: the states after j = 1..L2 inputs of a super-block from zero,
    # block (j-1, k) = M^(j-1-k) for k < j.
    W = np.zeros((L2, n, L2, n), M.dtype)
    for j in range(L2):
        for k in range(j + 1):
            W[j, :, k, :] = P[j - k]
    W = W.reshape(L2 * n, L2 * n)
    Q = P[1:].reshape(L2 * n, n)  # block j-1 = M^j
    Up = ad.pad(U, ((0, 0), (0, nc * L2 - nb), (0, 0)))
    local = ad.matmul(Up.reshape(batch, nc, L2 * n),
                      ad.asarray(W.T.astype(wdt)))
    V = local.reshape(batch, nc, L2, n)[:, :, L2 - 1, :]
    Sc = _scan(P[L2], V, s0)
    full = ad.matmul(Sc[:, :nc], ad.asarray(Q.T.astype(wdt))) + local
    rest = full.reshape(batch, nc * L2, n)[:, :nb]
    return ad.concatenate((s0[:, None, :], rest), axis=1)


def _fir(b: np.ndarray, x: ad.ndarray, zi: Optional[ad.ndarray]
         ) -> tuple[ad.ndarray, ad.ndarray]:
    """y and the final state of the FIR filter b on the rows of x."""
    batch, N = x.shape
    n = len(b) - 1
    taps = ad.asarray(b[::-1].astype(x.dtype))
    xp = ad.pad(x, ((0, 0), (n, n)))
    win = sliding_window_view(xp, n + 1, axis=1)  # (batch, N + n, n + 1)
    step = max(1, _FIR_CHUNK // max(1, batch * (n + 1)))
    parts = [ad.matmul(win[:, i:i + step], taps)
             for i in range(0, N + n, step)]
    full = parts[0] if len(parts) == 1 else ad.concatenate(parts, axis=1)
    y, zf = full[:, :N], full[:, N:]
    if zi is not None and n:
        ext = ad.pad(zi, ((0, 0), (0, N)))
        y = y + ext[:, :N]
        zf = zf + ext[:, N:]
    return y, zf


def _block(b: np.ndarray, a: np.ndarray, x: ad.ndarray, s0: ad.ndarray
           ) -> tuple[ad.ndarray, ad.ndarray]:
    """The block composition (module docstring) of b/a, len(a) > 1."""
    batch, N = x.shape
    wdt = x.dtype
    A, B, D = _state_space(b, a)
    L = min(N, _BLOCK)
    nb = -(-N // L)
    P = _powers(A, L + 1)
    PB = P @ B  # A^k B, (L + 1, n)
    h = np.concatenate(([D], PB[:L - 1, 0]))
    i = np.arange(L)
    lag = i[:, None] - i[None, :]
    T = np.where(lag >= 0, h[np.clip(lag, 0, None)], 0)
    G = PB[:L][::-1].T  # column j = A^(L-1-j) B
    Ob = P[:L, 0, :]  # row i = C A^i

    def cast(m: np.ndarray) -> ad.ndarray:
        return ad.asarray(np.ascontiguousarray(m).astype(wdt))

    X = ad.pad(x, ((0, 0), (0, nb * L - N))).reshape(batch, nb, L)
    U = ad.matmul(X, cast(G.T))
    S = _scan(P[L], U, s0)
    Y = ad.matmul(X, cast(T.T)) + ad.matmul(S[:, :nb], cast(Ob.T))
    y = Y.reshape(batch, nb * L)[:, :N]
    r = N - (nb - 1) * L
    if r == L:
        zf = S[:, nb]
    else:
        Gr = PB[:r][::-1].T
        zf = ad.matmul(S[:, nb - 1], cast(P[r].T)) + \
            ad.matmul(X[:, nb - 1, :r], cast(Gr.T))
    return y, zf


def _pole_sections(a: np.ndarray) -> list[np.ndarray]:
    """1/a as a cascade of denominators of order 2 (the last may be of
    order 1): conjugate poles together, so real a gives real sections."""
    a = np.trim_zeros(a, "b")
    p = np.roots(a)
    real = bool(np.isrealobj(a))
    if real:
        upper = p[p.imag > 0]
        upper = upper[np.argsort(-np.abs(upper))]
        lone = np.sort(p[p.imag == 0].real)
        groups = [np.array([q, np.conj(q)]) for q in upper]
        groups += [lone[i:i + 2] for i in range(0, len(lone), 2)]
    else:
        groups = [p[i:i + 2] for i in range(0, len(p), 2)]
    out = []
    for g in groups:
        c = np.poly(g)
        out.append(c.real if real else c)
    return out


def _tail_state(b: np.ndarray, a: np.ndarray, x: ad.ndarray, y: ad.ndarray,
                zi: Optional[ad.ndarray]) -> ad.ndarray:
    """The final state of the transposed direct form II from the last n
    inputs and outputs: z_i = sum_{j>i} b_j x[N+i-j] - a_j y[N+i-j] (and
    zi[i+N] while i + N < n)."""
    batch, N = x.shape
    n = len(a) - 1
    m = np.arange(n)[:, None]
    col = np.arange(n)[None, :]
    idx = n + col - m
    mask = m >= col
    Bm = np.where(mask, b[np.clip(idx, 0, n)], 0)
    Am = np.where(mask, a[np.clip(idx, 0, n)], 0)
    if N >= n:
        xt, yt = x[:, N - n:], y[:, N - n:]
    else:
        xt = ad.pad(x, ((0, 0), (n - N, 0)))
        yt = ad.pad(y, ((0, 0), (n - N, 0)))
    wdt = x.dtype
    zf = ad.matmul(xt, ad.asarray(Bm.astype(wdt))) - \
        ad.matmul(yt, ad.asarray(Am.astype(wdt)))
    if zi is not None and N < n:
        zf = zf + ad.pad(zi[:, N:], ((0, 0), (0, N)))
    return zf


def linear_filter(b: np.ndarray, a: np.ndarray, x: ad.ndarray,
                  zi: Optional[ad.ndarray]) -> tuple[ad.ndarray, ad.ndarray]:
    """The filter b/a (host 1-D arrays, a[0] == 1, of equal length n + 1)
    applied to each row of x (batch, N; float64 or complex128) from the
    states zi (batch, n; zeros when None): (y (batch, N), zf (batch, n)),
    both in x's dtype. scipy.signal.lfilter's transposed direct form II.

    The swap point for a server op: nothing else in the package computes
    a recurrence."""
    # The server's lfilter kernel (orders up to _k.MAX_LFILTER_ORDER); the
    # composition below is the fallback beyond.
    res = _k.lfilter(b, a, x, zi)
    if res is not None:
        return res
    batch, N = x.shape
    n = len(a) - 1
    wdt = x.dtype
    if n == 0:
        return x * b[0].item(), ad.zeros((batch, 0), wdt)
    if not np.any(a[1:]):
        return _fir(b, x, zi)
    if n <= 2:
        s0 = zi if zi is not None else ad.zeros((batch, n), wdt)
        return _block(b, a, x, s0)
    # Order > 2: the companion matrix's powers are ill-conditioned (their
    # entries grow far beyond the signal's), so the numerator runs as an
    # FIR filter, zi enters as an input (the free response of the state zi
    # is 1/a applied to zi followed by zeros), 1/a runs as a cascade of
    # sections of order 2 and the final state comes from the tails.
    w = _fir(b, x, None)[0]
    if zi is not None:
        w = w + (ad.pad(zi, ((0, 0), (0, N - n))) if N >= n else zi[:, :N])
    for sec in _pole_sections(a):
        one = np.zeros_like(sec)
        one[0] = 1
        w = _block(one, sec, w, ad.zeros((batch, len(sec) - 1), wdt))[0]
    return w, _tail_state(b, a, x, w, zi)


def convolve_rows(x: ad.ndarray, h: np.ndarray) -> ad.ndarray:
    """The full convolution of each row of x (batch, N) with the host taps
    h, directly (exact): (batch, N + len(h) - 1), in x's dtype."""
    y, tail = _fir(h, x, None)
    return ad.concatenate((y, tail), axis=1) if tail.shape[1] else y
