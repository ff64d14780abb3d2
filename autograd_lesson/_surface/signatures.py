"""Every op's signatures, as PyTorch's native_functions.yaml writes them: the one table that
feeds the argument parser (``parser.parse``), as native_functions.yaml feeds PyTorch's
``PythonArgParser``.

An op's overloads are listed in the order PyTorch's parser tries them. ``Tensor self`` first
makes the signature a Tensor method too: the method's parser leaves ``self`` out (and ``out=``,
which no method takes); the ``torch.`` function's prints it as ``Tensor input``. A signature
without ``self`` is the function's only (``Tensor[] tensors``, ``Tensor repeats``).
Types: ``Tensor``, ``Tensor[]``, ``int``, ``int[]`` (a tuple or list of ints; alone, it also
takes the ints themselves: ``x.view(2, 3)``), ``int[1]`` (an int too), ``SymInt`` (read as
``int``), ``bool``, ``float``, ``Scalar`` (a number, or a 0-dim tensor that does not require
grad), ``ScalarType`` (a dtype); ``?`` allows None; ``*`` starts the keyword-only ones.
"""

_OUT = "*, Tensor? out=None"
_DTYPE = "*, ScalarType? dtype=None"
_DIMS = "int[1]? dim, bool keepdim=False, " + _DTYPE
_VAR = ("Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, " + _OUT,
        "Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, "
        "Tensor? out=None",
        "Tensor self, bool unbiased=True")
_UNARY = ("Tensor self, " + _OUT,)
_LIST = ("Tensor[] tensors, int dim=0, " + _OUT,)
_FACTORY = "*, ScalarType? dtype=None, Device? device=None, bool requires_grad=False"


