"""The source articles' code, run with ``import autograd_lesson as torch``.

Each test holds one snippet of the seeds (``/work/shared/seeds``) as close to verbatim as
possible. Only data creation changes (seeded), and definitions the article leaves out
(``backbone``, ``criterion``, ``dataset`` ...) are filled in minimally, marked ``# (added)``.
The assertions are the documented results: what the article claims where it is right, and
what PyTorch 2.13 really does where it is wrong (see the facts file, section 2).
"""
import numpy as np
import pytest

import autograd_lesson as torch
import autograd_lesson.optim as optim
from autograd_lesson.autograd import Variable

FREED = "Trying to backward through the graph a second time"
INPLACE = "one of the variables needed for gradient computation has been modified by an inplace"


def close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.fixture(autouse=True)
def seeded():
    torch.manual_seed(0)


# == 000: retain_graph=True, 3 scenarios and 7 examples =========================================
def test_000_ex1_two_losses():
    x = torch.randn(5, requires_grad=True)
    y = x * 2
    loss1 = y.sum()
    loss2 = (y ** 2).sum()

    # loss1 역전파 시 그래프를 유지해야 loss2 역전파가 가능함
    loss1.backward(retain_graph=True)
    loss2.backward() # 이제 에러 없이 수행 가능

    close(x.grad, 2 + 8 * x.detach().numpy())


def test_000_ex1_without_retain_fails_only_because_2_is_saved():
    x = torch.randn(5, requires_grad=True)
    y = x * 2
    loss1, loss2 = y.sum(), (y ** 2).sum()
    loss1.backward()
    with pytest.raises(RuntimeError, match=FREED):
        loss2.backward()
    x = torch.tensor([0.5, -1.0, 2.0, 0.0, 1.5], requires_grad=True)
    y = x + 2  # saves nothing: the naive order works
    y.sum().backward()
    (y ** 2).sum().backward()
    close(x.grad, [6, 3, 9, 5, 8])


def _gan():  # (added) a small generator and discriminator
    G = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.LeakyReLU(0.2), torch.nn.Linear(4, 2))
    D = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.LeakyReLU(0.2), torch.nn.Linear(4, 1),
                            torch.nn.Sigmoid())
    return G, D, torch.nn.BCELoss(), torch.randn(4, 2), torch.randn(4, 2)


def test_000_ex2_gan():
    G, D, criterion, real, z = _gan()
    optD, optG = optim.SGD(D.parameters(), lr=0.1), optim.SGD(G.parameters(), lr=0.1)
    fake = G(z)
    d_loss_real = criterion(D(real), torch.ones(4, 1))
    d_loss_fake = criterion(D(fake), torch.zeros(4, 1))

    # Discriminator 학습 시 생성된 이미지의 그래프가 필요할 때
    d_loss_real.backward()
    d_loss_fake.backward(retain_graph=True)
    # 이후 generator 학습 시 동일한 계산 그래프를 재사용해야 할 경우 사용

    assert G[0].weight.grad is not None  # without detach, D's loss also wrote into G
    optD.step()
    optG.zero_grad()
    g_loss = criterion(D(fake), torch.ones(4, 1))  # (added) must re-run D after optD.step()
    g_loss.backward()
    assert all(p.grad is not None for p in G.parameters())
    # reusing the OLD D(fake) output after optD.step() is what breaks:
    G, D, criterion, real, z = _gan()
    optD = optim.SGD(D.parameters(), lr=0.1)
    out = D(G(z))
    criterion(out, torch.zeros(4, 1)).backward(retain_graph=True)
    optD.step()
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[4, 1\]\], which is output 0 of "
                                           r"AsStrided, is at version 2; expected version 1"):
        criterion(out, torch.ones(4, 1)).backward()


