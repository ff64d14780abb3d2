"""Graphviz kept running: one ``dot`` process per (engine, format), fed one graph at a time.

Starting ``dot`` costs about 9 ms of CPU before it reads a byte (loading Pango, Cairo and
fontconfig), more than laying out a folded picture of ResNet-18; a notebook draws dozens of
pictures and a step-through one per frame. ``dot`` reads graph after graph from its input and
writes each one's picture as soon as it is laid out, so one process draws them all: after each
graph we send a small *end* graph whose picture we know, and the bytes before that picture are
the graph's. A graph that ``dot`` rejects (it exits, or says ``Error``) is drawn again by a
fresh one-shot run, which raises as it always did; so is everything where pipes or threads fail.
"""
import os
import re
import select
import subprocess
import threading

END_GRAPH = "\ndigraph autograd_lesson_end {}\n"
_ARGS = {"dot": [], "neato": ["-n2"]}  # neato only lays out pinned frames (render.render)
PROBE = 'digraph probe { a [pos="0,0"] b [pos="60,80"] a -> b [label="x"] }'  # pinned: neato
PROBE_SECONDS = 10  # a fresh process draws the probe at once, or is not used
IDLE_SECONDS = 300  # no byte for this long: give up and draw the one-shot way
# Graphviz 2.43 names the second and later graphs of one run's SVG "page0,1_graph0", the first
# "graph0" (a page counter it does not reset): the same picture, renamed back.
_PAGE_ID = re.compile(rb'<g id="page\d+,\d+_graph')


class _Process:
    def __init__(self, engine, fmt):
        self.argv = ["dot", f"-K{engine}", f"-T{fmt}", *_ARGS[engine]]
        self.svg = fmt == "svg"
        self.lock = threading.Lock()
        self.proc = None
        self.pid = None  # the process that started it: a forked child starts its own
        self.end = None  # the end graph's picture
        self.errors = []
        self.usable = os.name == "posix"  # select() on pipes; elsewhere one-shot runs

    def _once(self, data):
        return subprocess.run(self.argv, input=data, capture_output=True, check=True).stdout

    def _start(self):
        self.end = self._once(END_GRAPH.encode())
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.pid = os.getpid()
        self.errors = []
        threading.Thread(target=self._drain, args=(self.proc, self.errors), daemon=True).start()
        # the same bytes as a run of its own, for a first graph and a later one, or never used
        expected = self._once(PROBE.encode())
        for _ in range(2):
            if self._draw((PROBE + END_GRAPH).encode(), PROBE_SECONDS) != expected:
                self.usable = False
                self.stop()
                return

    @staticmethod
    def _drain(proc, errors):
        for line in proc.stderr:  # warnings are no output (render's one-shot runs are quiet)
            if line.startswith(b"Error"):
                errors.append(line)

    def draw(self, source):
        """The picture of ``source``, or None where this process could not draw it."""
        with self.lock:
            try:
                if self.proc is None or self.pid != os.getpid() or self.proc.poll() is not None:
                    self._start()
                if not self.usable:
                    return None
                return self._draw(source.encode("utf-8") + END_GRAPH.encode())
            except (OSError, ValueError, subprocess.SubprocessError):
                self.stop()
                return None

    def _draw(self, data, idle=IDLE_SECONDS):
        proc, errors = self.proc, self.errors
        writer = threading.Thread(target=_write, args=(proc.stdin, data), daemon=True)
        writer.start()  # Graphviz may write a picture before it has read all we send
        out = b""
        while not out.endswith(self.end):
            ready, _, _ = select.select([proc.stdout], [], [], idle)
            chunk = os.read(proc.stdout.fileno(), 1 << 16) if ready else b""
            if not chunk:  # it exited (a graph it could not read), or hangs
                self.stop()
                return None
            out += chunk
            if self.svg:
                out = _PAGE_ID.sub(b'<g id="graph', out)
        writer.join()
        if errors:
            self.stop()
            return None
        return out[:-len(self.end)]

    def stop(self):
        proc, self.proc = self.proc, None
        if proc is not None and self.pid == os.getpid():
            proc.kill()
            proc.wait()
            proc.stdin.close()
            proc.stdout.close()

    def cpu_seconds(self):
        """CPU seconds this process's Graphviz has used so far (Linux; 0 elsewhere)."""
        if self.proc is None:
            return 0.0
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _write(pipe, data):
    try:
        pipe.write(data)
    except OSError:  # it exited: draw() sees the end of its output
        pass


_PROCESSES = {}
_LOCK = threading.Lock()


def draw(source, fmt, engine="dot"):
    """``source`` drawn by the kept ``dot`` for (engine, fmt); None: draw it the one-shot way."""
    if not _whole(source):
        return None
    with _LOCK:
        process = _PROCESSES.get((engine, fmt))
        if process is None:
            process = _PROCESSES[(engine, fmt)] = _Process(engine, fmt)
    return process.draw(source)


def _whole(source):
    """Whether ``source`` plainly ends where it seems to: an open string or comment would
    swallow the end graph, and ``dot`` would wait for the rest of it forever."""
    rest = _STRING.sub("", source)  # as Graphviz reads a string: a backslash takes the next
    return rest.rstrip().endswith("}") and '"' not in rest and \
        rest.count("/*") == rest.count("*/")


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def cpu_seconds():
    """CPU seconds used by the kept Graphviz processes now running (for the benchmarks: a
    process not yet waited for is not in this process's RUSAGE_CHILDREN)."""
    return sum(p.cpu_seconds() for p in list(_PROCESSES.values()))


def stop():
    """End every kept process (they also end with this one: their input closes)."""
    for process in list(_PROCESSES.values()):
        with process.lock:
            process.stop()
