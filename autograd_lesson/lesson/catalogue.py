"""The exercise catalogue: every exercise of every lesson, keyed by id, with its hint.

Hints live here rather than in the notebooks so that a learner cannot read them before trying:
a checker shows the hint only after a wrong answer. A hint points at the reasoning, never at the
answer itself. ``kind`` says how the exercise is checked (see notebooks/INSTRUCTORS.md):

- ``freed``: a set of "Node.slot" names, compared with the buffers the call really frees;
- ``raises``: True / False, compared with what the call does;
- ``which-raise``: the set of the calls (by name) that raise;
- ``value``: a number or list of numbers, compared with the engine's result;
- ``findings``: the set of kinds of finding ``lesson.audit`` reports for a torch step;
- ``order``: a list of names, compared with the order in which the engine runs their nodes;
- ``code``: a function the learner writes, run and checked by behaviour (its gradients and, from
  the engine's event stream, how they were obtained; in 00b, a piece of the engine, held to the
  real engine on the seven scenarios).
"""
from dataclasses import dataclass


def is_exercise_cell(cell):
    """An answer cell, a checker cell or the progress cell: its outputs are the learner's (the
    student copies clear them; lesson 11 without torch never shows them from the lesson)."""
    marks = cell.get("metadata", {}).get("nbgrader", {})
    return cell.cell_type == "code" and (
        marks.get("solution") or marks.get("grade") or "### BEGIN SOLUTION" in cell.source
        or "lesson.check_" in cell.source or cell.source.startswith("lesson.progress("))


@dataclass(frozen=True)
class Exercise:
    id: str
    kind: str
    title: str
    hint: str

    @property
    def lesson(self):
        return self.id.split("-", 1)[0]


