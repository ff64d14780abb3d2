"""``gradcheck`` and ``gradgradcheck``: a backward checked against finite differences, as
PyTorch 2.13's slow mode (``fast_mode=False``, its default) does it for real inputs.

For each input that requires grad and each of its elements, the function runs twice, with the
element moved by -eps and +eps in place (as PyTorch writes through ``input.data``, so the
version counter does not change); ``(f(x + eps) - f(x - eps)) / (2 eps)`` is a column of the
numerical Jacobian. The analytical one comes row by row from ``autograd.grad`` with a one-hot
gradient per output element, computed twice (a backward must give the same values again).
They must agree to ``|a - n| <= atol + rtol |n|``; the message prints both Jacobians, of
shape (input elements, output elements). Then a zero gradient must give zero gradients
("backward not multiplied by grad_output"), and undefined gradients (``None``) must give
undefined or zero ones.

``gradgradcheck`` runs ``gradcheck`` on the function ``(inputs, grad_outputs) -> autograd.grad
(func(inputs), inputs, grad_outputs, create_graph=True)``; its random ``grad_outputs`` come
from this package's generator (``manual_seed``), so they are not PyTorch's numbers.
"""
import warnings

import numpy as np

from .. import _random
from .._node import Node
from .._tensor import Tensor


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""
UNDEFINED_NOTE = 'Please look at "Notes about undefined output gradients" in ' \
                 '"tools/autograd/derivatives.yaml"'


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _iter_tensors(x, only_requiring_grad=False):
    if isinstance(x, Tensor):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, (list, tuple)):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _is_float(t):
    return isinstance(t, Tensor) and t._data.dtype.kind == "f"


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _check_inputs(tupled_inputs):
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp._data.dtype.kind == "c":
                raise NotImplementedError("autograd_lesson's gradcheck takes real inputs only")
            if inp._data.dtype != np.float64:
                warnings.warn(f"Input #{idx} requires gradient and is not a double precision "
                              f"floating point or complex. This check will likely fail if all "
                              f"the inputs are not of double precision floating point or "
                              f"complex. ", stacklevel=2)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")


def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx=None):
    on_index = f"on index {idx} " if idx is not None else ""
    if output1.shape != output2.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs "
                             f"are perturbed {on_index}by {eps}, but got: shapes "
                             f"{output1.shape} and {output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs "
                             f"are perturbed {on_index}by {eps}, but got: dtypes "
                             f"{output1.dtype} and {output2.dtype}.")


# -- the numerical Jacobian ---------------------------------------------------------------------
def _numerical_jacobian(fn, inputs, outputs, eps):
    """Per input that requires grad, per float output: an (input numel, output numel) tensor."""
    jacobians = []
    for inp in (a for a in inputs if isinstance(a, Tensor) and a.requires_grad):
        memory = inp._data  # (PyTorch's input.data: the values change, the version does not)
        columns = []
        for idx in np.ndindex(*memory.shape):
            orig = memory.dtype.type(memory[idx])
            memory[idx] = orig - memory.dtype.type(eps)
            outa = [o.clone() for o in _as_tuple(fn(*inputs))]
            memory[idx] = orig + memory.dtype.type(eps)
            outb = [o.clone() for o in _as_tuple(fn(*inputs))]
            memory[idx] = orig
            column = []
            for a, b in zip(outa, outb):
                _check_outputs_same_dtype_and_shape(a, b, eps, idx)
                column.append((b._data - a._data) / (2 * eps))
            columns.append(column)
        jacobians.append(tuple(
            Tensor._make(np.stack([c[i].reshape(-1) for c in columns]).astype(o._data.dtype)
                         if columns else np.zeros((0, o.numel()), dtype=o._data.dtype))
            for i, o in enumerate(outputs) if _is_float(o)))
    return jacobians


# -- the analytical Jacobian --------------------------------------------------------------------
def _analytical_rows(inputs, output):
    """Row j of each input's Jacobian: ``autograd.grad(output, inputs, e_j)``."""
    from . import grad
    diff_inputs = list(_iter_tensors(inputs, True))
    rows = [[] for _ in diff_inputs]
    for j in range(output.numel()):
        one_hot = np.zeros(output.shape, dtype=output._data.dtype)
        one_hot.reshape(-1)[j] = 1.0
        grads = grad(output, diff_inputs, Tensor._make(one_hot), retain_graph=True,
                     allow_unused=True)
        for i, d_x in enumerate(grads):
            rows[i].append(d_x.clone() if isinstance(d_x, Tensor) else None)
    return rows


