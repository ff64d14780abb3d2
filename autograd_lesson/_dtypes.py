"""``dtype.is_floating_point``, ``is_complex``, ``is_signed`` on the package's dtypes.

The package's dtypes are NumPy's (``autograd_lesson.float32 is np.dtype("float32")``), whose
classes are immutable C types, so PyTorch's three dtype properties are written into those
classes' dictionaries directly (``itemsize`` NumPy already has, with PyTorch's values). Only
names NumPy does not define are added; where the interpreter does not allow it (not
CPython), the properties are simply missing.
"""
import ctypes
import gc

import numpy as np

PROPERTIES = {
    "is_floating_point": lambda dtype: dtype.kind == "f",
    "is_complex": lambda dtype: dtype.kind == "c",
    "is_signed": lambda dtype: dtype.kind in "fic",  # bool and uint8 are not
}


def add_properties(dtypes):
    for dtype in dtypes:
        cls = type(dtype)
        try:
            namespace = gc.get_referents(cls.__dict__)[0]  # the dict behind the mappingproxy
            for name, fn in PROPERTIES.items():
                if name not in namespace:
                    namespace[name] = property(fn)
            ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))
        except (AttributeError, IndexError, TypeError):  # pragma: no cover (not CPython)
            return


add_properties(np.dtype(t) for t in (np.float16, np.float32, np.float64, np.int8, np.int16,
                                     np.int32, np.int64, np.uint8, np.bool_, np.complex64,
                                     np.complex128))