_ALL = [
    # 00 how backward works
    Exercise("00-freed", "freed", "what loss1.backward() frees",
             "follow loss1 down to x in the picture: which of the nodes on that path saved a tensor?"),
    Exercise("00-which-raise", "which-raise", "which second backward raises",
             "loss1.backward() released the saved tensors of the nodes it ran; which function's "
             "second backward has to run one of those nodes again?"),
    Exercise("00-grad-sum", "value", "x.grad after three calls",
             "for backward, x.detach() is a constant; and .grad adds up over calls instead of "
             "being replaced."),
    # 00b inside the engine
    Exercise("00b-order", "order", "the order the ready queue runs the nodes in",
             "of the ready nodes the newest one (the highest sequence number) runs first, and an "
             "AccumulateGrad as soon as it is ready: follow when each node's count reaches 0."),
    Exercise("00b-count", "code", "write count_dependencies(root)",
             "count one per edge, not one per node: a node may point at the same child twice; "
             "and look at a node's children only the first time you meet it."),
    # 01 multiple losses
    Exercise("01-freed", "freed", "what loss1.backward() frees",
             "list the nodes on the path from loss1 to the leaves, and what each of them saved."),
    Exercise("01-raises", "raises", "loss2.backward() after loss1.backward()",
             "which nodes does loss2's backward have to run, and were any of them run (and so "
             "released) by loss1.backward()?"),
    Exercise("01-which-raise", "which-raise", "which op fails a second backward",
             "an op saves a tensor only when its gradient formula needs one; write down each "
             "op's derivative."),
    Exercise("01-grad-sum", "value", "x.grad after both calls",
             "work out d loss1/dx and d loss2/dx separately at this x; after two backward calls "
             ".grad holds their sum."),
    Exercise("01-step", "code", "write the two-loss step without retain_graph",
             "both losses come from the same out: one backward of a single scalar can carry "
             "both gradients, and .grad would add them anyway."),
    # 02 GAN
    Exercise("02-freed", "freed", "what g_loss.backward() frees in the old graph",
             "the new D(fake) is a different graph: which nodes of the old graph does g_loss "
             "reach?"),
    Exercise("02-which-raise", "which-raise", "which shortcut raises",
             "look at what the discriminator's backward released in each recipe before G's "
             "loss is built from the old d_out_fake."),
    Exercise("02-version", "value", "D[2].weight._version after two steps",
             "every in-place write adds 1: look for them where the models are made and in one "
             "training step (an optimizer step writes each of its parameters once)."),
    Exercise("02-step", "code", "two discriminator steps, no retain_graph",
             "the discriminator's losses need gradients for D only: what stops a backward from "
             "entering G's graph?"),
    # 03 shared backbone
    Exercise("03-freed", "freed", "what loss1.backward() frees",
             "loss1 never reaches branch 2; every node it does run releases its saves."),
    Exercise("03-which-raise", "which-raise", "which second backward raises",
             "with inputs= the engine runs only the nodes between the loss and those inputs."),
    Exercise("03-count", "value", "nodes run by two calls and by one call on the sum",
             "count the nodes of one branch and of the trunk in the pictures above; the two-call "
             "pattern runs the trunk twice, and the sum adds one node."),
    Exercise("03-step", "code", "a weighted two-head step, trunk run once",
             "a backward of a weighted sum gives the weighted sum of the gradients."),
    # 04 RNN
    Exercise("04-count", "value", "work of backward #7 and #8 with a cut every 3 steps",
             "each earlier step the walk reaches through hidden adds the same number of cell "
             "nodes; detach cuts the walk at the start of the current step."),
    Exercise("04-freed", "freed", "what one cell step frees",
             "an op saves one operand only when the other operand needs a gradient; which inputs "
             "here require grad?"),
    Exercise("04-which-raise", "which-raise", "which per-step update raises",
             "a backward raises when a tensor one of its nodes saved was changed in place by "
             "optimizer.step() after it was saved."),
    Exercise("04-tbptt", "code", "truncated BPTT with a backward every 3 steps",
             "cut the history at the start of each chunk, and give each chunk one backward of "
             "its summed losses."),
    # 05 WGAN-GP
    Exercise("05-freed", "freed", "what autograd.grad(create_graph=True) frees",
             "create_graph=True records new nodes, but retain_graph=False still releases the "
             "saves of every forward node the call runs."),
    Exercise("05-raises-a", "raises", "gp.backward() after retain_graph=False",
             "do the recorded formulas have edges into forward nodes whose saves the grad call "
             "released? Try print_bridges(gp, prob)."),
    Exercise("05-raises-b", "raises", "prob.mean().backward() after retain_graph=True",
             "retain_graph=True keeps every buffer of prob's graph; what it does not do is give "
             "`gradients` a graph."),
    Exercise("05-none-count", "value", "parameters left with .grad None (tanh critic)",
             "write ∇x D for D(x) = W2 tanh(W1 x + b1) + b2: which parameters appear in it?"),
    Exercise("05-r1", "code", "the R1 penalty step",
             "the penalty differentiates a gradient: the grad call has to record a graph; then "
             "one backward of the whole critic loss."),
    # 06 sequential optimization
    Exercise("06-freed", "freed", "what the last backward frees",
             "retained buffers are not protected from a later backward without retain_graph; "
             "which nodes does loss_b.backward() run?"),
    Exercise("06-raises-a", "raises", "loss_b.backward() after a step (one layer)",
             "which parameters did a node save, and did optimizer.step() change them in place?"),
    Exercise("06-raises-b", "raises", "loss_b.backward() after a step of the first layer only",
             "which parameters did any node save? Look at the forward graph's ledger."),
    Exercise("06-sequential", "code", "one SGD step per target",
             "every step changes the weights in place, so every loss needs a forward made "
             "after the previous step."),
    # 07 conditional paths
    Exercise("07-freed", "freed", "what a backward frees with the first layer frozen",
             "with layer 1 frozen, which tensors still require grad, and which nodes are still "
             "recorded? Try lesson.show_graph(res=res)."),
    Exercise("07-raises-a", "raises", "final_loss.backward() after the branch's backward",
             "the branch's backward does not stop at its SumBackward0: which nodes run?"),
    Exercise("07-raises-b", "raises", "final_loss.backward() after a new forward",
             "a new forward records new nodes with new saved buffers."),
    Exercise("07-step", "code", "conditional extra losses, one backward per step",
             "add the losses that apply at this step to one scalar, then call backward once."),
    # 08 memory
    Exercise("08-alive", "value", "saved bytes after each iteration",
             "a backward without retain_graph releases the saved tensors of every node it runs, "
             "whoever still refers to the nodes."),
    Exercise("08-total-raises", "raises", "total.backward() after the per-loss backwards",
             "total's graph runs through every loss's nodes: are their buffers still there?"),
    Exercise("08-which-raise", "which-raise", "which per-step loop raises",
             "step 1's loss reaches back into step 0's nodes unless the state is detached."),
    Exercise("08-peak", "value", "the peak of each iteration",
             "what still refers to the retained graph when the next forward pass starts?"),
    # 09 saving memory
    Exercise("09-runs", "value", "runs of each block",
             "a retained graph keeps its placeholders, not the tensors they stand for."),
    Exercise("09-deep", "code", "checkpoint Deep below 60,000 B",
             "checkpoint each middle block with use_reentrant=False; keep first and last as they "
             "are."),
    # 10 in-place ops and anomaly detection
    Exercise("10-which-raise", "which-raise", "which in-place op breaks backward",
             "for each function, did the op before the in-place one save its input, its output "
             "or nothing? Only a saved tensor that was overwritten breaks backward."),
    Exercise("10-freed", "freed", "what a backward through a filled buffer frees",
             "list the nodes between loss and a, and what each of them saved; a CopySlices node "
             "saves no tensor of its own."),
    Exercise("10-block", "code", "fix the residual block",
             "run show_anomaly on broken_forward: the node it names saved its output; which "
             "later line overwrites that output in place?"),
    # 11 your own model
    Exercise("11-kinds", "findings", "what audit reports for retain on the first backward only",
             "retain_graph=True is unneeded only if no later backward of the step runs the nodes "
             "it kept; and ask which nodes both backwards run."),
    Exercise("11-gan", "code", "a GAN step that audit finds nothing in",
             "the discriminator's loss needs gradients for D only: what stops its backward from "
             "entering G, so that G's graph is run once, by G's own loss?"),
    # 12 PyTorch's own tools
    Exercise("12-hooks", "value", "w.grad through two hooks",
             "write d/dh of sum(h * h) first; a tensor hook runs once, on its tensor's whole "
             "gradient, and what it returns is what flows on to the next node."),
    Exercise("12-segments", "value", "runs of each block with checkpoint_sequential",
             "how many modules go into each piece, and which piece takes the ones left over? "
             "Only a checkpointed piece runs again in the backward."),
    Exercise("12-eval", "which-raise", "which evaluation leaves a graph",
             "for each function, was recording on when out was computed? eval() does not decide "
             "that; the innermost grad-mode switch does."),
    Exercise("12-function", "code", "softplus as a custom Function",
             "keep x for the backward the way section 2 recommends, and return grad times the "
             "derivative of log(1 + e^x)."),
]

EXERCISES = {e.id: e for e in _ALL}


def lookup(exercise_id):
    if exercise_id not in EXERCISES:
        raise KeyError(f"unknown exercise {exercise_id!r}: add it to "
                       f"autograd_lesson/lesson/catalogue.py")
    return EXERCISES[exercise_id]


def exercises_of(lesson_id, used=None):
    """The exercises of one lesson, in catalogue order."""
    return [e for e in _ALL if e.lesson == lesson_id]
