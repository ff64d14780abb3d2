"""``retain_grad()`` and tensor hooks on a base and its views, then an in-place change of the view
or of the base, then a backward: which ``.grad`` each gets (the retained ones are compared by
``compare``), and what ``is_leaf``, ``retains_grad`` and ``grad_fn.name()`` say after it.

A statement makes its own leaf ``L``, a non-leaf base ``B`` and views ``V``/``W`` of it (names
suffixed so that two statements do not meet), or starts from a tensor the program made."""
from hypothesis import strategies as st

LEAF_DATA = ["[1., 2., 3.]", "[[1., 2.], [3., 4.]]", "[2.]", "[[1., -2., 0.5]]"]
BASES = ["{l} * 1", "{l}.clone()", "{l}.exp()", "{l} + 0", "{x} * 1", "{x}.clone()", "{l}"]
VIEWS = ["[:1]", "[0]", ".view(-1)", ".t()", ".unsqueeze(0)", "[...]", ".split(1)[0]",
         ".unbind()[0]", ".narrow(0, 0, 1)", ".squeeze()", ".transpose(0, -1)", ".detach()",
         ".select(0, -1)", ".reshape(-1)", "[1:]", ".flatten()"]
INPLACE = [".mul_(2)", ".add_(1)", ".zero_()", ".exp_()", ".relu_()", ".neg_()",
           ".copy_({l}.sum())", ".mul_({l}.sum())", ".add_({x})", ".sin_()", ".clamp_(0, 1)",
           ".fill_(3.)", "[0] = 5.", "[...] = {l}.sum()", ".detach_()", ".div_(2)"]
HOOKS = ["lambda g: g * 2", "lambda g: None", "lambda g: g + 1", "lambda g: g.sum()"]
LOSSES = ["{v}.sum()", "{b}.sum()", "({v}.sum() + {b}.sum())", "({b} * {b}).sum()",
          "({v} * 3).sum()", "({w}.sum() + {v}.sum())", "{l}.sum() + {b}.sum()"]


def _hook(t, hook):
    """``t.register_hook(hook)``, its grad_fn read first: torch 2.13 crashes (a segfault) when
    register_hook itself is the first to regenerate a view's grad_fn after an in-place change
    of its base or of another view of it (``t1 = t0 * 2; t2 = t1[0]; t1[1] = 0.;
    t2.register_hook(f)``)."""
    return f"{t}.grad_fn; h = {t}.register_hook({hook})"


def _node_name(t):
    return f"({t}.grad_fn.name() if {t}.grad_fn is not None else None)"


@st.composite
def retain_and_change(draw, names):
    k = f"{len(names)}{draw(st.integers(0, 9))}"
    l, b, v, w = f"L{k}", f"B{k}", f"V{k}", f"W{k}"
    x = draw(st.sampled_from(names))
    fmt = dict(l=l, b=b, v=v, w=w, x=x)
    lines = [f"{l} = lib.tensor({draw(st.sampled_from(LEAF_DATA))}, requires_grad=True)",
             f"{b} = " + draw(st.sampled_from(BASES)).format(**fmt),
             f"{v} = {b}{draw(st.sampled_from(VIEWS))}"]
    if draw(st.booleans()):
        lines.append(f"{w} = {b}{draw(st.sampled_from(VIEWS))}")
    else:
        lines.append(f"{w} = {v}{draw(st.sampled_from(VIEWS))}")  # a view of a view
    for _ in range(draw(st.integers(1, 4))):  # retain_grad and hooks, before or after
        t = draw(st.sampled_from([b, v, w, b, v]))
        if draw(st.booleans()):
            lines.append(f"{t}.retain_grad()")
        else:
            lines.append(_hook(t, draw(st.sampled_from(HOOKS))))
    for _ in range(draw(st.integers(1, 2))):
        t = draw(st.sampled_from([b, v, w, v]))
        op = draw(st.sampled_from(INPLACE)).format(**fmt)
        lines.append(f"{t}{op}")
        if draw(st.integers(0, 3)) == 0:
            t = draw(st.sampled_from([b, v, w]))
            lines.append(f"{t}.retain_grad()" if draw(st.booleans()) else
                         _hook(t, draw(st.sampled_from(HOOKS))))
    loss = draw(st.sampled_from(LOSSES)).format(**fmt)
    if draw(st.integers(0, 4)) == 0:
        lines.append(f"G{k} = lib.autograd.grad({loss}, [{draw(st.sampled_from([l, b, v]))}],"
                     f" allow_unused=True)")
    else:
        lines.append(f"({loss}).backward()")
    if draw(st.booleans()):
        lines.append(f"R{k} = ({b}.is_leaf, {v}.is_leaf, {w}.is_leaf, {b}.retains_grad, "
                     f"{v}.retains_grad, {w}.retains_grad)")
    if draw(st.booleans()):
        lines.append(f"N{k} = ({_node_name(b)}, {_node_name(v)}, {_node_name(w)})")
    if draw(st.integers(0, 3)) == 0:
        lines.append(f"D{k} = {draw(st.sampled_from([b, v, w]))}.grad")  # (the warning, too)
    if draw(st.integers(0, 3)) == 0:  # a second backward, through what is left
        lines.append(f"({draw(st.sampled_from(LOSSES)).format(**fmt)}).backward()")
    return lines


@st.composite
def unbind_hooks(draw, names):
    """PyTorch's test_grad_nonleaf_register_hook: a hook on one output of unbind, then a
    backward from each output in turn."""
    k = f"{len(names)}{draw(st.integers(0, 9))}"
    x, parts = f"L{k}", f"P{k}"
    split = draw(st.sampled_from([".unbind()", ".split(1)", ".chunk(3)", ".unbind(-1)"]))
    lines = [f"{x} = lib.tensor({draw(st.sampled_from(LEAF_DATA))}, requires_grad=True)",
             f"{parts} = {x}{split}"]
    i = draw(st.integers(0, 2))
    if draw(st.booleans()):
        lines.append(_hook(f"{parts}[{i}]", draw(st.sampled_from(HOOKS))))
    else:
        lines.append(f"{parts}[{i}].retain_grad()")
    for j in draw(st.lists(st.integers(0, 2), min_size=1, max_size=3)):
        lines.append(f"{parts}[{j}].sum().backward()")
    lines.append(f"R{k} = [p.retains_grad for p in {parts}]")
    return lines


STATEMENTS = [retain_and_change, retain_and_change, unbind_hooks]
