"""Checks shared by the front-end error tests: an error names the test file, the line
holding a snippet, and puts its caret under the right column."""

import inspect
import os


def caret_col(err):
    """1-based column of the caret on the error's last line."""
    return str(err).splitlines()[-1].index("^") + 1


def check_location(err, snippet, at=None):
    """The error points into the calling test file at the line holding ``snippet``, with
    the caret under ``at`` (default: the snippet's start)."""
    caller = os.path.basename(inspect.stack()[1].filename)
    file, line, col = err.location
    assert file.endswith(caller), (file, caller)
    assert snippet in err.source_line, err.source_line
    assert f"{file}:{line}:{col}: error:" in str(err)
    assert str(err).splitlines()[-2] == err.source_line.rstrip("\n")
    assert caret_col(err) == col
    assert col == err.source_line.index(at if at is not None else snippet) + 1
    with open(file) as f:
        assert snippet in f.read().splitlines()[line - 1]
