"""The Korean edition's own texts beside the message catalogue (``messages.py``): each exercise's
Korean title and hint, the Korean forms of labels that code cells pass to the helpers, and the
patterns that turn English feedback written in a lesson into Korean (``i18n.localize``).
"""
# Exercise id -> (title, hint) in Korean; the English ones live in lesson/catalogue.py.
EXERCISES_KO = {
    "00-freed": ("loss1.backward()가 해제하는 것",
                 "그림에서 loss1부터 x까지 따라가 보세요. 그 경로에 있는 노드 중 어느 노드가 텐서를 "
                 "저장했습니까?"),
    "00-which-raise": ("두 번째 역전파가 실패하는 함수",
                       "loss1.backward()는 자신이 실행한 노드의 저장된 텐서를 해제했습니다. 두 번째 "
                       "역전파에서 그 노드 중 하나를 다시 실행해야 하는 함수는 어느 것입니까?"),
    "00-grad-sum": ("세 번 호출한 뒤의 x.grad",
                    "역전파에서 x.detach()는 상수입니다. 그리고 .grad는 호출할 때마다 바뀌지 않고 "
                    "더해집니다."),
    "01-freed": ("loss1.backward()가 해제하는 것",
                 "loss1에서 잎 텐서까지의 경로에 있는 노드와, 각 노드가 저장한 것을 적어 보세요."),
    "01-raises": ("loss1.backward() 다음의 loss2.backward()",
                  "loss2의 역전파는 어떤 노드를 실행해야 합니까? 그중 loss1.backward()가 이미 "
                  "실행해서 해제한 노드가 있습니까?"),
    "01-which-raise": ("두 번째 역전파에서 실패하는 연산",
                       "연산은 변화도 공식에 텐서가 필요할 때만 텐서를 저장합니다. 각 연산의 도함수를 "
                       "적어 보세요."),
    "01-grad-sum": ("두 번 호출한 뒤의 x.grad",
                    "이 x에서 d loss1/dx와 d loss2/dx를 따로 계산해 보세요. backward()를 두 번 호출하면 "
                    ".grad에는 그 합이 들어 있습니다."),
    "01-step": ("retain_graph 없이 두 손실 스텝 작성하기",
                "두 손실 모두 같은 out에서 나옵니다. 스칼라 하나에 대한 backward() 한 번으로 두 변화도를 "
                "모두 전달할 수 있고, 어차피 .grad는 둘을 더합니다."),
    "02-freed": ("g_loss.backward()가 예전 그래프에서 해제하는 것",
                 "새로 계산한 D(fake)는 다른 그래프입니다. g_loss는 예전 그래프의 어느 노드에 "
                 "닿습니까?"),
    "02-which-raise": ("오류가 나는 지름길",
                       "각 방법에서, 예전 d_out_fake로 G의 손실을 만들기 전에 판별자의 역전파가 "
                       "무엇을 해제했는지 보세요."),
    "02-version": ("두 스텝 뒤의 D[2].weight._version",
                   "제자리 쓰기는 매번 1을 더합니다. 모델을 만드는 곳과 훈련 스텝 하나에서 찾아 "
                   "보세요(옵티마이저 스텝은 매개변수마다 한 번씩 씁니다)."),
    "02-step": ("retain_graph 없이 판별자 스텝 두 번",
                "판별자의 손실에는 D의 변화도만 필요합니다. 역전파가 G의 그래프로 들어가지 않게 "
                "막는 것은 무엇입니까?"),
    "03-freed": ("loss1.backward()가 해제하는 것",
                 "loss1은 branch 2에 닿지 않습니다. loss1이 실행하는 노드는 모두 저장한 것을 "
                 "해제합니다."),
    "03-which-raise": ("두 번째 역전파가 실패하는 호출",
                       "inputs=를 주면 엔진은 손실과 그 입력 사이의 노드만 실행합니다."),
    "03-count": ("두 번 호출할 때와 합에 한 번 호출할 때 실행되는 노드 수",
                 "위 그림에서 가지 하나와 몸통의 노드를 세어 보세요. 두 번 호출하는 방식은 몸통을 두 번 "
                 "실행하고, 합은 노드를 하나 더합니다."),
    "03-step": ("몸통을 한 번만 실행하는 가중 두 헤드 스텝",
                "가중합에 대한 backward() 한 번은 변화도의 가중합을 줍니다."),
    "04-count": ("3시점마다 끊을 때 backward #7과 #8의 작업량",
                 "hidden을 따라 거슬러 올라가는 이전 시점마다 같은 수의 셀 노드가 더해집니다. detach는 "
                 "현재 시점의 시작에서 그 길을 끊습니다."),
    "04-freed": ("셀의 한 시점이 해제하는 것",
                 "연산은 다른 피연산자가 변화도를 필요로 할 때만 한쪽 피연산자를 저장합니다. 여기서 "
                 "변화도가 필요한 입력은 어느 것입니까?"),
    "04-which-raise": ("오류가 나는 시점별 업데이트",
                       "어떤 노드가 저장한 텐서가 저장된 뒤에 optimizer.step()으로 제자리에서 바뀌면 "
                       "역전파에서 오류가 납니다."),
    "04-tbptt": ("3시점마다 backward()를 호출하는 truncated BPTT",
                 "각 구간(chunk)의 시작에서 기록을 끊고, 구간마다 손실의 합에 backward()를 한 번 "
                 "호출하세요."),
    "05-freed": ("autograd.grad(create_graph=True)가 해제하는 것",
                 "create_graph=True는 새 노드를 기록하지만, retain_graph=False이면 이 호출이 실행하는 "
                 "모든 순전파 노드의 저장된 텐서는 여전히 해제됩니다."),
    "05-raises-a": ("retain_graph=False 다음의 gp.backward()",
                    "기록된 공식에서 순전파 노드로 가는 간선 중, grad 호출이 저장된 텐서를 해제한 "
                    "노드로 가는 것이 있습니까? print_bridges(gp, prob)를 실행해 보세요."),
    "05-raises-b": ("retain_graph=True 다음의 prob.mean().backward()",
                    "retain_graph=True는 prob 그래프의 버퍼를 모두 유지합니다. 하지만 `gradients`에 "
                    "그래프를 만들어 주지는 않습니다."),
    "05-none-count": (".grad가 None으로 남는 매개변수 수(tanh 비평자)",
                      "D(x) = W2 tanh(W1 x + b1) + b2에 대해 ∇x D를 적어 보세요. 어느 매개변수가 "
                      "그 식에 나타납니까?"),
    "05-r1": ("R1 페널티 스텝",
              "페널티는 변화도를 미분합니다. 그러니 grad 호출이 그래프를 기록해야 합니다. 그다음 "
              "비평자 손실 전체에 backward()를 한 번 호출하세요."),
    "06-freed": ("마지막 역전파가 해제하는 것",
                 "유지된 버퍼라도 나중에 retain_graph 없이 한 backward() 호출로부터 보호되지 않습니다. "
                 "loss_b.backward()는 어느 노드를 실행합니까?"),
    "06-raises-a": ("스텝 다음의 loss_b.backward()(층 하나)",
                    "노드가 저장한 매개변수는 무엇이고, optimizer.step()이 그것을 제자리에서 "
                    "바꿨습니까?"),
    "06-raises-b": ("첫 번째 층만 스텝한 다음의 loss_b.backward()",
                    "어떤 노드든 저장한 매개변수는 무엇입니까? 순전파 그래프의 버퍼 장부(ledger)를 "
                    "보세요."),
    "06-sequential": ("목표마다 SGD 스텝 한 번",
                      "스텝마다 가중치가 제자리에서 바뀌므로, 손실마다 이전 스텝 뒤에 새로 한 순전파가 "
                      "필요합니다."),
    "07-freed": ("첫 번째 층을 고정했을 때 역전파가 해제하는 것",
                 "층 1을 고정하면 어떤 텐서가 여전히 변화도를 필요로 하고, 어떤 노드가 여전히 "
                 "기록됩니까? lesson.show_graph(res=res)를 실행해 보세요."),
    "07-raises-a": ("가지의 역전파 다음의 final_loss.backward()",
                    "가지의 역전파는 자신의 SumBackward0에서 멈추지 않습니다. 어느 노드가 "
                    "실행됩니까?"),
    "07-raises-b": ("새 순전파 다음의 final_loss.backward()",
                    "새 순전파는 새 저장된 버퍼를 가진 새 노드를 기록합니다."),
    "07-step": ("조건부 추가 손실, 스텝마다 backward() 한 번",
                "이 스텝에 해당하는 손실을 스칼라 하나로 더한 다음 backward()를 한 번 호출하세요."),
    "08-alive": ("반복마다 남는 저장된 바이트",
                 "retain_graph 없는 역전파는 실행하는 모든 노드의 저장된 텐서를 해제합니다. 누가 그 "
                 "노드를 아직 참조하든 상관없습니다."),
    "08-total-raises": ("손실별 역전파 다음의 total.backward()",
                        "total의 그래프는 모든 손실의 노드를 지나갑니다. 그 버퍼가 아직 남아 "
                        "있습니까?"),
    "08-which-raise": ("오류가 나는 시점별 루프",
                       "상태를 떼어 내지(detach) 않으면 시점 1의 손실은 시점 0의 노드까지 거슬러 "
                       "올라갑니다."),
    "08-peak": ("반복마다의 최대 메모리(peak)",
                "다음 순전파가 시작될 때 유지된 그래프를 아직 참조하는 것은 무엇입니까?"),
    "09-runs": ("블록마다 실행 횟수",
                "유지된 그래프가 보관하는 것은 자리표시자(placeholder)이지, 그것이 가리키는 "
                "텐서가 아닙니다."),
    "09-deep": ("Deep을 60,000 B 아래로 체크포인팅하기",
                "가운데 블록마다 use_reentrant=False로 checkpoint를 적용하고, 첫 블록과 마지막 블록은 "
                "그대로 두세요."),
    "10-which-raise": ("역전파를 망가뜨리는 제자리 연산",
                       "함수마다, 제자리 연산 앞의 연산이 입력을 저장했는지, 출력을 저장했는지, 아무것도 "
                       "저장하지 않았는지 보세요. 덮어쓴 저장된 텐서만 역전파를 망가뜨립니다."),
    "10-freed": ("채워진 버퍼를 지나는 역전파가 해제하는 것",
                 "loss와 a 사이의 노드와 각 노드가 저장한 것을 적어 보세요. CopySlices 노드는 자기 "
                 "텐서를 저장하지 않습니다."),
    "10-block": ("잔차 블록 고치기",
                 "broken_forward에 show_anomaly를 실행해 보세요. 그것이 가리키는 노드는 출력을 "
                 "저장했습니다. 나중에 그 출력을 제자리에서 덮어쓰는 줄은 어디입니까?"),
    "00b-order": ("준비 큐(ready queue)가 노드를 실행하는 순서",
                  "준비된 노드 중에서는 가장 나중에 만들어진 노드(시퀀스 번호가 가장 큰 노드)가 먼저 "
                  "실행되고, AccumulateGrad는 준비되는 즉시 실행됩니다. 노드마다 언제 개수가 0이 되는지 "
                  "따라가 보세요."),
    "00b-count": ("count_dependencies(root) 작성하기",
                  "개수는 노드가 아니라 간선마다 하나씩 셉니다. 노드 하나가 같은 자식을 두 번 가리킬 "
                  "수도 있습니다. 그리고 각 노드의 자식은 처음 만났을 때 한 번만 살펴보세요."),
    # -- lesson 11 (on real PyTorch) -------------------------------------------------------------
    "11-kinds": ("첫 번째 backward() 호출에만 retain을 줄 때 audit이 보고하는 것",
                 "retain_graph=True가 불필요한 것은, 유지한 노드를 그 스텝의 뒤따르는 어떤 역전파도 "
                 "실행하지 않을 때뿐입니다. 그리고 두 역전파가 모두 실행하는 노드는 어느 것입니까?"),
    "11-gan": ("audit이 아무것도 찾지 못하는 GAN 스텝",
               "판별자의 손실에 필요한 것은 D의 변화도뿐입니다. 그 역전파가 G로 들어가지 않게 "
               "막아서, G의 그래프가 G 자신의 손실로 한 번만 실행되게 하는 것은 무엇입니까?"),
    # -- lesson 12 (PyTorch's own tools) ---------------------------------------------------------
    "12-hooks": ("훅 두 개를 지난 w.grad",
                 "먼저 sum(h * h)를 h로 미분해 보세요. 텐서 훅은 그 텐서의 변화도 전체에 대해 한 번 "
                 "실행되고, 훅이 돌려준 값이 다음 노드로 흘러갑니다."),
    "12-segments": ("checkpoint_sequential에서 블록마다 실행 횟수",
                    "조각 하나에 모듈이 몇 개씩 들어가고, 남는 모듈은 어느 조각이 가져갑니까? "
                    "역전파에서 다시 실행되는 것은 체크포인팅한 조각뿐입니다."),
    "12-eval": ("그래프를 남기는 평가",
                "함수마다, out을 계산할 때 기록이 켜져 있었는지 보세요. 그것을 정하는 것은 eval()이 "
                "아니라 가장 안쪽의 변화도 모드 스위치입니다."),
    "12-function": ("사용자 정의 Function으로 만드는 softplus",
                    "`backward`에 필요한 x를 2절이 권하는 방법으로 보관하고, grad에 log(1 + e^x)의 "
                    "도함수를 곱해 돌려주세요."),
}

