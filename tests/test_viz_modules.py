"""Module boxes (viz/modules.py): which module made which node, in both engines, with torch's own
forward hooks as the oracle; the four real models fold as the issue asks; each storage counted
once; the torch reader's buffer states under viz.watch; bad input in one line; nothing kept."""
import gc
import pathlib
import re
import sys
import weakref

import pytest

import autograd_lesson as al
from autograd_lesson import lesson, viz
from autograd_lesson.viz import modules
from autograd_lesson.viz.dot import compare, picture_dot

torch = pytest.importorskip("torch")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
import real_models  # noqa: E402
from torch_nodes import nodes_of  # noqa: E402


def _boxes(snap):
    """{box label: node count} from the text twin."""
    rows = modules.module_table(snap).splitlines()[1:]
    return {re.split(r"\s{2,}", r.strip())[0]: int(re.split(r"\s{2,}", r.strip())[1].split()[0])
            for r in rows if "nodes" in r and not r.strip().startswith("and ")}


@pytest.fixture(scope="module")
def real():
    """(snapshot with model=, loss) of each real model, its forward watched."""
    out = {}
    for name, build in real_models.MODELS.items():
        model, step = build()
        with viz.watch(model):
            loss = step()
        out[name] = (viz.take_snapshot([loss], {"loss": loss}, model=model), model, loss)
    return out


def test_real_models_fold_into_their_children(real):
    boxes = _boxes(real["resnet18"][0])
    assert boxes == {"stem · Sequential": 6, "layers.0 · Sequential": 26,
                     "layers.1 · Sequential": 31, "layers.2 · Sequential": 31,
                     "layers.3 · Sequential": 31, "fc · Linear": 4}
    boxes = _boxes(real["transformer"][0])
    assert list(boxes) == [f"layers.{i} · TransformerEncoderLayer" for i in range(6)]
    boxes = _boxes(real["gpt"][0])
    assert list(boxes) == ["tok · Embedding"] + [f"blocks.{i} · Block" for i in range(12)] + \
        ["ln · LayerNorm", "head · Linear"]
    assert len(set(list(boxes.values())[1:13])) == 1  # twelve alike blocks, alike boxes
    boxes = _boxes(real["lstm"][0])
    assert boxes == {"cell · LSTMCell ×100": 1504, "out · Linear": 4}


def test_every_node_of_a_real_model_is_boxed_or_outside_on_purpose(real):
    for name, (snap, model, loss) in real.items():
        chains = snap.modules.chains
        outside = [n.name for n in snap.nodes if chains[n.id] is None]
        # only the loss after the model (and the tensors the model was given) stay outside
        assert len(outside) <= 3, (name, outside)
        assert sum(_boxes(snap).values()) + len([c for c in chains if not c]) == len(snap.nodes)


def test_the_owner_is_torchs_own_forward_hook_answer():
    """Oracle: each leaf module's output node, as torch's forward hooks see it, is boxed in
    that very module (innermost), for every call of a ResNet-18."""
    from autograd_lesson.viz.torch_graphs import key, reachable
    model, step = real_models.resnet18()
    made = []

    def hook(name):  # (an empty Sequential shortcut gives its input back: it made nothing)
        return lambda module, args, output: output is args[0] or \
            made.append((name, key(output.grad_fn)))
    handles = [m.register_forward_hook(hook(n)) for n, m in model.named_modules()
               if not list(m.children()) and n]
    with viz.watch(model):
        loss = step()
    for h in handles:
        h.remove()
    snap = viz.take_snapshot([loss], {}, model=model)
    ids = {key(node): i for i, node in enumerate(reachable([loss])[0])}
    assert len(made) == 42  # every call of a leaf module that made a node
    for name, k in made:
        assert snap.modules.chains[ids[k]][-1][0] == name


def _small(lib):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Sequential(nn.Linear(4, 4), nn.ReLU()),
                          nn.Linear(4, 1))
    x = lib.randn(5, 3)
    with viz.watch(model):
        loss = model(x).pow(2).mean()
    return model, loss


def test_both_engines_box_the_same_nodes_the_same_way():
    texts, chains = [], []
    for lib in (al, torch):
        model, loss = _small(lib)
        snap = viz.take_snapshot([loss], {"loss": loss}, model=model, depth=2)
        texts.append(viz.ledger(snap) + "\n" + modules.module_table(snap))
        chains.append([tuple(n for n, _, _ in c) if c is not None else None
                       for c in snap.modules.chains])
    assert texts[0] == texts[1]
    assert chains[0] == chains[1]
    assert "2.0 · Linear" in texts[0] and "0 · Linear" in texts[0]