def test_000_ex3_shared_backbone():
    backbone = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU())  # (added)
    head1, head2 = torch.nn.Linear(5, 2), torch.nn.Linear(5, 3)  # (added)
    criterion = torch.nn.MSELoss()  # (added)
    inputs, labels1, labels2 = torch.randn(6, 4), torch.randn(6, 2), torch.randn(6, 3)  # (added)

    features = backbone(inputs)
    out1 = head1(features)
    out2 = head2(features)

    loss1 = criterion(out1, labels1)
    loss2 = criterion(out2, labels2)

    loss1.backward(retain_graph=True) # features까지의 그래프 보존
    loss2.backward() # 공통된 backbone 가중치에 기울기 누적

    retained = [p.grad for p in backbone.parameters()]
    backbone.zero_grad()
    (criterion(head1(backbone(inputs)), labels1) + criterion(head2(backbone(inputs)), labels2)) \
        .backward()
    for grad, p in zip(retained, backbone.parameters()):
        close(grad, p.grad.numpy())


def test_000_ex4_literal_rnn_cell_returns_one_tensor():
    rnn_cell = torch.nn.RNNCell(3, 4)  # (added)
    criterion = torch.nn.MSELoss()  # (added)
    seq_len, input, target = 3, torch.randn(3, 3, 3), torch.randn(3, 3, 4)  # (added) batch 3
    hidden = torch.zeros(3, 4)  # (added)
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 2\)"):
        # 특정 시점마다 loss를 구하고 역전파를 끊어서 수행할 때
        for t in range(seq_len):
            output, hidden = rnn_cell(input[t], hidden)
            loss = criterion(output, target[t])
            loss.backward(retain_graph=True)


def test_000_ex4_with_a_cell_returning_output_and_hidden():
    cell, readout = torch.nn.RNNCell(3, 4), torch.nn.Linear(4, 2)  # (added)

    def rnn_cell(x, h):  # (added) returns (output, hidden) as the seed assumes
        h = cell(x, h)
        return readout(h), h

    criterion = torch.nn.MSELoss()  # (added)
    seq_len, input, target = 5, torch.randn(5, 2, 3), torch.randn(5, 2, 2)  # (added)
    hidden = torch.zeros(2, 4)  # (added)
    per_call = []  # (added) nodes (other than AccumulateGrad) run by each backward
    for t in range(seq_len):
        output, hidden = rnn_cell(input[t], hidden)
        loss = criterion(output, target[t])
        events = []  # (added)
        with torch.autograd.graph.observe(events.append):  # (added)
            loss.backward(retain_graph=True)
        per_call.append(sum(type(e).__name__ == "NodeStarted" and  # (added)
                            "AccumulateGrad" not in e.node.name() for e in events))
    assert per_call == [9, 15, 21, 27, 33]  # quadratic: 9 + 6t nodes at step t


def test_000_ex5_gradient_penalty():
    D = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.LeakyReLU(0.2),
                            torch.nn.Linear(4, 1))  # (added: a WGAN-GP critic, no Sigmoid)
    interpolated = torch.randn(4, 2, requires_grad=True)  # (added)
    prob = D(interpolated)  # (added)

    # 미분값 자체에 대한 미분이 필요할 때 그래프 보존이 필수
    gradients = torch.autograd.grad(outputs=prob, inputs=interpolated,
                                    grad_outputs=torch.ones_like(prob), create_graph=True)[0]
    gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
    gp.backward(retain_graph=True)

    # the penalty reaches every parameter but the output bias (it does not depend on it)
    assert [p.grad is None for p in D.parameters()] == [False, False, False, True]
    prob.mean().backward()  # what the seed's retain_graph=True is needed for
    # without create_graph=True the penalty has no graph at all:
    gradients = torch.autograd.grad(D(interpolated).sum(), interpolated)[0]
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        ((gradients.norm(2, dim=1) - 1) ** 2).mean().backward()