def _stack_and_check(rows, inputs, numel_output):
    jacobians, sizes_ok, types_ok = [], True, True
    for inp, row in zip(_iter_tensors(inputs, True), rows):
        jacobian = np.zeros((inp.numel(), numel_output), dtype=inp._data.dtype)
        for j, tensor in enumerate(row):
            if tensor is not None and tensor.shape != inp.shape:
                sizes_ok = False
            elif tensor is not None and tensor.dtype != inp.dtype:
                types_ok = False
            if tensor is not None:
                jacobian[:, j] = tensor._data.reshape(-1)
        jacobians.append(Tensor._make(jacobian))
    return jacobians, sizes_ok, types_ok


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    jacobians1, types_ok, sizes_ok = _stack_and_check(_analytical_rows(inputs, output), inputs,
                                                      output.numel())
    # (PyTorch's names for the two flags are swapped: a size mismatch reads as a dtype one)
    jacobians2, _, _ = _stack_and_check(_analytical_rows(inputs, output), inputs, output.numel())
    reentrant = all(j1.numel() == 0 or np.abs(j1._data - j2._data).max() <= nondet_tol
                    for j1, j2 in zip(jacobians1, jacobians2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + FAILED_NONDET_MSG)
    return jacobians1


def _allclose(a, n, rtol, atol):
    dtype = np.promote_types(a._data.dtype, n._data.dtype)
    return bool(np.allclose(a._data.astype(dtype), n._data.astype(dtype), rtol, atol))


def _notallclose_msg(analytical, numerical, output_idx, input_idx):
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                    nondet_tol):
    func_out = _as_tuple(func_out)
    if not outputs:  # nothing differentiable: the function must not depend on the inputs
        for per_input in _numerical_jacobian(func, inputs, func_out, eps):
            if any(np.any(j._data != 0) for j in per_input):
                raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = list(zip(*_numerical_jacobian(func, inputs, func_out, eps)))
    numerical = [nj for o, nj in zip(func_out, numerical) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j))
    return True


# -- the two extra checks -----------------------------------------------------------------------
def _zeros_like(o):
    return Tensor._make(np.zeros(o.shape, dtype=o._data.dtype))


def _test_backward_mul_by_grad_output(outputs, inputs):
    from . import grad
    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads = grad(outputs, diff_inputs, [_zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if not np.all(gi._data == 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.shape != di.shape:
            raise GradcheckError("grad is incorrect size")
    return True


class UndefinedGradBackward(Node):
    """PyTorch's node behind ``UndefinedGrad()(t)``: it passes no gradient on (``None``)."""

    __getattr__ = Node._lookup_saved

    def name(self):
        return "torch::autograd::UndefinedGradBackward"

    def _backward(self, grad_outputs):
        return [None] * len(self.next_functions)


def _undefined_grad(t):
    """``torch._C._functions.UndefinedGrad()(t)``: an alias of t whose gradient is undefined."""
    node = UndefinedGradBackward()
    node.next_functions = (t._gradient_edge(),)
    node._input_metadata = ((t._data.shape, t._data.dtype),)
    return Tensor._make(t._data, requires_grad=True, grad_fn=node, storage=t._storage)


def _test_undefined_backward_mode(func, outputs, inputs):
    from . import grad
    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking():
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature "
                      "is enabled by default, but it may break existing callers of this "
                      "function. If this is true for you, you can call this function with "
                      "\"check_undefined_grad=False\" to disable the feature", stacklevel=2)

    def check_undefined_grad_support(output_to_check):
        try:
            grads = grad(output_to_check, diff_inputs, [_zeros_like(o) for o in output_to_check],
                         allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError("Expected backward function to handle undefined output grads. "
                                 + UNDEFINED_NOTE) from e
        for gi in grads:
            if gi is not None and not np.all(gi._data == 0):
                warn_bc_breaking()
                raise GradcheckError("Expected all input grads to be undefined or zero when all "
                                     "output grads are undefined or zero. " + UNDEFINED_NOTE)
        return True

    outputs_to_check = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))]]
    if len(outputs_to_check[0]) > 1:  # and each output's gradient undefined on its own
        for undef_grad_idx in range(len(outputs)):
            output_to_check = _differentiable_outputs(func(*inputs))
            outputs_to_check.append([_undefined_grad(o) if idx == undef_grad_idx else o
                                     for idx, o in enumerate(output_to_check)])
    return all(check_undefined_grad_support(output) for output in outputs_to_check)


def _not_here(flag):
    raise NotImplementedError(f"autograd_lesson's gradcheck has no {flag} (PyTorch's vmap, "
                              f"forward AD and fast mode are not in this package): leave it out")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """True if the backward of ``func`` at ``inputs`` agrees with finite differences; else a
    :class:`GradcheckError` saying where (or False, with ``raise_exception=False``)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to "
                             "be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad "
                             "to be True")
    for flag, value in (("check_batched_grad", check_batched_grad), ("fast_mode", fast_mode),
                        ("check_forward_ad", check_forward_ad), ("masked", masked)):
        if value:
            _not_here(flag)
    try:
        tupled_inputs = _as_tuple(inputs)
        _check_inputs(tupled_inputs)
        func_out = func(*tupled_inputs)
        outputs = _differentiable_outputs(func_out)
        if check_backward_ad:
            _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol,
                            check_grad_dtypes, nondet_tol)
            _test_backward_mul_by_grad_output(outputs, tupled_inputs)
            if check_undefined_grad:
                _test_undefined_backward_mode(func, outputs, tupled_inputs)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """``gradcheck`` of the gradient itself: checks the second derivatives of ``func``."""
    from . import grad
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev "
                             "to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be "
                             "True")
    if gen_non_contig_grad_outputs:
        _not_here("gen_non_contig_grad_outputs")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:  # random, in [-1, 1), of each differentiable output's shape
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            Tensor._make(_random.generator().uniform(-1, 1, x.shape).astype(
                x._data.dtype if _is_float(x) else np.float64), requires_grad=True)
            for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_args_indices = {i for i, x in enumerate(tupled_inputs)
                               if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_args_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                             for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args)
                                if i in diff_input_args_indices)
        grad_inputs = grad(outputs, diff_input_args, grad_outputs, create_graph=True,
                           allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]
