"""Four real PyTorch models, CPU-sized, for the view's and the doctor's cost figures.

The same four the issue "The view on a real model" measured: a hand-written ResNet-18, a 6-layer
``nn.TransformerEncoder``, a 12-block GPT-like stack and an ``LSTMCell`` unrolled 100 steps.
Each builder returns ``(model, step)``: ``step()`` runs one forward and returns the loss (the
caller runs ``loss.backward()``), with seeded inputs so every run builds the same graph.
Requires torch (the ``test`` extra).
"""
import torch
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class ResNet18(nn.Module):
    def __init__(self, classes=10, width=8):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width),
                                  nn.ReLU())
        widths, layers, cin = [width, 2 * width, 4 * width, 8 * width], [], width
        for i, cout in enumerate(widths):
            stride = 1 if i == 0 else 2
            layers.append(nn.Sequential(BasicBlock(cin, cout, stride), BasicBlock(cout, cout)))
            cin = cout
        self.layers = nn.ModuleList(layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.stem(x)
        for layer in self.layers:
            x = layer(x)
        return self.fc(x.mean(dim=(2, 3)))


class Block(nn.Module):
    """A GPT block: pre-norm causal self-attention and an MLP, each with a residual."""

    def __init__(self, dim, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        n = x.shape[1]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=50, dim=32, heads=4, blocks=12, length=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, length, dim))
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(blocks))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        x = self.tok(idx) + self.pos[:, :idx.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


class UnrolledLSTM(nn.Module):
    def __init__(self, inputs=8, hidden=16, steps=100):
        super().__init__()
        self.cell = nn.LSTMCell(inputs, hidden)
        self.out = nn.Linear(hidden, 1)
        self.steps = steps

    def forward(self, xs):
        h = c = torch.zeros(xs.shape[1], self.cell.hidden_size)
        for t in range(self.steps):
            h, c = self.cell(xs[t], (h, c))
        return self.out(h)


def resnet18():
    torch.manual_seed(0)
    model, x, y = ResNet18(), torch.randn(2, 3, 16, 16), torch.tensor([1, 3])
    return model, lambda: nn.functional.cross_entropy(model(x), y)


def transformer():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)
    x = torch.randn(2, 10, 32)
    return model, lambda: model(x).pow(2).mean()


def gpt():
    torch.manual_seed(0)
    model = GPT()
    idx = torch.randint(0, 50, (2, 16))
    return model, lambda: nn.functional.cross_entropy(model(idx[:, :-1]).flatten(0, 1),
                                                      idx[:, 1:].flatten())


def lstm():
    torch.manual_seed(0)
    model, xs = UnrolledLSTM(), torch.randn(100, 2, 8)
    return model, lambda: model(xs).pow(2).mean()


MODELS = {"resnet18": resnet18, "transformer": transformer, "gpt": gpt, "lstm": lstm}


def node_count(loss):
    """Nodes reachable from ``loss.grad_fn`` (AccumulateGrad included), each counted once."""
    seen, stack = set(), [loss.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(next_fn for next_fn, _ in fn.next_functions)
    return len(seen)


if __name__ == "__main__":
    for name, build in MODELS.items():
        model, step = build()
        print(f"{name:12s} {node_count(step()):5d} nodes")