def test_000_ex6_step_between_backward_calls_breaks_a_multilayer_net():
    model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    optimizer = optim.SGD(model.parameters(), lr=0.1)  # (added)
    out = model(torch.randn(3, 4))  # (added)
    loss_a, loss_b = out.pow(2).mean(), out.abs().mean()  # (added)

    # 첫 번째 loss로 일부 가중치를 업데이트하고,
    # 동일 상태에서 두 번째 loss를 계산해야 할 때
    optimizer.zero_grad()
    loss_a.backward(retain_graph=True)
    optimizer.step() # 가중치는 변하지만 그래프 버퍼는 남아있음

    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[5, 2\]\], which is output 0 of "
                                           r"AsStrided, is at version 2; expected version 1"):
        loss_b.backward()


def test_000_ex7_conditional_paths():
    model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh())  # (added)
    x, weights, condition = torch.randn(2, 4), torch.randn(2, 5), True  # (added)

    # 조건문에 따라 같은 텐서가 여러 번 backward 대상이 될 때
    res = model(x)
    if condition:
        res.mean().backward(retain_graph=True)
    # 추가적인 후처리 연산 후 다시 backward
    final_loss = (res * weights).sum()
    final_loss.backward()

    grads = [p.grad for p in model.parameters()]
    model.zero_grad()
    res = model(x)
    (res.mean() + (res * weights).sum()).backward()
    for grad, p in zip(grads, model.parameters()):
        close(grad, p.grad.numpy())


# == 001: backward(retain_graph=True) ===========================================================
def test_001_abcde():
    a = Variable(torch.rand(1, 4), requires_grad=True)
    b = a**2
    c = b*2
    d = c.mean()
    e = c.sum()

    d.backward()
    with pytest.raises(RuntimeError, match=FREED):
        e.backward()

    a = Variable(torch.rand(1, 4), requires_grad=True)
    b = a**2
    c = b*2
    d = c.mean()
    e = c.sum()

    d.backward(retain_graph=True)
    e.backward()
    close(a.grad, 5 * a.detach().numpy())


def test_001_default_gradient_is_a_0dim_one_not_shape_1():
    a = Variable(torch.rand(1, 4), requires_grad=True)
    d = (a ** 2 * 2).mean()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"torch.Size\(\[1\]\) and output\[0\] has a shape of "
                                           r"torch.Size\(\[\]\)."):
        d.backward(torch.tensor([1], dtype=torch.float))
    with pytest.raises(TypeError, match=r"^Tensor.backward\(\) got an unexpected keyword argument "
                                        r"'retrain_graph'$"):
        d.backward(retrain_graph=True)
    d.backward(torch.tensor(1.))
    close(a.grad, a.detach().numpy())


def test_001_multitask():
    trunk = torch.nn.Linear(3, 4)  # (added)
    head1, head2 = torch.nn.Linear(4, 2), torch.nn.Linear(4, 1)  # (added)
    optimizer = optim.SGD(trunk.parameters(), lr=0.1)  # (added)
    x = torch.randn(5, 3)  # (added)
    features = trunk(x)  # (added) the shared trunk output
    loss1 = head1(features.relu()).pow(2).mean()  # (added)
    loss2 = head2(features.tanh()).pow(2).mean()  # (added)

    # suppose you first back-propagate loss1, then loss2 (you can also do the reverse)
    loss1.backward(retain_graph=True)
    loss2.backward() # now the graph is freed, and next process of batch gradient descent is ready
    before = trunk.weight.detach().clone()
    optimizer.step() # update the network parameters

    assert not torch.equal(before, trunk.weight.detach())
    assert all(p.grad is not None for p in list(head1.parameters()) + list(head2.parameters()))


# == 002: loss.backward(), 3 steps and 7 examples ===============================================
def test_002_ex1_basic_backward(capsys):
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()

    # 역전파 수행
    out.backward()

    # x의 grad 필드에 저장된 d(out)/dx 확인
    print(f"Gradients of x:\n{x.grad}")

    assert capsys.readouterr().out == ("Gradients of x:\ntensor([[4.5000, 4.5000],\n"
                                       "        [4.5000, 4.5000]])\n")


