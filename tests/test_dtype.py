"""``autograd_lesson.dtype`` (``autograd_lesson/_dtype.py``): the package's own dtype objects,
compared attribute by attribute with ``torch.dtype``; what ``Tensor.dtype`` gives after each
factory and promotion; the APIs that take ``dtype=``; and bad dtypes, with torch's errors."""
import copy
import pickle

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson import nn

NAMES = ["float16", "float32", "float64", "bfloat16", "complex32", "complex64", "complex128",
         "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"]
ALIASES = ["half", "float", "double", "chalf", "cfloat", "cdouble", "short", "int", "long"]
TENSOR_NAMES = [n for n in NAMES if n not in ("complex32", "bfloat16")]  # (not in NumPy)
# Not torch.dtype: strings, ints, NumPy's dtypes and scalar types, None; and the Python types
# torch takes (float -> float64, int -> int64, bool, complex -> complex128).
BAD = {"str": "float32", "int": 5, "np.float32": np.float32, "np.dtype": np.dtype("float32"),
       "np.int64": np.int64}
PYTHON_TYPES = {"float": float, "int": int, "bool": bool, "complex": complex}


def outcome(fn):
    """What a call gives: its result's dtype (or the result, printed) or its exception."""
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001 - the exception is what gets compared
        return type(exc).__name__, str(exc)
    return "ok", str(getattr(result, "dtype", result))


def attributes(d):
    return {"repr": repr(d), "str": str(d), "is_floating_point": d.is_floating_point,
            "is_complex": d.is_complex, "is_signed": d.is_signed, "itemsize": d.itemsize,
            "to_real": outcome(d.to_real), "to_complex": outcome(d.to_complex)}


# -- the dtype objects ----------------------------------------------------------------------

@pytest.mark.parity
@pytest.mark.parametrize("name", NAMES)
def test_every_attribute_of_every_dtype_matches_torch(torch, name):
    assert attributes(getattr(al, name)) == attributes(getattr(torch, name))
    assert type(getattr(al, name)) is al.dtype and isinstance(getattr(al, name), al.dtype)


@pytest.mark.parity
@pytest.mark.parametrize("alias", ALIASES)
def test_aliases_are_the_same_objects_as_in_torch(torch, alias):
    assert repr(getattr(al, alias)) == repr(getattr(torch, alias))
    assert getattr(al, alias) is getattr(al, repr(getattr(torch, alias))[len("torch."):])


@pytest.mark.parity
def test_equal_only_to_itself_and_hashable_as_in_torch(torch):
    for lib in (al, torch):
        dtypes = [getattr(lib, n) for n in NAMES]
        assert len(set(dtypes)) == len(NAMES) == len({d: i for i, d in enumerate(dtypes)})
        assert all(d == d and not d != d and hash(d) == hash(d) for d in dtypes)
        assert all((a == b) == (a is b) for a in dtypes for b in dtypes)
        others = [np.float32, np.dtype("float32"), "float32", "torch.float32", 4, None, float]
        assert not any(lib.float32 == o or o == lib.float32 for o in others)
        assert all(lib.float32 != o for o in others)


@pytest.mark.parity
def test_pickle_and_copy_give_the_same_object(torch):
    for lib in (al, torch):
        for name in NAMES:
            d = getattr(lib, name)
            assert pickle.loads(pickle.dumps(d)) is d
            assert copy.copy(d) is d and copy.deepcopy([d])[0] is d


@pytest.mark.parity
def test_dtype_cannot_be_constructed_nor_changed(torch):
    assert outcome(al.dtype) == outcome(torch.dtype)
    for lib in (al, torch):
        with pytest.raises(AttributeError):
            lib.float32.is_floating_point = False
        assert lib.float32.is_floating_point


def test_numpy_is_left_untouched():
    """The package's dtypes are its own objects: NumPy's types gain no attribute."""
    assert al.float32 is not np.dtype("float32") and al.float32 != np.dtype("float32")
    for name in ("is_floating_point", "is_complex", "is_signed", "to_real", "to_complex"):
        assert not hasattr(np.dtype("float32"), name), name
        assert not hasattr(np.float32, name), name


# -- Tensor.dtype after factories and promotion ------------------------------------------------

