"""Recurrent steps: pytorch/examples word_language_model (repackage_hidden) and the truncated
BPTT threads on discuss.pytorch.org."""
import torch
from torch import nn

from . import FREED, STALE, Case


def _rnn():
    torch.manual_seed(0)
    model = nn.RNN(3, 4, batch_first=True)
    head = nn.Linear(4, 1)
    data = torch.randn(2, 6, 3)
    target = torch.randn(2, 6, 1)
    params = list(model.parameters()) + list(head.parameters())
    return model, head, data, target, params


def word_language_model(detach=True):
    """pytorch/examples word_language_model/main.py: each batch starts with
    hidden = repackage_hidden(hidden); one backward per batch; clip_grad_norm_; p.data.add_."""
    model, head, data, target, params = _rnn()
    state = {"hidden": torch.zeros(1, 2, 4)}

    def repackage_hidden(h):
        return h.detach()

    def step():
        hidden = repackage_hidden(state["hidden"]) if detach else state["hidden"]
        model.zero_grad()
        head.zero_grad()
        output, hidden = model(data[:, :3], hidden)
        loss = nn.functional.mse_loss(head(output), target[:, :3])
        loss.backward()
        nn.utils.clip_grad_norm_(params, 0.25)
        for p in params:
            p.data.add_(p.grad, alpha=-0.1)
        state["hidden"] = hidden
    return step, ()


def tbptt_chunks():
    """discuss.pytorch.org 'Truncated backpropagation through time' threads: one sequence in
    chunks, the hidden state carried without detach, loss.backward(retain_graph=True) and
    optimizer.step() per chunk: the second chunk's backward reaches the first chunk's graph,
    whose weights the step changed."""
    model, head, data, target, params = _rnn()
    optimizer = torch.optim.SGD(params, lr=0.1)

    def step():
        hidden = torch.zeros(1, 2, 4)
        for start in range(0, 6, 2):
            optimizer.zero_grad()
            output, hidden = model(data[:, start:start + 2], hidden)
            loss = nn.functional.mse_loss(head(output), target[:, start:start + 2])
            loss.backward(retain_graph=True)
            optimizer.step()
    return step, ()


CASES = [
    Case("word_language_model", "pytorch/examples word_language_model/main.py (train, "
         "repackage_hidden)", word_language_model),
    Case("lm_without_repackage", "pytorch/examples word_language_model/main.py without "
         "repackage_hidden (forum: 'backward through the graph a second time' in language "
         "models)", lambda: word_language_model(detach=False), (2, FREED), ["freed-reuse"],
         fix="hidden = hidden.detach()", message="it reached into the graph call 1 built"),
    Case("tbptt_retain_per_chunk", "discuss.pytorch.org 'Truncated backpropagation through "
         "time' (retain_graph=True and optimizer.step() per chunk)", tbptt_chunks,
         (1, STALE), ["stale-saved"], message="changed in place by `optimizer.step()` at",
         note="nor is retain_graph=True on backward #1"),
]