def test_002_ex2_zero_grad():
    criterion = torch.nn.MSELoss()  # (added)
    dataset = [(torch.randn(4, 10), torch.randn(4, 1)) for _ in range(3)]  # (added)

    model = torch.nn.Linear(10, 1)
    optimizer = optim.SGD(model.parameters(), lr=0.01)

    for data, target in dataset:
        # 필수: 이전 배치의 미분값을 비워줌
        optimizer.zero_grad()
        assert model.weight.grad is None  # (added) 2.x sets None, not zeros

        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()

    assert model.weight._version == 4  # init, then one bump per step


def test_002_ex3_two_losses():
    shared = torch.nn.Linear(3, 4)  # (added)
    hidden = shared(torch.randn(4, 3)).tanh()  # (added)
    pred1, pred2 = hidden.sum(1), hidden.pow(2).sum(1)  # (added) share graph nodes
    criterion1, criterion2 = torch.nn.MSELoss(), torch.nn.MSELoss()  # (added)
    target1, target2 = torch.randn(4), torch.randn(4)  # (added)

    loss1 = criterion1(pred1, target1)
    loss2 = criterion2(pred2, target2)

    # retain_graph=True를 통해 중간 버퍼를 유지함
    loss1.backward(retain_graph=True)
    loss2.backward() # 이제 에러 없이 수행 가능

    assert shared.weight.grad is not None


def test_002_ex4_detach():
    model_part1 = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())  # (added)
    model_part2 = torch.nn.Linear(4, 1)  # (added)
    criterion, input, target = torch.nn.MSELoss(), torch.randn(4, 3), torch.randn(4, 1)  # (added)

    # 연산 중간에 detach()를 사용하여 그래프를 끊음
    intermediate = model_part1(input)
    detached_val = intermediate.detach()

    output = model_part2(detached_val)
    loss = criterion(output, target)
    loss.backward()
    # model_part1의 파라미터는 업데이트되지 않음

    assert all(p.grad is None for p in model_part1.parameters())  # None, not zeros
    assert all(p.grad is not None for p in model_part2.parameters())
    detached_val.add_(1)  # shares the version counter with intermediate
    with pytest.raises(RuntimeError, match=INPLACE + r".*which is output 0 of Relu, is at version "
                                                     r"1; expected version 0"):
        intermediate.sum().backward()


def test_002_ex5_nonscalar_backward(capsys):
    x = torch.randn(3, requires_grad=True)
    y = x * 2

    # y는 [3] 크기의 텐서이므로 직접 backward 불가
    # gradient 인자를 통해 가중치 합산 방식 지정
    v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
    y.backward(v)

    print(x.grad)

    assert capsys.readouterr().out == "tensor([2.0000e-01, 2.0000e+00, 2.0000e-04])\n"
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        (x * 2).backward()


def test_002_ex6_clip_grad_norm():
    model = torch.nn.Linear(5, 3)  # (added)
    optimizer = optim.SGD(model.parameters(), lr=0.1)  # (added)
    loss = (model(torch.randn(4, 5)) * 100).pow(2).mean()  # (added)

    loss.backward()

    # backward 호출 직후, step 호출 직전에 수행
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)

    optimizer.step()

    assert total.dim() == 0 and total.item() > 1  # the norm BEFORE clipping, as a tensor
    clipped = np.sqrt(sum((p.grad.numpy() ** 2).sum() for p in model.parameters()))
    assert abs(clipped - 1.0) < 1e-5


def test_002_ex7_custom_function():
    class MyReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    # 사용 예시
    custom_relu = MyReLU.apply
    output = custom_relu(torch.randn(5, requires_grad=True))

    assert output.grad_fn.name() == "MyReLUBackward"
    x = torch.tensor([-1.5, -0.0, 0.0, 0.7, 2.0], requires_grad=True)  # (added) beyond the seed
    custom_relu(x).sum().backward()
    close(x.grad, [0, 1, 1, 1, 1])  # passes the gradient at 0; torch.relu gives 0 there