FACTORIES = {
    "tensor floats": lambda lib: lib.tensor([1.5, 2.0]),
    "tensor ints": lambda lib: lib.tensor([1, 2]),
    "tensor bools": lambda lib: lib.tensor([True, False]),
    "tensor complex": lambda lib: lib.tensor([1 + 2j]),
    "tensor scalar": lambda lib: lib.tensor(3.5),
    "tensor nested": lambda lib: lib.tensor([[1, 2], [3, 4]]),
    "zeros": lambda lib: lib.zeros(2, 3),
    "ones": lambda lib: lib.ones(2),
    "full int": lambda lib: lib.full((2,), 3),
    "full float": lambda lib: lib.full((2,), 3.0),
    "full bool": lambda lib: lib.full((2,), True),
    "full complex": lambda lib: lib.full((2,), 1j),
    "randn": lambda lib: lib.randn(2),
    "rand": lambda lib: lib.rand(2),
    "randint": lambda lib: lib.randint(0, 5, (3,)),
    "zeros_like int": lambda lib: lib.zeros_like(lib.tensor([1, 2])),
    "ones_like": lambda lib: lib.ones_like(lib.ones(2)),
    "randn_like": lambda lib: lib.randn_like(lib.ones(2, dtype=lib.float64)),
    "rand_like": lambda lib: lib.rand_like(lib.ones(2)),
    "arange int": lambda lib: lib.arange(3),
    "arange float": lambda lib: lib.arange(0, 1, 0.25),
    "linspace": lambda lib: lib.linspace(0, 1, 5),
    "eye": lambda lib: lib.eye(2),
    "as_tensor": lambda lib: lib.as_tensor([1, 2]),
    "Linear weight": lambda lib: lib.nn.Linear(2, 3).weight,
    "numel sum": lambda lib: lib.tensor([True, True]).sum(),
    "argmax": lambda lib: lib.tensor([1.0, 3.0]).argmax(),
    "comparison": lambda lib: lib.ones(2) < 2,
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_dtype_after_each_factory_matches_torch(torch, name):
    got, want = FACTORIES[name](al), FACTORIES[name](torch)
    assert repr(got.dtype) == repr(want.dtype) and type(got.dtype) is al.dtype


@pytest.mark.parity
@pytest.mark.parametrize("name", TENSOR_NAMES)
def test_dtype_of_numpy_arrays_matches_torch(torch, name):
    array = np.zeros(2, dtype=getattr(np, name if name != "bool" else "bool_"))
    for make in (lambda lib: lib.from_numpy(array), lambda lib: lib.tensor(array)):
        assert repr(make(al).dtype) == repr(make(torch).dtype)
    assert al.from_numpy(array).dtype is getattr(al, name)


PROMOTED = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
            "complex64", "complex128"]
SCALARS = [True, 2, 2.5, 1j]


@pytest.mark.parity
@pytest.mark.parametrize("a", PROMOTED)
def test_dtype_after_promotion_matches_torch(torch, a):
    """Binary ops of dimensioned tensors, 0-dim tensors and Python scalars, and promote_types
    and result_type, for every pair."""
    def run(lib):
        x = lib.zeros(2, dtype=getattr(lib, a))
        out = []
        for b in PROMOTED:
            if a == "float16" and "complex" in b:
                continue  # (torch gives complex32 for half with a 0-dim complex: NumPy has none)
            y, y0 = lib.zeros(2, dtype=getattr(lib, b)), lib.zeros((), dtype=getattr(lib, b))
            out += [outcome(lambda: x + y), outcome(lambda: x * y0),
                    outcome(lambda: lib.promote_types(getattr(lib, a), getattr(lib, b))),
                    outcome(lambda: lib.result_type(x, y0))]
        for s in SCALARS if a != "float16" else SCALARS[:-1]:
            out += [outcome(lambda: x + s), outcome(lambda: lib.result_type(x, s))]
        return out

    assert run(al) == run(torch)


