"""The regions a large step-through is laid out in, one ``dot`` run each, instead of one
layout of the whole folded graph before the first frame (the unrolled LSTM's 503 boxes:
0.4-1.4 s of ``dot``, 4-15 backwards, for a first frame that shows a dozen of them).

A region is anchored at a frame's running box: its *core* is the boxes a few edges away (not
through a hub: a parameter or folded box with dozens of edges would bring in the whole graph),
and the region is the core and every neighbour of a core box, so whichever core box runs, its
inputs and outputs are laid out beside it. The frames that follow share the region while their
running box stays in its core; the first frame whose box leaves it anchors the next region.
The split depends on the frames alone (not on the order the slider visits them), so a frame
is always drawn in the same region and the same picture.
"""
from collections import defaultdict, deque

CORE_HOPS = 3  # how far from the anchor a running box may be and still share its layout
CORE_MAX = 24  # ... and how many boxes at most (a window shows about a dozen)
HUB_EDGES = 6  # a box with more edges than this joins a region but does not extend it


def box_graph(edges, plan):
    """Box name -> the names of the boxes it shares an edge with (either way), for the
    node-to-node ``edges`` folded by ``plan`` (node id -> group index)."""
    near = defaultdict(set)
    for src, dst in edges:
        a = f"g{plan[src]}" if src in plan else f"n{src}"
        b = f"g{plan[dst]}" if dst in plan else f"n{dst}"
        if a != b:
            near[a].add(b)
            near[b].add(a)
    return near


def core(near, anchor):
    """The boxes at most CORE_HOPS edges from ``anchor`` (CORE_MAX at most, nearest first),
    not reached through a hub."""
    found, queue = {anchor: 0}, deque([anchor])
    while queue and len(found) < CORE_MAX:
        box = queue.popleft()
        if found[box] == CORE_HOPS or (box != anchor and len(near[box]) > HUB_EDGES):
            continue
        for other in sorted(near[box]):
            if other not in found and len(found) < CORE_MAX:
                found[other] = found[box] + 1
                queue.append(other)
    return set(found)


def region(near, anchor, inner):
    """The core ``inner`` and the neighbours of its boxes (of a hub's, only the anchor's)."""
    names = set(inner)
    for box in inner:
        if box == anchor or len(near[box]) <= HUB_EDGES:
            names.update(near[box])
    return names


def split(running, near):
    """For the running boxes of a backward's frames in order: (region index of each frame,
    [region names per region]). A frame shares the region before it while its box is in that
    region's core and its own neighbours are in the region (a hub's are: only as the anchor)."""
    of, regions, inner, anchor = [], [], set(), None
    for box in running:
        if box not in near and regions:  # a node the start did not reach: stay where it is
            of.append(len(regions) - 1)
            continue
        if box not in inner or (box != anchor and len(near[box]) > HUB_EDGES):
            anchor, inner = box, core(near, box)
            regions.append(region(near, box, inner))
        of.append(len(regions) - 1)
    return of, regions