def test_package_module_hooks_behave_as_torchs():
    seen = {}
    for lib in (al, torch):
        layer = lib.nn.Linear(2, 2)
        calls = []
        pre = layer.register_forward_pre_hook(lambda m, args: calls.append("pre") or
                                              (args[0] + 1,))
        post = layer.register_forward_hook(lambda m, args, out: out * 2)
        hooked = layer(lib.ones(1, 2))
        pre.remove()
        post.remove()
        plain = layer(lib.ones(1, 2) + 1)
        seen[lib.__name__] = (calls, bool(((hooked - 2 * plain).abs() < 1e-6).all()))
    assert seen["autograd_lesson"] == seen["torch"] == (["pre"], True)


def test_each_storage_is_counted_once_in_boxes_and_groups(real):
    snap = real["lstm"][0]
    source = picture_dot(snap, snap, fold_level=2)
    for live in re.findall(r"([\d,]+) B saved here now", source):
        assert int(live.replace(",", "")) <= snap.total_bytes
    cell = [b for b in snap.buffers if snap.modules.chains[b.node_id] and
            snap.modules.chains[b.node_id][0][0] == "cell"]
    assert modules.storage_bytes(cell) == 99_968 and snap.total_bytes == 100_168
    assert sum(b.nbytes for b in cell) > 2 * snap.total_bytes  # slot by slot it was 2,262,160
    assert "99,968 B saved here now" in picture_dot(snap, snap, fold_level=2)


def test_the_modules_a_call_touched_open_first():
    nn = al.nn
    al.manual_seed(0)
    G, D = nn.Sequential(nn.Linear(2, 3), nn.Tanh()), nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())
    with viz.watch(G, D):
        fake = G(al.randn(4, 2))
        d_loss = D(fake.detach()).mean()
        g_loss = D(fake).mean()
    names = {"fake": fake, "d_loss": d_loss, "g_loss": g_loss}
    model = {"G": G, "D": D}
    before = viz.take_snapshot([d_loss, g_loss], names, model=model)
    rec = viz.record(lambda: d_loss.backward(), roots=[d_loss, g_loss], names=names)
    after = viz.take_snapshot([d_loss, g_loss], names, executed=rec.executed, model=model)
    first = modules.focus_sets(before, after, compare(before, after))[0]
    boxes = modules.boxes(after)
    opened = {boxes[i][0] for i in first if boxes[i] is not None}
    assert opened == {"D"}  # D's nodes drawn in full, G folded
    source = picture_dot(before, after, fold_level=1)
    assert re.search(r'subgraph cluster_m0 \{ label=<<TABLE[^>]*><TR><TD WIDTH="\d+" ALIGN="LEFT">'
                     r'D · Sequential ×2</TD>', source)  # its title as wide as a browser draws it
    assert "G · Sequential: " in source  # folded: d_loss.backward() never reached it


def test_depth_goes_deeper_and_repeated_alike_modules_roll_up(real):
    snap, model, loss = real["resnet18"]
    deeper = viz.take_snapshot([loss], {"loss": loss}, model=model, depth=2)
    assert "layers.0.1 · BasicBlock" in _boxes(deeper) and "stem.0 · Conv2d" in _boxes(deeper)
    gpt = real["gpt"][0]
    levels = modules.focus_sets(gpt, gpt, compare(gpt, gpt))
    _, groups = modules.fold_plan(gpt, levels[-1])
    assert "blocks.0–11 · Block ×12" in [key for key, _ in groups]


def _rnn(lib, watched):
    lib.manual_seed(0)
    cell = lib.nn.RNNCell(3, 4)
    xs, h = lib.randn(3, 2, 3), lib.zeros(2, 4)
    watching = viz.watch(cell) if watched else None
    if watching:
        watching.__enter__()
    for t in range(3):
        h = cell(xs[t], h)
        loss = h.pow(2).sum()
        loss.backward(retain_graph=True)
    if watching:
        watching.__exit__(None, None, None)
    return viz.ledger(viz.take_snapshot([loss], {"loss": loss, "h": h}))