@pytest.mark.parity
def test_promote_types_of_unsigned_and_python_types_matches_torch(torch):
    def run(lib):
        pairs = [(lib.uint64, lib.int64), (lib.uint16, lib.int8), (lib.uint16, lib.float32),
                 (lib.uint32, lib.uint32), (lib.float32, float), (int, lib.float16),
                 (bool, lib.uint8), (complex, lib.float32), (lib.complex32, lib.float32),
                 (lib.complex32, lib.int64), (lib.float16, lib.complex32), ("float32", lib.int8),
                 (lib.int8, np.float32), (None, lib.int8)]
        return [outcome(lambda: lib.promote_types(a, b)) for a, b in pairs] + [
            outcome(lambda: lib.result_type(2, 2.5)), outcome(lambda: lib.result_type(True, 2)),
            outcome(lambda: lib.result_type("a", lib.ones(1))).__getitem__(1).splitlines()[0]]

    assert run(al) == run(torch)


# -- the APIs that take a dtype -----------------------------------------------------------------

def dtype_calls(lib):
    x = lib.ones(2, requires_grad=True)
    return {
        "tensor": lambda d: lib.tensor([1.0, 2.0], dtype=d),
        "as_tensor": lambda d: lib.as_tensor([1.0], dtype=d),
        "as_tensor of a tensor": lambda d: lib.as_tensor(x.detach(), dtype=d),
        "zeros": lambda d: lib.zeros(2, dtype=d),
        "ones": lambda d: lib.ones(2, dtype=d),
        "full": lambda d: lib.full((2,), 1, dtype=d),
        "randn": lambda d: lib.randn(2, dtype=d),
        "rand": lambda d: lib.rand(2, 3, dtype=d),
        "randint": lambda d: lib.randint(0, 3, (2,), dtype=d),
        "zeros_like": lambda d: lib.zeros_like(x, dtype=d),
        "ones_like": lambda d: lib.ones_like(x, dtype=d),
        "randn_like": lambda d: lib.randn_like(x, dtype=d),
        "rand_like": lambda d: lib.rand_like(x, dtype=d),
        "arange": lambda d: lib.arange(3, dtype=d),
        "arange float": lambda d: lib.arange(0.0, 1.0, 0.5, dtype=d),
        "linspace": lambda d: lib.linspace(0.0, 1.0, 3, dtype=d),
        "eye": lambda d: lib.eye(2, dtype=d),
        "eye n m": lambda d: lib.eye(2, 3, dtype=d),
        "to": lambda d: x.to(d),
        "to dtype=": lambda d: x.to(dtype=d),
        "to cpu dtype": lambda d: x.to("cpu", d),
        "to device string": lambda d: x.to(str(d).replace("torch.", "")),
        "to tensor": lambda d: x.to(lib.zeros(1, dtype=d)),
        "type": lambda d: x.type(d),
        "sum": lambda d: x.detach().sum(dtype=d),
        "sum dim": lambda d: x.detach().sum(0, dtype=d),
        "torch.sum": lambda d: lib.sum(x.detach(), dtype=d),
        "softmax": lambda d: x.softmax(0, dtype=d),
        "torch.softmax": lambda d: lib.softmax(x, 0, dtype=d),
        "F.softmax": lambda d: lib.nn.functional.softmax(x, 0, dtype=d),
        "log_softmax": lambda d: x.log_softmax(0, dtype=d),
        "F.log_softmax": lambda d: lib.nn.functional.log_softmax(x, 0, dtype=d),
        "Linear": lambda d: lib.nn.Linear(2, 2, dtype=d).weight,
        "RNNCell": lambda d: lib.nn.RNNCell(2, 2, dtype=d).weight_hh,
        "Module.to": lambda d: lib.nn.Linear(2, 2).to(d).weight,
        "finfo": lambda d: lib.finfo(d),
        "iinfo": lambda d: lib.iinfo(d),
        "promote_types": lambda d: lib.promote_types(lib.float16, d),
        "is_floating_point": lambda d: lib.is_floating_point(d),
    }


# Not compared: the package does not differentiate complex values (a tensor that requires grad
# can't become complex); torch's arange casts a float step to the int dtype (0.5 -> 0)
SKIP = {(api, c) for c in ("complex64", "complex128", "complex") for api in (
    "to", "to dtype=", "to cpu dtype", "to tensor", "type", "Linear", "RNNCell", "Module.to")}
SKIP |= {("arange float", "int64"), ("arange float", "int"), ("arange float", "int8"),
         ("arange float", "int16"), ("arange float", "int32"), ("arange float", "uint8")}


