"""The message catalogue of the lesson helpers: key -> (English, Korean) ``str.format`` templates.

English is what the helpers printed before there was a catalogue (tests compare it byte for
byte); Korean follows the glossary in ``notebooks/ko/README.md`` (변화도, 역전파, 저장된 텐서,
잎 텐서, 해제하다, 유지하다, 오류, 시점, 프레임 ...), in 합니다체, and ``tests/test_korean_terms.py``
fails on a variant the glossary rules out. A Korean sentence never carries an English label: the
call ``backward()`` is code, the pass is 역전파, and the English labels and feedback the lessons'
code cells pass in get their Korean form from LABELS_KO. Fields an English template needs only for its
plural ("{s}") are simply unused by the Korean one. Code, node and slot names, state labels
(ALIVE, FREED, RETAINED, STALE) and PyTorch's own error messages are never translated.
``tests/test_i18n.py`` checks that every key has both texts, that the Korean one uses no field
the English one lacks (but KOREAN_ONLY_FIELDS), and that every exercise has a Korean title and hint.
"""
# Fields only a Korean template uses (the callers always pass them): ordinals such as "첫 번째",
# "두 번째" (attempts.nth_ko), where the English template has a number.
KOREAN_ONLY_FIELDS = {"nth", "run_nth", "calls_nth"}

