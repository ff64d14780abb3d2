"""The regions a large step-through is laid out in (viz/regions.py): a running box's inputs
and outputs are always laid out beside it, a hub does not pull in the whole graph, and the
frames share a region while their boxes stay in its core."""
from autograd_lesson.viz import regions


def _chain(n, hub=True):
    """n0 -> n1 -> ... -> n{n-1}, and (hub) every node also -> g0, as an unrolled cell's
    parameter box is reached from every step."""
    edges = [(i + 1, i) for i in range(n - 1)]
    plan = {}
    if hub:
        edges += [(i, n) for i in range(n)]
        plan = {n: 0}
    return regions.box_graph(edges, plan)


def test_a_core_boxs_neighbours_are_in_its_region_and_a_hub_does_not_extend_it():
    near = _chain(100)
    assert len(near["g0"]) == 100
    inner = regions.core(near, "n50")
    assert "g0" in inner and len(inner) <= regions.CORE_MAX
    assert inner <= {f"n{i}" for i in range(50 - regions.CORE_HOPS, 51 + regions.CORE_HOPS)
                     } | {"g0"}  # not n0..n99 through the hub
    names = regions.region(near, "n50", inner)
    for box in inner - {"g0"}:
        assert near[box] <= names
    assert len(names) < 20


def test_frames_share_a_region_while_their_boxes_stay_in_its_core():
    near = _chain(100)
    running = [f"n{i}" for i in range(99, -1, -1)] + ["g0"]
    of, names = regions.split(running, near)
    assert of[0] == of[1] == of[regions.CORE_HOPS] != of[regions.CORE_HOPS + 1]
    assert of == sorted(of) and len(names) < len(running) // 2
    assert len(names[of[-1]]) == 101  # the hub running: its 100 neighbours beside it
    for box, region in zip(running, of):
        assert box in names[region] and near[box] <= names[region]


def test_a_node_the_start_did_not_reach_stays_in_the_region_before_it():
    near = _chain(10, hub=False)
    of, names = regions.split(["n9", "n-1", "n8"], near)
    assert of == [0, 0, 0]