@pytest.mark.parity
@pytest.mark.parametrize("api", sorted(dtype_calls(al)))
def test_every_dtype_api_matches_torch(torch, api):
    """Each package dtype (and Python's float/int/bool/complex) gives torch's result dtype or
    exception; strings, ints, NumPy dtypes and NumPy types get torch's TypeError, word for word."""
    def run(lib):
        call = dtype_calls(lib)[api]
        values = {n: getattr(lib, n) for n in TENSOR_NAMES if n not in ("uint16", "uint32", "uint64")}
        values.update(PYTHON_TYPES)
        values.update(BAD)
        return {name: outcome(lambda: call(d)) for name, d in values.items() if (api, name) not in SKIP}

    got, want = run(al), run(torch)
    assert {k: v for k, v in got.items() if v != want[k]} == {}


@pytest.mark.parity
def test_softmax_and_sum_with_dtype_build_torchs_graph(torch):
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        out = []
        for y in (x.softmax(0, dtype=lib.float64), x.softmax(0, dtype=lib.float32),
                  x.log_softmax(0, dtype=lib.float64), x.sum(dtype=lib.float64),
                  x.sum(0, dtype=lib.float64), x.to(lib.float64), x.type(lib.float64)):
            fn = y.grad_fn
            out.append((repr(y.dtype), type(fn).__name__,
                        [type(f).__name__ for f, _ in fn.next_functions]))
        (x.sum(dtype=lib.float64) * 2).backward()
        return out, repr(x.grad.dtype), x.grad.tolist()

    assert run(al) == run(torch)


@pytest.mark.parity
def test_type_and_legacy_names_match_torch(torch):
    def run(lib):
        x = lib.ones(2)
        names = [x.to(getattr(lib, n)).type() for n in TENSOR_NAMES]
        calls = [lambda: x.type("torch.DoubleTensor"), lambda: x.type("torch.BoolTensor"),
                 lambda: x.type(lib.float32) is x, lambda: x.type("torch.FloatTensor") is x,
                 lambda: x.type("float32"), lambda: x.type(np.dtype("float32"))]
        return names, [outcome(c) for c in calls]

    assert run(al) == run(torch)


@pytest.mark.parity
@pytest.mark.parametrize("name", TENSOR_NAMES)
def test_finfo_and_iinfo_match_torch(torch, name):
    def run(lib):
        d = getattr(lib, name)
        info = lib.finfo(d) if d.is_floating_point or d.is_complex else (
            None if d is lib.bool else lib.iinfo(d))
        if info is None:
            return outcome(lambda: lib.iinfo(d))
        fields = ("bits", "dtype", "eps", "max", "min", "resolution", "smallest_normal", "tiny")
        return repr(info), {f: getattr(info, f) for f in fields if hasattr(info, f)}

    assert run(al) == run(torch)


@pytest.mark.parity
def test_default_dtype_matches_torch(torch):
    for lib in (al, torch):
        assert repr(lib.get_default_dtype()) == "torch.float32"
        lib.set_default_dtype(lib.float32)
        for bad in ("float32", lib.int64, np.float32, lib.complex64):
            with pytest.raises(TypeError, match="only floating-point types are supported as the "
                                                "default type"):
                lib.set_default_dtype(bad)
    with pytest.raises(NotImplementedError, match="float32 and float64 as the default dtype"):
        al.set_default_dtype(al.float16)  # (torch's float16 default makes complex32 tensors)
    assert al.get_default_dtype() is al.float32


