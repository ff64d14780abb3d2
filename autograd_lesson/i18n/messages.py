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
        '✗ answer with a set of "Node.slot" names, such as {{"PowBackward0.self"}} (set() if '
        'nothing is freed).',
        '✗ {{"PowBackward0.self"}}처럼 "Node.slot" 이름의 집합으로 답하세요(해제되는 버퍼가 '
        '없으면 set()).'),
    "freed.bare_string": (
        '✗ put the names in a set: {{"{name}"}}, not a bare string (a string is read letter by '
        'letter).',
        '✗ 이름을 집합에 넣어 {{"{name}"}}처럼 쓰세요. 문자열만 쓰면 한 글자씩 읽힙니다.'),
    "freed.a_list": (
        "✗ the question asks for a set: write the names in curly braces, {braces}, not in a "
        "list (a set has no order and no repeats).",
        "✗ 집합으로 답하세요: 목록(list)이 아니라 중괄호로 {braces}처럼 씁니다(집합에는 순서도 "
        "중복도 없습니다)."),
    "freed.empty_dict": (
        "✗ {{}} is an empty dict: write set() for 'nothing is freed'.",
        "✗ {{}}는 빈 dict입니다: '해제되는 버퍼가 없음'은 set()으로 쓰세요."),
    "freed.you_gave": (" You gave {type}.", " 입력한 값의 타입은 {type}입니다."),
    "freed.not_a_name": (" {value} is not a name in quotes.",
                         " {value}: 따옴표로 감싼 이름이 아닙니다."),
    "freed.no_slot": (
        '✗ "{name}" names no slot: write "NodeName.slot", such as "PowBackward0.self".',
        '✗ "{name}"에는 슬롯 이름이 없습니다: "PowBackward0.self"처럼 "NodeName.slot" 형태로 '
        '쓰세요.'),
    "freed.no_node": (
        "✗ there is no node {node} in this graph (check the spelling in the ledger).",
        "✗ 이 그래프에는 {node} 노드가 없습니다(버퍼 장부(ledger)에서 철자를 확인하세요)."),
    "freed.no_such_slot": (
        "✗ {node} has no slot '{slot}': its slots are {slots}.",
        "✗ {node}에는 '{slot}' 슬롯이 없습니다. 슬롯 이름은 {slots}입니다."),
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
    "step.backwards_over": ("it called backward {n} times (the exercise asks for {limit})",
                            "backward()를 {n}번 호출했습니다(이 연습은 {limit}번을 요구합니다)"),
    "step.hint_retain": (
        "nothing runs this graph again after that backward: drop retain_graph=True, so the "
        "backward frees the buffers as it goes.",
        "그 역전파 뒤에 이 그래프를 다시 실행하는 곳이 없습니다: retain_graph=True를 지워서 "
        "역전파가 지나가며 버퍼를 해제하게 하세요."),
    "order.run_first": (
        "✗ `{name}` is not defined yet: run the cell that defines it first (Run ▸ Run All Above "
        "Selected Cell runs every cell above this one), then this cell again.",
        "✗ 이름 `{name}`은 아직 정의되지 않았습니다: 그것을 정의하는 셀을 먼저 실행하세요(Run ▸ Run "
        "All Above Selected Cell은 이 셀 위의 모든 셀을 실행합니다). 그다음 이 셀을 다시 "
        "실행하세요."),
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
    "step.warned": ("note: your step gave a warning: {warning}",
                    "참고: 여러분의 스텝에서 경고가 나왔습니다: {warning}"),
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
    "steps.title_capped": ("{label}: {shown} of {n} steps (frames stop at {shown})",
                           "{label}: 프레임 {n}개 중 {shown}개 (프레임은 {shown}개까지만 "
                           "기록합니다)"),
    "steps.whole_too_large": (
        "The whole graph has {n} nodes: drawing more than {most} takes too long here; the "
        "folded picture shows what this step changed.",
        "전체 그래프에 노드가 {n}개 있어, {most}개가 넘는 그래프는 여기서 그리기에 너무 오래 "
        "걸립니다. 접은 그림에서 이 프레임이 바꾼 것을 볼 수 있습니다."),
    "steps.frame_title": ("step {step} of {n}: {text}", "프레임 {step}/{n}: {text}"),
    "steps.static_header": (
        "Static copy of {shown} of {n} steps{note}: run this cell to get the step slider.",
        "프레임 {n}개 중 {shown}개를 담은 정지 그림입니다{note}. 이 셀을 실행하면 프레임 "
        "슬라이더가 나타납니다."),
    "steps.first_only": (
        "Static copy of step 1 of {n}: run this cell to get the step slider for the others.",
        "프레임 {n}개 중 1번만 담은 정지 그림입니다. 이 셀을 실행하면 나머지 프레임을 볼 수 있는 "
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
    "steps.legend": ("legend", "범례"),
    # a module-box picture's buttons (viz/live.py Depths): redraw at another depth
    "depth.label": ("depth", "깊이"),
    "depth.tip": ("module levels drawn as boxes: 1 boxes the model's children, 2 theirs ...",
                  "상자로 그릴 모듈 단계: 1은 모델의 자식 모듈, 2는 그 자식 모듈 ..."),
    "depth.table": ("modules at depth {n}", "깊이 {n}의 모듈"),
    # a picture taller than a screen shows its top part (viz/glance.py), a step its window
    "view.left_out": ("▼ {n} {boxes} below left out here: {names}",
                      "▼ 아래의 상자 {n}개는 여기서 생략했습니다: {names}"),
    "view.window": ("the part around {name}; {n} {boxes} outside it left out here",
                    "{name} 주변만 보입니다. 바깥의 상자 {n}개는 여기서 생략했습니다"),
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
    "group.leaves": ("{n} {leaves}", "잎 {n}개"),
    "group.nodes": ("{n} node{s}", "노드 {n}개"),
    "group.all_ran": ("all ran", "모두 실행됨"),
    "group.none_ran": ("none ran", "실행된 것 없음"),
    "group.some_ran": ("{n} ran", "{n}개 실행됨"),
    "group.head": ("{key}: {what} folded ({ran})", "{key}: {what} 접음 ({ran})"),
    "group.buffers": ("{n} buffer{s} {move}", "버퍼 {n}개 {move}"),
    "group.live": ("{bytes} B saved here now", "지금 여기에 저장된 양 {bytes} B"),
    "group.live_moved": ("{before} B → {bytes} B saved here", "여기에 저장된 양 {before} B → {bytes} B"),
    "group.unfold": ("fold=False draws them", "fold=False로 모두 그립니다"),
    "group.deeper": ("depth={n} opens it, fold=False all", "depth={n}으로 펼치고 fold=False로 모두 그립니다"),
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
    "audit.note": ("note: {note}", "참고: {note}"),
    "audit.line": ("line {line}", "{line}행"),
    "audit.lines": ("lines {rest} and {last}", "{rest}, {last}행"),
    "audit.times": (" (×{n} calls, {lines})", " (호출 ×{n}, {lines})"),
    "audit.times_nowhere": (" (×{n} calls)", " (호출 ×{n})"),
    "audit.write_at": ("`{code}` at {place}", "{place}의 `{code}`"),
    "audit.write_step": ("an optimizer step", "옵티마이저 스텝"),
    "audit.write_unknown": ("an in-place write", "제자리 쓰기"),
    "audit.stale_by": ("; changed in place by {write}", "; {write}에서 제자리 변경되었습니다"),
    "audit.weights_changed": (
        "; in between, the weights its saved tensors hold changed in place ({writes})",
        "; 그 사이에 저장된 텐서가 가리키는 가중치가 제자리에서 바뀌었습니다({writes})"),
    "audit.fix_fresh": (
        "run the forward again after the weights change and call backward on the new loss; "
        "retain_graph=True on {label} would not do: the kept tensors are stale, so the "
        "backward would fail with the in-place version error instead",
        "가중치가 바뀐 뒤에 순전파를 다시 하고 새 손실로 backward()를 호출하세요. {label}에 "
        "retain_graph=True를 주어도 소용없습니다: 유지된 텐서가 이미 낡아서, 역전파가 대신 "
        "제자리 변경 버전 오류로 실패합니다"),
    "audit.fix_sum": (
        "only the total gradient is used: add the losses and call backward once, "
        "({a} + {b}).backward()",
        "합친 변화도만 쓰입니다: 손실을 더해서 backward()를 한 번 호출하세요. "
        "({a} + {b}).backward()"),
    "audit.fix_detach": (
        "the gradients {label} put into the sub-network both backwards reach were not used "
        "(the optimizer step between them updated other parameters): detach that "
        "sub-network's output in the first loss (fake.detach()), so the first backward stops "
        "there",
        "{label}이 두 역전파가 모두 지나는 하위 네트워크에 남긴 변화도는 쓰이지 않았습니다(그 사이의 "
        "옵티마이저 스텝은 다른 매개변수를 갱신했습니다): 첫 손실에서 그 하위 네트워크의 출력을 "
        "떼어 내세요(fake.detach()). 그러면 첫 역전파가 거기서 멈춥니다"),
    "audit.fix_one_grad": (
        "both are first-order gradients of the same output: one call over both inputs gives "
        "them in one pass, {example}",
        "둘 다 같은 출력의 1계 변화도입니다: 두 입력을 한 번에 넘기는 호출 하나로 한 번의 "
        "역전파에 얻습니다. {example}"),
    "audit.fix_batched": (
        "the gradients of each loss are used separately: take them in one call, "
        "torch.autograd.grad(torch.stack(losses), params, grad_outputs=torch.eye(len(losses)), "
        "is_grads_batched=True), or give each backward only the inputs it needs (inputs=...)",
        "손실마다 따로 변화도를 씁니다: 호출 하나로 얻으세요. "
        "torch.autograd.grad(torch.stack(losses), params, grad_outputs=torch.eye(len(losses)), "
        "is_grads_batched=True). 아니면 역전파마다 필요한 입력만 넘기세요(inputs=...)"),
    "audit.fix_stale_at": (
        "call every backward that needs the old values before {write}, or run the forward "
        "again after it; use an out-of-place op (x = x + ...) if the old value is still needed",
        "예전 값이 필요한 backward()를 모두 {write} 전에 호출하거나, 그 뒤에 순전파를 다시 하세요. "
        "예전 값이 계속 필요하면 제자리가 아닌 연산(x = x + ...)을 쓰세요"),
    "audit.stopped": (
        "{label} raised, so the step stopped there: the backwards after it did not run and "
        "are not judged",
        "{label}에서 오류가 나서 스텝이 거기서 멈췄습니다: 그 뒤의 역전파는 실행되지 않았으므로 "
        "판단하지 않습니다"),
    "audit.not_judged": (
        "; nor is retain_graph=True on {labels} (a backward that did not run might use it)",
        "; {labels}의 retain_graph=True도 판단하지 않습니다(실행되지 않은 역전파가 쓸 수 있습니다)"),
    "audit.wrapped": (
        "{label} ran on torch.func wrapper tensors (torch.func.grad, vmap): audit does not "
        "look inside them",
        "{label}은 torch.func 래퍼 텐서(torch.func.grad, vmap)에서 실행되었습니다: audit은 그 "
        "안을 들여다보지 않습니다"),
    "audit.calls_at": ("{n} backwards at {where}", "{where}의 역전파 {n}번"),
    "audit.check_line": ("\n  tried on a copy of the step: {check}",
                         "\n  스텝의 복사본에서 해 본 결과: {check}"),
    "audit.verified": ("verified", "확인됨"),
    "audit.not_verified": ("not verified", "확인되지 않음"),
    "audit.check_unsafe": ("not verified: the step reaches objects audit could not copy",
                           "확인되지 않음: 스텝이 audit이 복사할 수 없는 객체에 닿습니다"),
    "audit.check_fails": ("not verified: the fix fails too: {error}",
                          "확인되지 않음: 이 해결책도 실패합니다: {error}"),
    "audit.check_nothing": ("not verified: it runs, but the step as written fails, so there is "
                            "nothing to compare with",
                            "확인되지 않음: 실행되지만 원래 스텝이 실패해서 비교할 기준이 없습니다"),
    "audit.check_drop": ("without retain_graph=True on {label} the step runs",
                         "{label}에 retain_graph=True가 없어도 스텝이 실행됩니다"),
    "audit.check_sum": ("with {label} and {second} as one backward the step runs",
                        "{label}과 {second}를 한 번의 역전파로 합쳐도 스텝이 실행됩니다"),
    "audit.check_detach": ("with {label} stopped before the shared sub-network the step runs",
                           "{label}이 공유 하위 네트워크 앞에서 멈춰도 스텝이 실행됩니다"),
    "audit.check_same": (" and gives the same gradients and weights",
                         ". 변화도와 가중치도 같습니다"),
    "audit.check_differs": (", but the gradients or weights differ",
                            ". 하지만 변화도나 가중치가 다릅니다"),
    "audit.check_retain_stale": (
        "with retain_graph=True on {label}, {second} fails with the in-place version error "
        "instead",
        "{label}에 retain_graph=True를 주면 {second}가 대신 제자리 변경 버전 오류로 실패합니다"),
    "audit.check_retain_runs": ("with retain_graph=True on {label} the step runs",
                                "{label}에 retain_graph=True를 주면 스텝이 실행됩니다"),
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
        "torch is not installed, so this optional part is skipped: install the CPU build in a "
        "cell, {pip}, then restart the kernel{end}",
        "torch가 설치되어 있지 않아 이 선택 부분을 건너뜁니다: 셀에서 {pip}로 CPU 빌드를 설치한 "
        "뒤 커널을 다시 시작하세요{end}"),
    "on_torch.skip_rest": (
        "torch is not installed, so the lesson's cells below do not run: each shows the output "
        "stored from a run with PyTorch {version}. To run them, install its CPU build into this "
        "kernel's environment with a cell\n{pip}\n(or `make torch` in the project's folder), then "
        "restart the kernel (Kernel > Restart Kernel) and run the notebook again.",
        "torch가 설치되어 있지 않아 아래 강의 셀들은 실행되지 않고, PyTorch {version}으로 실행했을 "
        "때 저장된 출력을 보여 줍니다. 실행하려면 이 커널의 환경에 CPU 빌드를 셀에서\n{pip}\n로 "
        "설치한 뒤(또는 프로젝트 폴더에서 `make torch`), 커널을 다시 시작하고(Kernel > Restart "
        "Kernel) 노트북을 다시 실행하세요."),
    "without_torch.stored": (
        "↻ not run (torch is not installed): the output below is stored from a run with PyTorch "
        "{version}",
        "↻ 실행하지 않았습니다(torch가 설치되어 있지 않음): 아래 출력은 PyTorch {version}으로 "
        "실행했을 때 저장된 것입니다"),
    "without_torch.not_run": (
        "↷ not run: this cell needs torch (the lesson's first cell says how to install it)",
        "↷ 실행하지 않았습니다: 이 셀에는 torch가 필요합니다(설치 방법은 강의의 첫 셀에 있습니다)"),
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