MESSAGES = {
    # -- checkers (lesson/checking.py) ------------------------------------------------------
    "not_done": (
        "✎ not done yet: replace the ... with your answer, run that cell, then run this cell "
        "again.",
        "✎ 아직 풀지 않았습니다: ...를 여러분의 답으로 바꾸고 그 셀을 실행한 다음, 이 셀을 다시 "
        "실행하세요."),
    "verdict.when": (", on your {ordinal} try", " ({nth} 시도)"),
    "verdict.correct": ("✓ correct{when}", "✓ 정답입니다{when}"),
    "verdict.wrong": ("✗ not quite ({ordinal} try)", "✗ 아쉽지만 틀렸습니다({nth} 시도)"),
    "verdict.hint": ("hint: {hint}", "힌트: {hint}"),
    "listing.nothing": ("nothing", "없음"),
    "freed.form": (
        '✗ answer with a set of "Node.slot" names, such as {{"MulBackward0.other"}} (set() if '
        'nothing is freed).',
        '✗ {{"MulBackward0.other"}}처럼 "Node.slot" 이름의 집합으로 답하세요(해제되는 버퍼가 '
        '없으면 set()).'),
    "freed.bare_string": (
        '✗ put the names in a set: {{"{name}"}}, not a bare string (a string is read letter by '
        'letter).',
        '✗ 이름을 집합에 넣어 {{"{name}"}}처럼 쓰세요. 문자열만 쓰면 한 글자씩 읽힙니다.'),
    "freed.empty_dict": (
        "✗ {{}} is an empty dict: write set() for 'nothing is freed'.",
        "✗ {{}}는 빈 dict입니다: '해제되는 버퍼가 없음'은 set()으로 쓰세요."),
    "freed.you_gave": (" You gave {type}.", " 입력한 값의 타입은 {type}입니다."),
    "freed.not_a_name": (" {value} is not a name in quotes.",
                         " {value}: 따옴표로 감싼 이름이 아닙니다."),
    "freed.no_slot": (
        '✗ "{name}" names no slot: write "NodeName.slot", such as "MulBackward0.other".',
        '✗ "{name}"에는 슬롯 이름이 없습니다: "MulBackward0.other"처럼 "NodeName.slot" 형태로 '
        '쓰세요.'),
    "freed.no_node": (
        "✗ there is no node {node} in this graph (check the spelling in the ledger).",
        "✗ 이 그래프에는 {node} 노드가 없습니다(버퍼 장부(ledger)에서 철자를 확인하세요)."),
    "freed.no_tensor": ("no tensor", "텐서 없음"),
    "freed.no_such_slot": (
        "✗ {node} has no saved slot '{slot}' (it saves {saved}).",
        "✗ {node}에는 저장된 슬롯 '{slot}'이 없습니다(저장하는 것: {saved})."),
    "freed.extra": ("{listing} {are} not freed", "해제되지 않는 버퍼가 들어 있습니다: {listing}"),
    "freed.missing": ("{n} freed buffer{s_are} missing from your set",
                      "해제되는 버퍼 {n}개가 답에서 빠졌습니다"),
    "freed.ran": ("ran", "실행되었습니다"),
    "freed.right": ("it freed {listing}.", "해제된 버퍼: {listing}."),
    "raises.form": ("✗ answer True (it raises) or False (it runs), without quotes.",
                    "✗ 따옴표 없이 True(오류가 남) 또는 False(실행됨)로 답하세요."),
    "raises.quoted": (" (the quotes make it a string)", " (따옴표가 있으면 문자열이 됩니다)"),
    "raises.it_raises": ("it raises.", "오류가 납니다."),
    "raises.it_runs": ("it runs.", "오류 없이 실행됩니다."),
    "raises.predicted_raise": ("you predicted it would raise.",
                               "오류가 난다고 예측했습니다."),
    "raises.predicted_run": ("you predicted it would run.", "오류 없이 실행된다고 예측했습니다."),
    "which.form": (
        '✗ answer with the set of the names that raise, such as {{"{first}"}} (set() if none '
        'does); the names are {choices}.',
        '✗ {{"{first}"}}처럼 오류가 나는 이름의 집합으로 답하세요(하나도 없으면 set()). '
        '이름은 {choices}입니다.'),
    "which.in_a_set": ('✗ put the name in a set: {{"{name}"}}.',
                       '✗ 이름을 집합에 넣으세요: {{"{name}"}}.'),
    "which.unknown": ('✗ "{name}" is not one of the names: {choices}.',
                      '✗ 없는 이름입니다: "{name}". 이름은 {choices} 중에서 고르세요.'),
    "which.right": ("{listing} raise{s}.", "오류가 나는 것: {listing}."),
    "which.none": ("none of them raises.", "어느 것도 오류가 나지 않습니다."),
    "which.wrong": ("at least one of them is the other way round.",
                    "적어도 하나는 예측과 반대입니다."),
    "value.not_a_tensor": (
        "✗ write the numbers you predict, not the engine's own tensor: a prediction is made "
        "before looking.",
        "✗ 엔진의 텐서가 아니라 여러분이 예측한 숫자를 쓰세요: 예측은 결과를 보기 전에 합니다."),
    "value.a_number": ("a number, such as {example}", "{example}처럼 숫자 하나"),
    "value.a_list": ("a list of {count} numbers, such as {example}",
                     "{example}처럼 숫자 {count}개의 리스트"),
    "value.answer": ("✗ answer {wanted}.", "✗ {wanted}로 답하세요."),
    "value.answer_gave": ("✗ answer {wanted}; you gave {have}.",
                          "✗ {wanted}로 답하세요. 입력한 것은 {have}입니다."),
    "value.one_number": ("one number", "숫자 하나"),
    "value.gave_list": ("a list of {count} number{s}", "숫자 {count}개의 리스트"),
    "value.right": ("{what} is {value}.", "{what}의 값은 {value}입니다."),
    "value.wrong": ("{what} is not {value}.", "여러분의 답({value})은 {what}의 값과 다릅니다."),
    "step.grad_none": ("{label} is None, but the reference step gives it a gradient",
                       "{label}: None이지만, 기준 스텝에서는 변화도가 있습니다"),
    "step.grad_extra": ("{label} got a gradient, but the reference step gives it none",
                        "{label}에 변화도가 생겼지만, 기준 스텝에서는 변화도가 없습니다"),
    "step.differs": ("{label} differs from the reference (largest difference {difference})",
                     "{label}: 기준 스텝과 다릅니다(가장 큰 차이 {difference})"),
    "step.no_backward": ("it ran no backward", "backward()를 한 번도 호출하지 않았습니다"),
    "step.and_more": (" and {n} more", " 외 {n}개"),
    "step.retained": ("{shown} of its {n} call{s} used retain_graph=True (this step needs none)",
                      "호출 {n}번 중 {shown}에서 retain_graph=True를 썼습니다(이 스텝에는 "
                      "필요 없습니다)"),
    "step.no_create_graph": (
        "no call recorded a graph of the gradient (create_graph=True), so nothing can "
        "differentiate it",
        "변화도의 그래프를 기록한 호출(create_graph=True)이 없어서 그 변화도를 미분할 수 없습니다"),
    "step.ran_times": ("{name} ran {n} times", "{name} {n}번 실행"),
    "step.more_nodes": (" and {n} more nodes", " 외 노드 {n}개"),
    "step.limit_once": ("once", "한 번만"),
    "step.limit_times": ("at most {n} times", "최대 {n}번"),
    "step.runs_over": ("{shown}{more} (each node should run {limit})",
                       "{shown}{more} (노드마다 {limit} 실행되어야 합니다)"),
    "step.not_a_function": ("✗ define a function (def ...:), not a {type}.",
                            "✗ 함수(def ...:)를 정의하세요. 지금은 {type}입니다."),
    "step.raised": ("your step raised {error}", "여러분의 스텝에서 {error}"),
    "step.peak_over": ("its peak of saved bytes was {peak} B, above the limit of {limit} B",
                       "저장된 바이트의 최대치가 {peak} B로, 한도 {limit} B를 넘었습니다"),
    "step.held": (
        "{held} B of saved buffers are still alive after it returned (something keeps a graph "
        "past the step)",
        "스텝이 끝난 뒤에도 저장된 버퍼 {held} B가 살아 있습니다(무언가가 스텝이 끝난 뒤에도 "
        "그래프를 붙잡고 있습니다)"),
    "step.backward_calls": ("{n} backward call{s}", "backward() 호출 {n}번"),
    "step.grad_calls": (" and {n} autograd.grad call{s}", ", autograd.grad 호출 {n}번"),
    "step.and": (" and ", "와 "),
    "step.what_grad": ("gradients", "변화도"),
    "step.what_value": ("parameter values", "매개변수 값"),
    "step.same": ("the same {what} as the reference, from {calls}",
                  "기준 스텝과 같은 {what}입니다. {calls}"),
    "step.no_needless_retain": (", none with a needless retain_graph",
                                ", 불필요한 retain_graph 없음"),
    "step.each_once": (", each node run once", ", 노드마다 한 번씩 실행"),
    "step.peak": (", peak {peak} B (limit {limit} B)", ", 최대치 {peak} B(한도 {limit} B)"),
    "step.max_peak_on_torch": (
        "✗ check_step(max_peak=...) measures the peak of saved bytes on autograd_lesson only: "
        "make() must build the package's tensors.",
        "✗ check_step(max_peak=...)는 autograd_lesson에서만 저장된 바이트의 최대치를 잽니다: "
        "make()가 이 패키지의 텐서를 만들어야 합니다."),
    # -- progress (lesson/attempts.py) --------------------------------------------------------
    "status.not_done": ("not done yet", "아직 풀지 않음"),
    "status.not_yet_right": ("not yet right ({n} {tries})", "아직 못 맞힘({n}번 시도)"),
    "status.first_try": ("done, on the first try", "완료, 첫 시도에 맞힘"),
    "status.done_on": ("done, on the {ordinal} try", "완료, {nth} 시도에 맞힘"),
    "progress.head": ("Lesson {lesson}: {done} of {n} done, {first} on the first try",
                      "강의 {lesson}: {n}개 중 {done}개 완료, 첫 시도에 맞힌 것 {first}개"),
    # -- verdicts and showing (viz/record.py, lesson/showing.py) -------------------------------
    "verdict.no_error": ("✓ no error", "✓ 오류 없음"),
    "verdict.error": ("✗ {type}: {message}", "✗ {type} 발생: {message}"),
    "show.ran_nodes": ("✓ {label} ran {n} nodes", "✓ {label}: 노드 {n}개를 실행했습니다"),
    "show.not_code": (
        '✗ {where}() takes the code to run: a string such as "loss.backward()" or a function, '
        'got {type}',
        '✗ {where}()에는 실행할 코드를 넘기세요: "loss.backward()" 같은 문자열이나 함수입니다. '
        '지금은 {type}입니다'),
    "show.not_a_tensor": (
        "✗ {where}(): {label} is {article} {kind}, not a tensor; name the tensors to draw, "
        "e.g. {where}(..., x=x, loss=loss)",
        "✗ {where}(): {label}의 타입은 텐서가 아니라 {kind}입니다. 그릴 텐서에 이름을 붙여 "
        "넘기세요. 예: {where}(..., x=x, loss=loss)"),
    "show.no_graph": (
        "✗ {where}(): no graph to draw: {names} {does} not require grad; make the inputs with "
        "requires_grad=True and name what you compute from them",
        "✗ {where}(): 그릴 그래프가 없습니다: {names}에 변화도가 필요하지 않습니다"
        "(requires_grad=False). 입력을 requires_grad=True로 만들고, 그 입력으로 계산한 텐서에 "
        "이름을 붙여 넘기세요"),
    "title.before_after": ("before {label} → after {label} ({outcome})",
                           "{label} 호출 전 → 호출 후 ({outcome})"),
    "title.ran": ("ran", "실행됨"),
    "title.raised": ("raised", "오류 발생"),
    "steps.nothing": (
        "{label}: no backward ran, so there is nothing to step through; pass code that calls "
        ".backward() or autograd.grad()",
        "{label}: 역전파가 실행되지 않아 한 노드씩 따라가 볼 것이 없습니다. .backward()나 "
        "autograd.grad()를 호출하는 코드를 넘기세요"),
    "steps.title": ("{label}: {n} steps", "{label}: 프레임 {n}개"),
    "steps.frame_title": ("step {step} of {n}: {text}", "프레임 {step}/{n}: {text}"),
    "steps.static_header": (
        "Static copy of {shown} of {n} steps{note}: run this cell to get the step slider.",
        "프레임 {n}개 중 {shown}개를 담은 정지 그림입니다{note}. 이 셀을 실행하면 프레임 "
        "슬라이더가 나타납니다."),
    "steps.left_out": ("steps {first}–{last} of {n} are left out here",
                       "프레임 {first}–{last}번은 여기서 생략했습니다"),
    "steps.slider": ("step", "프레임"),
    # one line per frame (viz/record.py Frame.text): names, gradients, messages as they are
    "frame.line": ("step {step}: #{node_id} {name}", "프레임 {step}: #{node_id} {name}"),
    "frame.raised": ("{line} raised: {verdict}", "{line}에서 실패: {verdict}"),
    "frame.got": ("got grad {grads}", "받은 변화도 {grads}"),
    "frame.released": ("released {slots}", "해제한 버퍼 {slots}"),
    "frame.accumulated": ("accumulated into {target}", "{target}에 누적"),
    "frame.unnamed_leaf": ("a leaf.grad", "이름 없는 잎 텐서의 .grad"),
    "steps.whole": ("whole graph", "전체 그래프"),
    "steps.whole_tip": ("draw every node instead of folding the rest",
                        "나머지를 접지 않고 모든 노드를 그립니다"),
    "render.dot_missing": (
        "(picture not rendered: Graphviz's 'dot' program is missing; install it with "
        "'apt-get install graphviz', 'brew install graphviz' or 'conda install -c conda-forge "
        "graphviz')",
        "(그림을 그리지 못했습니다: Graphviz의 'dot' 프로그램이 없습니다. 'apt-get install "
        "graphviz', 'brew install graphviz' 또는 'conda install -c conda-forge graphviz'로 "
        "설치하세요)"),
    "timeline.title": ("Saved-buffer memory per step", "스텝마다의 저장된 버퍼 메모리"),
    "timeline.xlabel": ("step", "스텝"),
    "timeline.ylabel": ("saved bytes alive (B)", "살아 있는 저장된 바이트 (B)"),
    # -- pictures (viz/dot.py): node marks, legend, headings, folded groups --------------------
    "node.ran": ("✓ ran", "✓ 실행됨"),
    "node.now": ("▶ running now", "▶ 지금 실행 중"),
    "node.failed": ("✗ backward failed here", "✗ 여기서 역전파 실패"),
    "node.group": ("▤ group", "▤ 그룹"),
    "node.accumulated": ("✓ gradient accumulated", "✓ 변화도 누적됨"),
    "node.accumulating": ("▶ accumulating now", "▶ 지금 누적 중"),
    "legend.alive": ("saved, not used by a backward yet",
                     "살아 있음: 저장되었고 아직 역전파가 쓰지 않음"),
    "legend.retained": ("kept by retain_graph=True", "유지됨: retain_graph=True가 남겨 둠"),
    "legend.freed": ("released by a backward", "해제됨: 역전파가 해제함"),
    "legend.stale": ("changed in place: backward will raise",
                     "낡음: 제자리 연산으로 바뀜, 역전파에서 오류가 남"),
    "legend.ran": ("node ran in this call", "이 호출에서 실행된 노드"),
    "legend.now": ("node running now", "지금 실행 중인 노드"),
    "legend.failed": ("where backward raised", "역전파가 오류를 낸 곳"),
    "legend.group": ("folded nodes", "접힌 노드"),
    "heading.totals": ("saved buffers hold {total} B, {only} B of it only in the graph",
                       "저장된 버퍼 {total} B, 그중 {only} B는 그래프에만 있음"),
    "heading.totals_change": (
        "saved buffers hold {total0} B → {total1} B ({only0} B → {only1} B only in the graph)",
        "저장된 버퍼 {total0} B → {total1} B (그래프에만 있는 것 {only0} B → {only1} B)"),
    "group.leaves": ("{n} leaves", "잎 {n}개"),
    "group.nodes": ("{n} nodes", "노드 {n}개"),
    "group.all_ran": ("all ran", "모두 실행됨"),
    "group.none_ran": ("none ran", "실행된 것 없음"),
    "group.some_ran": ("{n} ran", "{n}개 실행됨"),
    "group.head": ("{key}: {what} folded ({ran})", "{key}: {what} 접음 ({ran})"),
    "group.buffers": ("{n} buffer{s} {move}", "버퍼 {n}개 {move}"),
    "group.live": ("{bytes} B saved here now", "지금 여기에 저장된 양 {bytes} B"),
    "group.unfold": ("fold=False draws them", "fold=False로 모두 그립니다"),
    # -- the retain_graph doctor (lesson/audit.py); finding kinds, "backward #N", the step's
    # file:line (or "cell line N") and code stay English --------------------------------------
    "audit.head": ("audit of {label}: {n} backward call{s}",
                   "{label} 진단: backward() 호출 {n}번"),
    "audit.the_step": ("the step", "스텝"),
    "audit.no_findings": (", no findings", ", 발견된 문제 없음"),
    "audit.findings": (", {n} finding{s}", ", 발견된 문제 {n}개"),
    "audit.finding": ("{kind}: {message}\n  fix: {fix}", "{kind}: {message}\n  해결: {fix}"),
    "audit.and": ("{rest} and {last}", "{rest} 및 {last}"),
    "audit.failed": ("{label} failed: {message}", "{label} 실패: {message}"),
    "audit.freed_by": ("; {label} had freed it", "; 앞서 {label}에서 해제되었습니다"),
    "audit.reached": (
        "on call {run} of the step, {text}; it reached into the graph call {built} built "
        "({names})",
        "스텝의 {run_nth} 호출에서 {text}; 스텝의 {nth} 호출이 만든 그래프({names})까지 "
        "거슬러 올라갔습니다"),
    "audit.fix_freed": (
        "compute the losses first and call backward once on their sum; if the earlier "
        "backward should not reach those nodes (a GAN's D step through G), detach its input "
        "(fake.detach()); or pass retain_graph=True to every backward but the last one over "
        "the shared graph",
        "손실을 먼저 모두 계산하고 그 합에 backward()를 한 번 호출하세요. 앞선 역전파가 그 노드들에 "
        "닿으면 안 된다면(G를 지나는 GAN의 D 스텝) 그 입력을 떼어 내세요(fake.detach()). 아니면 "
        "공유 그래프를 지나는 backward() 호출 중 마지막을 뺀 모두에 retain_graph=True를 넘기세요"),
    "audit.fix_stale": (
        "call every backward before the in-place change (optimizer.step(), x += ...) or "
        "rebuild the forward after it; use an out-of-place op (x = x + ...) if the old value "
        "is still needed",
        "제자리 변경(optimizer.step(), x += ...) 전에 backward()를 모두 호출하거나, 변경한 뒤에 "
        "순전파를 다시 하세요. 예전 값이 계속 필요하면 제자리가 아닌 연산(x = x + ...)을 쓰세요"),
    "audit.fix_carry": (
        "detach what the step carries into its next call (hidden = hidden.detach()), so that "
        "each call backpropagates only through the graph it built",
        "스텝이 다음 호출로 넘기는 텐서를 떼어 내세요(hidden = hidden.detach()). 그러면 호출마다 "
        "자기가 만든 그래프만 역전파합니다"),
    "audit.unused_retain": (
        "{label} kept {bytes} of saved tensors (retain_graph=True: {names}) that no later "
        "backward used",
        "{label}에서 저장된 텐서 {bytes}(retain_graph=True: {names})를 유지했지만 이후의 어떤 "
        "역전파도 쓰지 않았습니다"),
    "audit.fix_unused": (
        "drop retain_graph=True from that backward: the graph is freed as it runs",
        "그 backward() 호출에서 retain_graph=True를 빼세요: 그래프는 역전파가 지나가면서 해제됩니다"),
    "audit.double": (
        "{n} node{s} with saved tensors ran in {runs}: {names} ({bytes} kept for the repeat)",
        "저장된 텐서가 있는 노드 {n}개가 {runs}에서 실행되었습니다: {names} (반복을 위해 "
        "{bytes} 유지)"),
    "audit.fix_double": (
        "sum the losses and call backward once; for a step that must not reach a sub-network "
        "(a GAN's D step), detach its input (fake.detach())",
        "손실을 더해서 backward()를 한 번 호출하세요. 하위 네트워크에 닿으면 안 되는 스텝(GAN의 D "
        "스텝)이라면 그 입력을 떼어 내세요(fake.detach())"),
    "audit.grows": (
        "after calls {calls} of the step, graphs it built are still alive: {sizes} of saved "
        "tensors in {nodes} nodes",
        "스텝의 {calls_nth} 호출이 끝난 뒤에도 스텝이 만든 그래프가 살아 있습니다: 노드 "
        "{nodes}개에 저장된 텐서 {sizes}"),
    "audit.fix_grows": (
        "keep numbers, not graphs, across steps: total += loss.item(); carry a hidden state as "
        "h = h.detach()",
        "스텝을 넘어 그래프가 아니라 숫자를 들고 가세요: total += loss.item(). 은닉 상태는 "
        "h = h.detach()로 넘기세요"),
    "audit.raised": (
        "✗ {label} raised {type}: {message} (make it run, then audit it again)",
        "✗ {label}에서 {type} 발생: {message} (오류 없이 실행되게 고친 다음 다시 진단하세요)"),
    "audit.raised_on_call": (
        "✗ {label} raised {type} on call {run}: {message} (make it run, then audit it again)",
        "✗ {label}의 {run_nth} 호출에서 {type} 발생: {message} (오류 없이 실행되게 고친 다음 "
        "다시 진단하세요)"),
    "audit.not_a_function": (
        "✗ audit() takes the step as a function, got {type}: pass it uncalled, e.g. "
        "lesson.audit(train_step, batch)",
        "✗ audit()에는 스텝을 함수로 넘기세요. 지금은 {type}입니다: 호출하지 말고 그대로 "
        "넘기세요. 예: lesson.audit(train_step, batch)"),
    # -- on real PyTorch (lesson/on_torch.py) -----------------------------------------------
    "on_torch.install": (
        "torch is not installed, so this optional part is skipped: pip install torch (or pip "
        "install 'autograd-lesson[torch]'){end}",
        "torch가 설치되어 있지 않아 이 선택 부분을 건너뜁니다: pip install torch (또는 pip "
        "install 'autograd-lesson[torch]'){end}"),
    "on_torch.skip_rest": (
        "; the cells below are skipped until you install it and restart the kernel",
        ". 설치한 뒤 커널을 다시 시작할 때까지 아래 셀들은 건너뜁니다"),
    "on_torch.bad_arguments": (
        'on_real_torch(program, code) takes a function of torch that returns its tensors by '
        'name, and the call as a string, e.g. lesson.on_real_torch(two_losses, '
        '"loss1.backward()")',
        'on_real_torch(program, code)는 torch를 받아 텐서들을 이름과 함께 반환하는 함수와, 호출을 '
        '담은 문자열을 받습니다. 예: lesson.on_real_torch(two_losses, "loss1.backward()")'),
    "on_torch.program_raised": ("{name}(torch) raised {error}", "{name}(torch)에서 {error}"),
    "on_torch.not_a_dict": (
        "{name}(torch) must return its tensors by name, as a dict such as dict(x=x, loss=loss); "
        "it returned {type}",
        "{name}(torch)는 dict(x=x, loss=loss)처럼 텐서들을 이름과 함께 dict로 반환해야 합니다. "
        "반환한 값의 타입은 {type}입니다"),
    "on_torch.on_pytorch": ("on PyTorch {version}:\n{text}", "PyTorch {version}에서:\n{text}"),
    "on_torch.same_text": ("autograd_lesson printed the same text: {same}",
                           "autograd_lesson이 출력한 텍스트와 같은가: {same}"),
    "findings.form": (
        '✗ answer with a set of kinds, such as {{"unused-retain"}} (set() if audit finds '
        'nothing); the kinds are {kinds}.',
        '✗ {{"unused-retain"}}처럼 발견된 문제의 종류를 집합으로 답하세요(audit이 아무것도 '
        '찾지 못하면 set()). 종류는 {kinds}입니다.'),
    "findings.bare_string": ('✗ put the kind in a set: {{"{kind}"}}.',
                             '✗ 종류를 집합에 넣어 {{"{kind}"}}처럼 쓰세요.'),
    "findings.not_a_kind": ('✗ "{kind}" is not a kind of finding: {kinds}.',
                            '✗ "{kind}"는 발견된 문제의 종류가 아닙니다. 종류: {kinds}.'),
    "findings.right": ("audit reports {listing}.", "audit이 보고하는 것: {listing}."),
    "findings.wrong": ("at least one kind is missing or extra.",
                       "빠졌거나 더 들어간 종류가 있습니다."),
    "step_audit.raised": ("your step raised {error}", "여러분의 스텝에서 {error}"),
    "step_audit.differs": (
        "{name} differs from the reference step (largest difference {diff})",
        "{name}: 기준 스텝의 결과와 다릅니다(가장 큰 차이 {diff})"),
    "step_audit.finds": ("audit finds {kind}", "audit이 찾은 것: {kind}"),
    "step_audit.right": (
        "the same parameters as the reference after one step, and audit finds nothing.",
        "한 스텝 뒤의 매개변수가 기준 스텝과 같고, audit이 아무것도 찾지 못합니다."),
    # -- inside the engine (lesson/inside_engine.py): line numbers count from run_backward's
    # def; node names and code stay English --------------------------------------------------
    "engine.steps_title": ("{label}: {n} steps of run_backward's loop",
                           "{label}: run_backward 반복문의 프레임 {n}개"),
    "engine.no_count": (
        "your count_dependencies(root) gave no count for {node}, a node this backward reaches",
        "여러분의 count_dependencies(root)가 이 역전파가 닿는 노드 {node}의 개수를 주지 "
        "않았습니다"),
    "engine.raised": ("your {piece} raised {type}: {message}",
                      "여러분의 {piece}에서 {type} 발생: {message}"),
    "engine.count_form": (
        "your count_dependencies(root) returned {type}; it must return a dict: node -> the number of edges pointing at it",
        "여러분의 count_dependencies(root)가 반환한 값의 형식은 {type}입니다. 노드 -> 그 노드를 가리키는 간선 수의 dict를 반환해야 합니다"),
    "engine.count_value": (
        "your count_dependencies(root) gave the count {value}; every count must be an int",
        "여러분의 count_dependencies(root)가 준 개수 중에 int가 아닌 값이 있습니다: {value}. 개수는 모두 int여야 합니다"),
    "engine.key_form": (
        "your ready_key(node) returned {type}; it must return a number (the smallest runs first)",
        "여러분의 ready_key(node)가 반환한 값의 형식은 {type}입니다. 숫자를 반환해야 합니다(가장 작은 것이 먼저 실행됩니다)"),
    "engine.release_form": (
        "your release_saved(node, keep_graph) returned {type}; it must return the slots it released (what node._release_variables() returns), or () when the graph is kept",
        "여러분의 release_saved(node, keep_graph)가 반환한 값의 형식은 {type}입니다. 해제한 슬롯들(node._release_variables()가 돌려주는 것)을, 그래프를 유지할 때는 ()를 반환해야 합니다"),
    "engine.plug_names": ("✗ name the piece to plug in: {names} (got {name}).",
                          "✗ 끼워 넣을 부분의 이름을 쓰세요: {names} (받은 것: {name})."),
    "engine.not_a_function": ("✗ {piece} must be a function (def ...:), not a {type}.",
                              "✗ {piece}에는 함수(def ...:)가 와야 합니다. 받은 것의 형식: {type}."),
    "engine.ran": ("it ran without error", "오류 없이 실행되었습니다."),
    "engine.raised_error": ("it raised {type}: {message}", "{type} 발생: {message}"),
    "engine.early": (
        "the real engine runs it only at step {step}, once every gradient for it has arrived",
        "실제 엔진은 그 노드로 갈 변화도가 모두 도착한 뒤, {step}번째 노드 실행에서야 그 노드를 실행합니다"),
    "engine.again": ("it had already run", "이미 실행된 노드입니다"),
    "engine.never": ("the real engine does not run it in this call",
                     "실제 엔진은 이 호출에서 그 노드를 실행하지 않습니다"),
    "engine.order": (
        "step {step}: the real engine ran {real}, yours ran {theirs} ({why})",
        "{step}번째 노드 실행: 실제 엔진이 실행한 노드는 {real}, 여러분의 엔진이 실행한 노드는 {theirs}입니다({why})"),
    "engine.freed": (
        "step {step}: after {node} ran, the real engine had freed {real}, yours {theirs}",
        "{step}번째 노드 실행: 노드 {node} 실행 뒤 실제 엔진이 해제한 것은 {real}, 여러분의 엔진이 해제한 것은 {theirs}입니다"),
    "engine.stopped": (
        "yours stopped after step {n}, where the real engine goes on with {node}: in yours it never became ready (its count never reached 0)",
        "여러분의 엔진은 노드 실행 {n}번 뒤에 멈췄지만 실제 엔진은 이어서 노드 {node}를 실행합니다. 여러분의 엔진에서는 그 노드가 준비되지 않았습니다(개수가 0이 되지 않았습니다)"),
    "engine.extra": (
        "the real engine had finished after step {n}, but yours went on with {node}",
        "실제 엔진은 노드 실행 {n}번으로 끝났지만 여러분의 엔진은 이어서 노드 {node}를 실행했습니다"),
    "engine.outcome": ("in the real engine {real}; in yours {theirs}",
                       "실제 엔진에서는 {real} 여러분의 엔진에서는 {theirs}"),
    "engine.grad": ("{name}.grad differs from the real engine's",
                    "{name}.grad가 실제 엔진의 값과 다릅니다"),
    "engine.graph": ("after the call, a saved slot of the graph is in another state than in the "
                     "real engine",
                     "호출이 끝난 뒤 그래프의 저장된 슬롯 하나의 상태가 실제 엔진과 다릅니다"),
    "engine.note": ("{where}, “{note}”: the result differs from the real engine's.",
                    "{where}, “{note}”: 결과가 실제 엔진과 다릅니다."),
    "engine.in_call": ("{where}, call “{call}”, {text}.", "{where}, 호출 “{call}”, {text}."),
    "engine.calls": ("{where}: the real engine's run made {real} calls, yours {theirs}.",
                     "{where}: 실제 엔진에서는 호출이 {real}번, 여러분의 엔진에서는 {theirs}번이었습니다."),
    "engine.crashed": ("{where}: the scenario's own code then failed: {error}.",
                       "{where}: 그다음 시나리오 코드 자체가 실패했습니다: {error}"),
    "engine.same": (
        "the seven scenarios ran with your {pieces} as with the real engine: {calls} calls of backward or autograd.grad, {steps} node runs in the same order, the same slots freed after each, the same errors and .grad values.",
        "일곱 가지 시나리오가 여러분의 {pieces}로도 실제 엔진과 똑같이 실행되었습니다: `backward()`나 autograd.grad 호출 {calls}번, 같은 순서로 노드 실행 {steps}번, 노드마다 같은 슬롯 해제, 같은 오류와 .grad 값."),
    "scenario.multi_loss": ("the multiple-losses scenario", "여러 개의 손실 시나리오"),
    "scenario.gan": ("the GAN scenario", "GAN 시나리오"),
    "scenario.shared_backbone": ("the shared-backbone scenario", "공유 백본 시나리오"),
    "scenario.rnn": ("the RNN scenario", "RNN 시나리오"),
    "scenario.wgan_gp": ("the WGAN-GP scenario", "WGAN-GP 시나리오"),
    "scenario.sequential": ("the sequential-optimization scenario", "순차적 최적화 시나리오"),
    "scenario.conditional": ("the conditional-paths scenario", "조건부 경로 시나리오"),
    "order.form": (
        '✗ answer with a list of the names, in the order their nodes run, such as ["loss", '
        '...]; the names are {choices}.',
        '✗ ["loss", ...]처럼 노드가 실행되는 순서대로 이름의 리스트로 답하세요. 이름은 {choices}'
        '입니다.'),
    "order.unknown": ('✗ "{name}" is not one of the names: {choices}.',
                      '✗ 없는 이름입니다: "{name}". 이름은 {choices} 중에서 고르세요.'),
    "order.right": ("the nodes ran in the order {order}.", "노드가 실행된 순서: {order}."),
    "order.count": ("the backward runs {n} of these nodes, and you listed {given}.",
                    "이 역전파는 이 노드 중 {n}개를 실행하는데, 여러분은 {given}개를 적었습니다."),
    "order.wrong": ("the order first differs at position {n} of {total}.",
                    "{total}개 중 {n}번째 자리에서 처음으로 순서가 다릅니다."),
}

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
