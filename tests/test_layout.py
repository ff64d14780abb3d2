"""The package's layout (issue 24): no file over 600 lines."""
import pathlib

import autograd_lesson

PACKAGE = pathlib.Path(autograd_lesson.__file__).parent
LIMIT = 600
# No exceptions: since issue 24's rewrite the core files (_engine.py, _node.py, _tensor.py,
# ops/_op.py), which were the temporary ones, are all under the limit too.


def test_no_package_file_over_600_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in sorted(PACKAGE.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > LIMIT}
    assert long == {}
