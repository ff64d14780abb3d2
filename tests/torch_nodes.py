"""Torch's own graph, walked the plainest way, for tests to check the view against."""


def nodes_of(tensors):
    """Every node reachable from the ``grad_fn`` of ``tensors`` (a set)."""
    seen, stack = set(), [t.grad_fn for t in tensors]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(child for child, _ in node.next_functions)
    return seen
