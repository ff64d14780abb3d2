"""The engine's extensions: what plugs into the core (``_tensor``, ``_node``, ``ops/_op``,
``_engine``) at a named point, one feature per file.

- ``hooks``: tensor hooks, ``retain_grad``, node pre/post hooks, post-accumulate-grad hooks;
- ``graph_task``: one running backward: partial backward (``inputs=``, ``autograd.grad``),
  anomaly mode's engine side, the event stream's observers, the stack checkpoint reads;
- ``anomaly_mode``: its switches and the forward stacks nodes remember;
- ``saved_hooks``: pack/unpack hooks of saved tensors (``saved_tensors_hooks``, checkpoint,
  ``save_on_cpu``);
- ``saved_meters``: every saved tensor not yet garbage, for the memory meters;
- ``saved_attributes``: PyTorch's names for a node's saves (``_saved_self``,
  ``_raw_saved_self``) and the view's read-only records of them.

This package imports nothing at its top, so the core can import from it while it loads.
"""
