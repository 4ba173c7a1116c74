"""scipy.signal's linear time-invariant systems: the lti/dlti classes
(TransferFunction, ZerosPolesGain, StateSpace), their simulation and
responses (lsim, impulse, step, freqresp, bode and the discrete dlsim,
dimpulse, dstep, dfreqresp, dbode), cont2discrete, place_poles and
abcd_normalize.

What runs where. A system is a handful of coefficients, and the
responses here are of design size (a few hundred time or frequency
points), so all of it runs in SciPy on the host, as filter design does:
array arguments are downloaded, array results uploaded. Simulating a
long input (lsim/dlsim of a data-sized u) therefore downloads u: these
functions are not the tool for signal-sized filtering (lfilter and
sosfilt run on the server).

The classes mirror SciPy's hierarchy (``isinstance(s, dlti)``,
``TransferFunction(...)`` giving its discrete or continuous subclass),
each instance wrapping a SciPy system: attributes are read as arrayd
arrays, methods take and return arrayd arrays and systems.

Layer: a module of the arrayd.scipy.signal namespace (imports arrayd's
public namespace and the package's helpers).
"""
from __future__ import annotations

from typing import Any

import scipy.signal as _ss
from scipy.signal import _ltisys as _sl

from arrayd.scipy.signal import _arraytools as _at

_SCIPY_CLASSES = [
    "LinearTimeInvariant", "lti", "dlti", "TransferFunction",
    "ZerosPolesGain", "StateSpace", "TransferFunctionContinuous",
    "TransferFunctionDiscrete", "ZerosPolesGainContinuous",
    "ZerosPolesGainDiscrete", "StateSpaceContinuous",
    "StateSpaceDiscrete"]

# scipy class -> our mirror class.
_MIRROR: dict[type, type] = {}


def _wrap(sys: Any) -> Any:
    """A SciPy system as an instance of its mirror class."""
    obj = object.__new__(_MIRROR[type(sys)])
    object.__setattr__(obj, "_scipy_system", sys)
    return obj


def _down(obj: Any) -> Any:
    obj = getattr(obj, "_scipy_system", obj)
    return _at.to_host(obj)


def _up(obj: Any) -> Any:
    if type(obj) in _MIRROR:
        return _wrap(obj)
    if isinstance(obj, tuple):
        return tuple(_up(o) for o in obj)
    if isinstance(obj, list):
        return [_up(o) for o in obj]
    return _at.to_device(obj)


def _host_call(fn: Any, args: tuple, kwargs: dict) -> Any:
    args = tuple(_down(a) for a in args)
    kwargs = {k: _down(v) for k, v in kwargs.items()}
    return _up(fn(*args, **kwargs))


class _Mirror:
    """Base of the mirror classes: forwards to the wrapped SciPy system."""

    _scipy_class: type = object

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _host_call(cls._scipy_class, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(object.__getattribute__(self, "_scipy_system"),
                        name)
        if callable(value):
            def method(*args: Any, **kwargs: Any) -> Any:
                return _host_call(value, args, kwargs)
            method.__name__ = name
            return method
        return _up(value)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._scipy_system, name, _down(value))

    def __repr__(self) -> str:
        return repr(self._scipy_system)

    def __neg__(self) -> Any:
        return _up(-self._scipy_system)

    def __add__(self, other: Any) -> Any:
        return _up(self._scipy_system + _down(other))

    def __radd__(self, other: Any) -> Any:
        return _up(_down(other) + self._scipy_system)

    def __sub__(self, other: Any) -> Any:
        return _up(self._scipy_system - _down(other))

    def __rsub__(self, other: Any) -> Any:
        return _up(_down(other) - self._scipy_system)

    def __mul__(self, other: Any) -> Any:
        return _up(self._scipy_system * _down(other))

    def __rmul__(self, other: Any) -> Any:
        return _up(_down(other) * self._scipy_system)

    def __truediv__(self, other: Any) -> Any:
        return _up(self._scipy_system / _down(other))


def _build_mirrors() -> dict[str, type]:
    out: dict[str, type] = {}
    for name in _SCIPY_CLASSES:
        sc = getattr(_sl, name)
        bases = tuple(_MIRROR[b] for b in sc.__bases__ if b in _MIRROR)
        if not bases:
            bases = (_Mirror,)
        ns = {"_scipy_class": sc, "__module__": __name__,
              "__doc__": f"scipy.signal.{name} (the system's coefficients "
                         "on the host; attributes and results are arrayd "
                         "arrays)."}
        for attr in ("_z_to_zinv", "_zinv_to_z"):
            if attr in sc.__dict__:
                fn = getattr(sc, attr)
                ns[attr] = staticmethod(
                    lambda *a, _fn=fn, **k: _host_call(_fn, a, k))
        cls = type(name, bases, ns)
        _MIRROR[sc] = cls
        out[name] = cls
    return out


_CLASSES = _build_mirrors()
_at.register_host_type(_Mirror, lambda o: o._scipy_system)

LinearTimeInvariant = _CLASSES["LinearTimeInvariant"]
lti = _CLASSES["lti"]
dlti = _CLASSES["dlti"]
TransferFunction = _CLASSES["TransferFunction"]
ZerosPolesGain = _CLASSES["ZerosPolesGain"]
StateSpace = _CLASSES["StateSpace"]


def _host_function(name: str, text: str) -> Any:
    fn = getattr(_ss, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _host_call(fn, args, kwargs)

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = (f"scipy.signal.{name}: {text} (on the host; array "
                       "results are arrayd arrays).")
    return wrapper


_FUNCTIONS = {
    "lsim": "the response of a continuous system to an input",
    "impulse": "the impulse response of a continuous system",
    "step": "the step response of a continuous system",
    "freqresp": "the frequency response of a continuous system",
    "bode": "the Bode magnitude and phase of a continuous system",
    "dlsim": "the response of a discrete system to an input",
    "dimpulse": "the impulse response of a discrete system",
    "dstep": "the step response of a discrete system",
    "dfreqresp": "the frequency response of a discrete system",
    "dbode": "the Bode magnitude and phase of a discrete system",
    "cont2discrete": "a continuous system discretized",
    "place_poles": "state feedback gains placing the closed-loop poles",
    "abcd_normalize": "state-space matrices checked and made 2-D",
}

HOST = {name: _host_function(name, text)
        for name, text in _FUNCTIONS.items() if hasattr(_ss, name)}
HOST.update({n: c for n, c in _CLASSES.items()
             if n in ("lti", "dlti", "TransferFunction", "ZerosPolesGain",
                      "StateSpace")})
