"""The kept Graphviz process (viz/warm.py) draws what a run of its own draws, byte for byte,
and hands back every graph it cannot draw (render() then runs Graphviz once, as before)."""
import importlib
import subprocess

import pytest

from autograd_lesson.viz import warm

render = importlib.import_module("autograd_lesson.viz.render")

GRAPHS = [r'digraph G { a -> b; b -> c [label="a \\ \"b\""] }',
          'digraph autograd { node [shape=plaintext fontname="DejaVu Sans"] '
          'a [label=<<TABLE><TR><TD>한국어 ● ALIVE</TD></TR></TABLE>>] a -> b }',
          'digraph p { a [pos="0,0"] b [pos="100,100"] a -> b }']  # neato -n2: pinned


def one_shot(source, fmt, engine="dot"):
    argv = ["dot", f"-K{engine}", f"-T{fmt}"] + (["-n2"] if engine == "neato" else [])
    return subprocess.run(argv, input=source.encode(), capture_output=True, check=True).stdout


@pytest.mark.parametrize("fmt,engine", [("svg", "dot"), ("png", "dot"), ("json", "dot"),
                                        ("svg", "neato"), ("png", "neato")])
def test_the_kept_process_draws_the_bytes_of_a_run_of_its_own(fmt, engine):
    graphs = GRAPHS if engine == "dot" else GRAPHS[2:] + [GRAPHS[2].replace("p {", "q {")]
    for source in graphs * 2:  # a first graph and later ones (Graphviz renames later SVGs)
        assert warm.draw(source, fmt, engine) == one_shot(source, fmt, engine)
    assert warm.cpu_seconds() > 0


@pytest.mark.parametrize("source", ["digraph { a -> }", 'digraph { a [label="x] }',
                                    r'digraph { a [label="x\\"y"] }', "digraph { a /* b }",
                                    "digraph { a -> b"])
def test_a_graph_it_cannot_draw_is_handed_back_and_render_raises_as_before(source):
    assert warm.draw(source, "svg") is None
    render._RENDERED.pop(("dot", "svg", source), None)
    with pytest.raises(ValueError, match="Graphviz could not read this DOT source"):
        render.render(source, "svg")
    assert warm.draw(GRAPHS[0], "svg") == one_shot(GRAPHS[0], "svg")  # and it draws again


def test_a_process_that_died_is_started_again():
    assert warm.draw(GRAPHS[0], "svg") is not None
    process = warm._PROCESSES[("dot", "svg")]
    process.proc.kill()
    process.proc.wait()
    assert warm.draw(GRAPHS[1], "svg") == one_shot(GRAPHS[1], "svg")
    warm.stop()
    assert process.proc is None and warm.cpu_seconds() == 0