SIGNATURES = {
    # -- elementwise ------------------------------------------------------------------------
    **{name: _UNARY for name in ("exp", "log", "tanh", "sigmoid", "sqrt", "abs", "neg",
                                 "square", "sin", "cos")},
    **{name: ("Tensor self",) for name in ("relu", "relu_", "t", "detach", "clone", "ravel",
                                           "is_floating_point")},
    **{name: ("Tensor self, Tensor other, " + _OUT, "Tensor self, Scalar other, " + _OUT)
       for name in ("eq", "ne", "lt", "le", "gt", "ge")},
    "maximum": ("Tensor self, Tensor other, " + _OUT,),
    "minimum": ("Tensor self, Tensor other, " + _OUT,),
    "where": ("Tensor condition",
              "Tensor condition, Tensor self, Tensor other, " + _OUT,
              "Tensor condition, Scalar self, Tensor other",
              "Tensor condition, Tensor self, Scalar other",
              "Tensor condition, Scalar self, Scalar other"),
    "result_type": ("Tensor tensor, Tensor other", "Scalar scalar, Tensor tensor",
                    "Tensor tensor, Scalar other", "Scalar scalar1, Scalar scalar2"),
    **{name: ("Tensor self, Tensor other",)
       for name in ("view_as", "reshape_as", "expand_as", "type_as")},
    "fill_": ("Tensor self, Tensor value", "Tensor self, Scalar value"),
    "requires_grad_": ("Tensor self, bool requires_grad=True",),
    "leaky_relu": ("Tensor self, Scalar negative_slope=0.01",),
    "leaky_relu_": ("Tensor self, Scalar negative_slope=0.01",),
    # -- reductions ---------------------------------------------------------------------------
    "sum": ("Tensor self, " + _DTYPE, f"Tensor self, {_DIMS}, Tensor? out=None"),
    "mean": (f"Tensor self, {_DTYPE}, Tensor? out=None", f"Tensor self, {_DIMS}, Tensor? out=None"),
    "prod": ("Tensor self, " + _DTYPE,
             f"Tensor self, int dim, bool keepdim=False, {_DTYPE}, Tensor? out=None"),
    "cumsum": (f"Tensor self, int dim, {_DTYPE}, Tensor? out=None",),
    # (amax(None) reduces every dim, as amax([]))
    **{name: ("Tensor self, int[1]? dim=[], bool keepdim=False, " + _OUT,)
       for name in ("amax", "amin")},
    **{name: ("Tensor self, int? dim=None, bool keepdim=False, " + _OUT,)
       for name in ("argmax", "argmin")},
    **{name: ("Tensor self, " + _OUT, "Tensor self, Tensor other, " + _OUT,
              "Tensor self, int dim, bool keepdim=False, *, Tensor[]? out=None")
       for name in ("max", "min")},
    **{name: ("Tensor self, " + _OUT, "Tensor self, int[1]? dim=None, bool keepdim=False, " + _OUT,
              "Tensor self, int dim, bool keepdim=False, " + _OUT)
       for name in ("all", "any")},
    "var": _VAR,
    "std": _VAR,
    # (torch functions only, without out=)
    **{name: tuple(s.replace("Tensor self", "Tensor input").replace(", " + _OUT, "")
                   .replace(", Tensor? out=None", "") for s in _VAR)
       for name in ("var_mean", "std_mean")},
    "aminmax": ("Tensor self, *, int? dim=None, bool keepdim=False, Tensor[]? out=None",),
    **{name: ("Tensor self", "Tensor self, int dim, bool keepdim=False, *, Tensor[]? out=None")
       for name in ("median", "nanmedian")},
    "linalg_vector_norm": ("Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, "
                           "*, ScalarType? dtype=None, Tensor? out=None",),
    # -- views --------------------------------------------------------------------------------
    "view": ("Tensor self, ScalarType dtype", "Tensor self, SymInt[] size"),
    "expand": ("Tensor self, SymInt[] size, *, bool implicit=False",),
    "reshape": ("Tensor self, SymInt[] shape",),
    "permute": ("Tensor self, int[] dims",),
    "squeeze": ("Tensor self", "Tensor self, int dim", "Tensor self, int[] dim"),
    "unsqueeze": ("Tensor self, int dim",),
    "transpose": ("Tensor self, int dim0, int dim1",),
    "swapdims": ("Tensor self, int dim0, int dim1",),
    "swapaxes": ("Tensor self, int axis0, int axis1",),
    "flatten": ("Tensor self, int start_dim=0, int end_dim=-1",),
    "unflatten": ("Tensor self, int dim, SymInt[] sizes",),
    "select": ("Tensor self, int dim, int index",),
    "narrow": ("Tensor self, int dim, Tensor start, int length",
               "Tensor self, int dim, int start, int length"),
    "chunk": ("Tensor self, int chunks, int dim=0",),
    "unbind": ("Tensor self, int dim=0",),
    "split": ("Tensor self, int split_size, int dim=0", "Tensor self, int[] split_size, int dim=0"),
    "split_with_sizes": ("Tensor self, int[] split_sizes, int dim=0",),
    **{name: ("Tensor self, int source, int destination",
              "Tensor self, int[] source, int[] destination") for name in ("movedim", "moveaxis")},
    # -- copies, joins, indexing ------------------------------------------------------------------
    "cat": _LIST, "stack": _LIST, "concat": _LIST, "concatenate": _LIST,
    **{name: ("Tensor[] tensors, " + _OUT,) for name in ("hstack", "vstack", "dstack")},
    "repeat": ("Tensor self, SymInt[] repeats",),
    "tile": ("Tensor self, SymInt[] dims",),
    "roll": ("Tensor self, SymInt[1] shifts, int[1]? dims=[]",),
    "repeat_interleave": (
        "Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None",
        "Tensor repeats, *, SymInt? output_size=None",
        "Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None"),
    "flip": ("Tensor self, int[] dims",),
    "masked_fill": ("Tensor self, Tensor mask, Tensor value",
                    "Tensor self, Tensor mask, Scalar value"),
    "masked_fill_": ("Tensor self, Tensor mask, Tensor value",
                     "Tensor self, Tensor mask, Scalar value"),
    "gather": ("Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor? out=None",),
    "index_select": ("Tensor self, int dim, Tensor index, " + _OUT,),
    # -- matrix products --------------------------------------------------------------------------
    "mm": ("Tensor self, Tensor mat2, " + _OUT,),
    "mv": ("Tensor self, Tensor vec, " + _OUT,),
    "dot": ("Tensor self, Tensor tensor, " + _OUT,),
    "bmm": ("Tensor self, Tensor mat2, " + _OUT,),
    "matmul": ("Tensor self, Tensor other, " + _OUT,),
    "addmm": ("Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
              "Tensor? out=None",
              "Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, "
              "Scalar alpha=1, Tensor? out=None"),
    # -- nn ---------------------------------------------------------------------------------------
    "linear": ("Tensor self, Tensor weight, Tensor? bias=None",),
    "softmax": ("Tensor self, int dim, ScalarType? dtype=None, " + _OUT,),
    "log_softmax": ("Tensor self, int dim, ScalarType? dtype=None, " + _OUT,),
    # (the ATen functions nn.functional's Python wrappers call, every argument by position)
    "dropout": ("Tensor self, float p, bool train",),
    "dropout_": ("Tensor self, float p, bool train",),
    "binary_cross_entropy_with_logits": ("Tensor self, Tensor target, Tensor? weight=None, "
                                         "Tensor? pos_weight=None, int reduction=1",),
    "nll_loss_nd": ("Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
                    "int ignore_index=-100",),
    "cross_entropy_loss": ("Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
                           "int ignore_index=-100, float label_smoothing=0.0",),
    # -- factories --------------------------------------------------------------------------------
    "full": ("SymInt[] size, Scalar fill_value, " + _FACTORY,),
    "new_full": ("Tensor self, SymInt[] size, Scalar fill_value, " + _FACTORY,),
    "full_like": ("Tensor self, Scalar fill_value, " + _FACTORY,),
}