def test_the_two_engines_tell_the_same_story_under_watch():
    ours = _rnn(al, True)
    assert "AddmmBackward0._saved_mat1" in ours and " alive" not in ours
    assert "retained" in ours
    assert _rnn(torch, True) == ours
    unwatched = _rnn(torch, False)
    rows = unwatched.split("unknown =")[0]
    assert " alive" not in rows and " retained" not in rows and rows.count("unknown") == 12
    assert "unknown = alive or retained: a backward may have run before the view watched" \
        in unwatched
    assert _rnn(al, False) == ours  # the package always knows


def test_watched_torch_buffers_read_alive_until_a_backward_runs():
    x = torch.randn(3, requires_grad=True)
    with viz.watch():
        loss = x.exp().sum()
    assert [b.state for b in viz.take_snapshot([loss], {}).buffers] == ["alive"]
    loss.backward(retain_graph=True)  # after the block: the node's hook still sees it
    assert [b.state for b in viz.take_snapshot([loss], {}).buffers] == ["retained"]


@pytest.mark.parametrize("lib", [al, torch], ids=["package", "torch"])
def test_bad_model_and_depth_get_one_line(lib, capsys):
    model, loss = _small(lib)
    lesson.show_graph("g", model=5, loss=loss)
    lesson.show_graph("g", model=model, depth=-1, loss=loss)
    other = lib.nn.Linear(3, 1)  # never watched: it made no node of this graph
    lesson.show_backward("loss.backward()", model=other, loss=loss)
    lesson.step_through("loss.backward()", model={"a": 1}, loss=loss)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4, lines
    assert lines[0] == "show_graph: model= takes an nn.Module (or a dict of them, such as " \
        "{'G': G, 'D': D}), got int"
    assert lines[1].startswith("show_graph: depth= counts module levels below the model")
    assert lines[2] == ("show_backward: no node of this graph was made by Linear under "
                        "viz.watch: run the forward inside `with lesson.watch(model):`")
    assert lines[3].startswith("step_through: model= takes an nn.Module")
    with pytest.raises(TypeError, match="^watch\\(\\): model= takes an nn.Module"):
        viz.watch("model")
    with pytest.raises(ValueError, match="^take_snapshot\\(\\): depth= counts"):
        viz.take_snapshot([loss], {}, model=model, depth=1.5)


@pytest.mark.parametrize("lib", [al, torch], ids=["package", "torch"])
def test_drawing_with_model_keeps_no_buffer_alive(lib):
    model, _ = _small(lib)
    x = lib.randn(5, 3)
    with viz.watch(model):
        hidden = model[1](model[0](x))
        loss = model[3](model[2](hidden)).sum()
    ref = weakref.ref(hidden)  # saved by the Tanh's backward (its result) and the next Linear
    names = {"loss": loss}
    lesson.show_backward(lambda: loss.backward(retain_graph=True), model=model, **names)
    lesson.step_through(lambda: loss.backward(), model=model, **names)
    del hidden, loss, names
    gc.collect()
    assert ref() is None
    from autograd_lesson.viz import live
    shown = live._live.pop("<lambda>", None)  # leave no widget for the next test to count
    if shown is not None:
        live.close(shown)


def test_a_box_counts_only_the_calls_that_made_its_nodes():
    al.manual_seed(0)
    cell = al.nn.RNNCell(3, 4)
    h = al.zeros(2, 4)
    with viz.watch(cell):
        for _ in range(3):
            h = cell(al.randn(2, 3), h)
        fresh = cell(al.randn(2, 3), al.zeros(2, 4))  # another graph: not counted below
    assert _boxes(viz.take_snapshot([h], {}, model={"rnn": cell})) == {"rnn · RNNCell ×3": 22}
    assert fresh.grad_fn is not None


def _torch_box_bytes(model, step):
    """Torch's own answer, per child of the model: the bytes of the distinct storages saved by
    the nodes that child's call made (reachable from its output, not from its input), read
    before the backward frees them."""
    seen = {}

    def hook(module, args, output):
        seen[module] = (args[0], output)
    children = dict(model.named_children())
    boxes = {f"layers.{i}": m for i, m in enumerate(model.layers)}
    boxes.update(stem=children["stem"], fc=children["fc"])
    handles = [m.register_forward_hook(hook) for m in boxes.values()]
    loss = step()
    for h in handles:
        h.remove()

    result = {}
    for name, module in boxes.items():
        given, made = seen[module]
        storages = {}
        for fn in nodes_of([made]) - nodes_of([given]):
            for attr in dir(fn):
                value = getattr(fn, attr) if attr.startswith("_saved_") else None
                if isinstance(value, torch.Tensor):
                    storage = value.untyped_storage()
                    storages[storage.data_ptr()] = storage.nbytes()
        result[name] = sum(storages.values())
    return result, loss