DEFAULT_FLOAT64 = {
    "tensor floats": lambda lib: lib.tensor([1.5]),
    "tensor complex": lambda lib: lib.tensor([1j]),
    "full float": lambda lib: lib.full((1,), 2.0),
    "full complex": lambda lib: lib.full((1,), 2j),
    "zeros": lambda lib: lib.zeros(0),
    "zeros float32": lambda lib: lib.zeros(0, dtype=lib.float32),
    "ones float32": lambda lib: lib.ones(2, dtype=lib.float32),
    "randn": lambda lib: lib.randn(1).dtype,
    "rand": lambda lib: lib.rand(1).dtype,
    "arange float": lambda lib: lib.arange(0, 1, 0.5),
    "arange * float": lambda lib: lib.arange(3) * 1.5,
    "int / int": lambda lib: lib.ones(2).long() / 2,
    "exp of int": lambda lib: lib.ones(2).long().exp().dtype,
    "float32 0-dim * float": lambda lib: lib.tensor(1.5, dtype=lib.float32) * 2.5,
    "float32 + 0-dim": lambda lib: lib.tensor([1.5], dtype=lib.float32) + lib.tensor(2.5),
    "int + 0-dim": lambda lib: lib.ones(1).long() + lib.tensor(1.5),
    "float32 * 1j": lambda lib: lib.ones(1, dtype=lib.float32) * 1j,
    "Linear": lambda lib: lib.nn.Linear(1, 1).weight.dtype,
    "Parameter()": lambda lib: lib.nn.Parameter().dtype,
    "linspace": lambda lib: lib.linspace(0, 1, 2).dtype,
    "eye": lambda lib: lib.eye(1).dtype,
    "finfo()": lambda lib: lib.finfo(),
    "get_default_dtype": lambda lib: lib.get_default_dtype(),
    "result_type": lambda lib: lib.result_type(2, 2.5),
}


@pytest.mark.parity
def test_a_float64_default_dtype_matches_torch(torch):
    """``set_default_dtype(float64)``: Python floats become float64 and complex numbers
    complex128, in factories, in promotion and in printing, as in torch."""
    def run(lib):
        lib.set_default_dtype(lib.float64)
        try:
            return {name: repr(make(lib)) for name, make in DEFAULT_FLOAT64.items()}
        finally:
            lib.set_default_dtype(lib.float32)

    assert run(al) == run(torch)
    assert repr(al.tensor([1.5])) == "tensor([1.5000])" and al.get_default_dtype() is al.float32


@pytest.mark.parity
def test_optimizers_keep_each_parameters_dtype_as_torch(torch):
    def run(lib):
        w = lib.ones(2, dtype=lib.float64, requires_grad=True)
        out = []
        for opt in (lib.optim.SGD([w], lr=0.1, momentum=0.9), lib.optim.Adam([w], lr=0.1)):
            (w * w).sum().backward()
            opt.step()
            opt.zero_grad()
            out.append((repr(w.dtype), [repr(v.dtype) for state in opt.state.values()
                                        for k, v in sorted(state.items())
                                        if hasattr(v, "dtype") and k != "step"]))
        return out

    assert run(al) == run(torch)


def test_the_ops_read_numpy_dtypes_on_their_hot_path():
    """Tensor.dtype maps the array's NumPy dtype to the package object; the engine's metadata
    and saved buffers keep NumPy's (what the view and the ledgers print)."""
    x = al.ones(2, requires_grad=True)
    y = x * x
    assert y.grad_fn._input_metadata[0][1] is np.dtype("float32")
    assert y.grad_fn.saved_buffers()[0].dtype == np.float32
    assert al.float32 is al._dtype.FROM_NUMPY[np.dtype("float32")]


class _Written:  # a class written in Python: PyTorch's messages name it by its __name__ alone
    pass


@pytest.mark.parametrize("value", [_Written(), np.float64(1.0), np.ones(2), "x"],
                         ids=["python-class", "numpy-scalar", "ndarray", "str"])
@pytest.mark.parametrize("call", ["add", "view_as", "zeros_dtype", "set_grad_enabled",
                                  "set_detect_anomaly"])
def test_the_parsers_name_a_wrong_argument_type_as_torch(torch, call, value):
    """One typename (Python's tp_name, as torch's argument parser prints it) for every parser
    message: the ops', the factories', grad mode's and anomaly mode's."""
    calls = {"add": lambda lib: lib.add(lib.ones(2), value),
             "view_as": lambda lib: lib.ones(2).view_as(value),
             "zeros_dtype": lambda lib: lib.zeros(2, dtype=value),
             "set_grad_enabled": lambda lib: lib.set_grad_enabled(value),
             "set_detect_anomaly": lambda lib: lib.autograd.set_detect_anomaly(value)}
    outcomes = []
    for lib in (torch, al):
        try:
            calls[call](lib)
            outcomes.append("ran")  # (add takes a NumPy scalar as a number)
        except TypeError as error:
            outcomes.append(str(error))
    assert outcomes[1] == outcomes[0]