# The English labels and feedback the lessons' code cells pass to the helpers (a code cell is the
# same in both editions), and their Korean forms: lesson.check_value's ``what``, lesson.report's
# lines, plot_timeline's title and axis labels. i18n.localize() looks them up.
LABELS_KO = {
    "values, gradcheck, the version check and the freeing all pass.":
        "값, gradcheck, 버전 검사, 해제가 모두 통과합니다.",
    "w.grad": "w의 변화도(w.grad)",
    "x.grad after the three calls": "세 번 호출한 뒤의 x.grad",
    "[nodes run by the two calls, nodes run by one call on the sum]":
        "[두 번 호출할 때 실행되는 노드 수, 합에 한 번 호출할 때 실행되는 노드 수]",
    "[graph nodes of backward #7, of backward #8]":
        "[backward #7의 그래프 노드 수, backward #8의 그래프 노드 수]",
    "the number of parameters whose .grad stays None": ".grad가 None으로 남는 매개변수의 수",
    "the saved bytes after each iteration": "각 반복이 끝난 뒤의 저장된 바이트",
    "the peak of each iteration": "각 반복의 최대치",
    "the number of runs of each block": "블록마다 실행된 횟수",
    "backward runs, and the gradients are those of broken_forward's math.":
        "역전파가 실행되고, 변화도가 broken_forward의 수식이 주는 것과 같습니다.",
    "backward runs, but the gradients differ: the math must stay the same.":
        "역전파는 실행되지만 변화도가 다릅니다: 수식은 그대로여야 합니다.",
    "Saved bytes of the two-loss graph": "두 손실 그래프의 저장된 바이트",
    "Graph-only saved bytes during one GAN step": "GAN 스텝 하나 동안 그래프에만 있는 저장된 바이트",
    "Saved-buffer bytes alive in the graph after each step":
        "각 시점이 끝난 뒤 그래프에 살아 있는 저장된 버퍼 바이트",
    "Saved-buffer bytes alive after each training step":
        "각 학습 스텝이 끝난 뒤 살아 있는 저장된 버퍼 바이트",
    "Peak saved-buffer bytes during each training step": "학습 스텝마다의 저장된 버퍼 바이트 최대치",
    "peak saved bytes (B)": "저장된 바이트 최대치 (B)",
    "Experiment 1: saved memory in a training loop": "실험 1: 학습 루프의 저장된 메모리",
    "training iteration": "학습 반복",
    "Experiment 1: peak saved memory in each iteration": "실험 1: 반복마다의 저장된 메모리 최대치",
    "Experiment 2: saved memory after each time step": "실험 2: 각 시점이 끝난 뒤의 저장된 메모리",
    "time step t": "시점 t",
}
# Feedback lines with numbers in them (lesson.report in 09 and 10): (regex, Korean template).
FEEDBACK_KO = (
    (r"it raises: (.*)", "실행하면 {0}"),
    (r"peak ([\d,]+) B, below ([\d,]+) B, same gradients\.",
     "최대치 {0} B로 한도 {1} B보다 낮고, 변화도가 같습니다."),
    (r"peak ([\d,]+) B \(limit ([\d,]+) B\), same gradients: (True|False)\.",
     "최대치 {0} B(한도 {1} B), 변화도가 같은가: {2}."),
)