def test_module_boxes_tell_the_bytes_their_block_held_and_holds_as_torch_counts(monkeypatch):
    """Each box of ResNet-18's before/after says 'X B → 0 B saved here', X the distinct
    storages torch saved for that block (a storage two blocks save counts in both)."""
    model, step = real_models.resnet18()
    with viz.watch(model):
        expected, loss = _torch_box_bytes(model, step)
    assert all(expected.values()) and len(expected) == 6
    shown = []
    monkeypatch.setattr("autograd_lesson.lesson.showing.display", shown.append)
    monkeypatch.setattr("autograd_lesson.lesson.showing.display_boxes",  # (its depth buttons)
            lambda view, *args: shown.append(view))
    monkeypatch.setattr("builtins.print", lambda *a, **k: None)
    lesson.show_backward(lambda: loss.backward(), model=model, loss=loss)
    label = dict(re.findall(r"<B>([\w.]+) · \w+: \d+ nodes folded[^<]*</B>(?:<BR/>[^<]*)*?"
                            r"<BR/>([\d,]+) B → 0 B saved here", shown[0].source))
    assert {k: int(v.replace(",", "")) for k, v in label.items()} == expected


def test_a_step_through_with_model_shows_module_boxes_and_marks_the_one_running():
    """ResNet-18 stepped with model=: one box per child (not 131 nodes in one), the box the
    running node belongs to drawn as running now and the window around it."""
    from autograd_lesson.viz.steps import StepThrough
    model, step = real_models.resnet18()
    with viz.watch(model):
        loss = step()
    recording = viz.record(lambda: loss.backward(), roots=[loss], names={"loss": loss},
                           frames=True, model=model)
    steps = StepThrough(recording.frames)
    folded, groups = steps._layout(0, True)[0]
    assert [key for key, _ in groups] == [
        "stem · Sequential", "layers.0 · Sequential", "layers.1 · Sequential",
        "layers.2 · Sequential", "layers.3 · Sequential", "fc · Linear"]
    index = next(i for i, f in enumerate(steps.frames)
                 if f.node_id in folded and groups[folded[f.node_id]][0].startswith("layers.2"))
    box = f"g{folded[steps.frames[index].node_id]}"
    dot = steps.frame_dot(index)
    line = next(line for line in dot.splitlines() if line.startswith(f"  {box} ["))
    assert 'fillcolor="#f0a030"' in line and "shape=folder" in line  # running now
    assert sum('fillcolor="#f0a030"' in line for line in dot.splitlines()) == 1
    assert steps._running_box(index, True) == box


def test_a_box_says_depth_opens_it_only_when_a_child_module_made_its_nodes():
    """An RNNCell's box holds nodes the cell made itself: depth=2 would draw the same box, so
    it says fold=False draws them; a Sequential's box opens into its children."""
    from autograd_lesson.viz import dot

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = torch.nn.RNNCell(3, 4)
            self.head = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.ReLU())

        def forward(self, x):
            h = torch.zeros(1, 4)
            for _ in range(3):
                h = self.cell(x, h)
            return self.head(h).sum()

    torch.manual_seed(0)
    model = Model()
    with viz.watch(model):
        loss = model(torch.randn(1, 3))
    snap = viz.take_snapshot([loss], {"loss": loss}, model=model, depth=1)
    source = dot.picture_dot(snap, snap, plan=dot.fold_plan(snap, set(snap.roots)))
    boxes = {re.search(r"<B>(\w+) · ", line).group(1): line
             for line in source.splitlines() if "shape=folder" in line}
    assert set(boxes) == {"cell", "head"}
    assert "fold=False draws them" in boxes["cell"] and "depth=2" not in boxes["cell"]
    assert "depth=2 opens it, fold=False all" in boxes["head"]


def test_a_box_of_one_node_says_one_node():
    from autograd_lesson.viz import dot
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    with viz.watch(model):
        loss = model(torch.randn(4, 3)).sum()
    snap = viz.take_snapshot([loss], {"loss": loss}, model=model, depth=1)
    source = dot.picture_dot(snap, snap, plan=dot.fold_plan(snap, set(snap.roots)))
    assert "1 · ReLU: 1 node folded (none ran)" in source
    assert "0 · Linear: 4 nodes folded (none ran)" in source
