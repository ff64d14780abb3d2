"""``nbgrader zip_collect``: notebooks downloaded from a course website or an LMS, filed.

Put what the students handed in (zip archives, or the notebooks themselves) in
``downloaded/<assignment>/archive/`` and run ``nbgrader zip_collect <assignment>``: nbgrader
unpacks the archives into ``downloaded/<assignment>/extracted/`` and asks this collector, for
each notebook found, whose it is and which of the assignment's notebooks it is. It reads

- the student id from the file's folder (``alice/01_multiple_losses.ipynb``; the innermost
  one, as nbgrader unpacks each zip into a folder named after it) or a file name that starts with it
  (``alice_01_multiple_losses.ipynb``, ``alice-01_multiple_losses.ipynb``);
- the notebook from the rest of the name, forgiving what browsers and LMSs add to a download:
  ``01_multiple_losses (1).ipynb``, ``01_multiple_losses(2).ipynb``, ``01_multiple_losses-1.ipynb``,
  ``01_multiple_losses copy.ipynb`` are all ``01_multiple_losses.ipynb``;
- a submission time, where the name carries one as ``2025-03-01T17-05-00`` (or with ``:``)
  after the student id: ``alice_2025-03-01T17-05-00_01_multiple_losses.ipynb``; with it,
  ``nbgrader autograde`` counts a submission after the due date as late.

A name that fits none of this (no release notebook in it) is skipped with a warning naming the
file. ``c.LessonFileCollector.student_regexp`` changes how the student part is read (it must
have a ``student_id`` group and may have a ``timestamp`` group), for example for Moodle's
folders ``Alice Smith_123456_assignsubmission_file_/``: ``.*_(?P<student_id>\\d+)_assignsubmission``.
"""
import os
import re

from traitlets import Unicode

try:  # only with the `classroom` extra (nbgrader)
    from nbgrader.plugins import FileNameCollectorPlugin
    from nbgrader.utils import find_all_notebooks
except ImportError:  # pragma: no cover
    FileNameCollectorPlugin = object

# what a browser or an LMS appends to a file name it saves a second time
COPY_SUFFIX = re.compile(r"(?:\s*\(\d+\)|-\d+|\s+copy(?:\s+\d+)?)+$", re.IGNORECASE)
TIMESTAMP = r"\d{4}-\d\d-\d\d[T _]\d\d[-:]\d\d(?:[-:]\d\d)?"


def release_name(file_name, released):
    """(prefix, notebook) for a submitted ``file_name``: the release notebook (of ``released``,
    names with ``.ipynb``) that the name ends with once copy suffixes are gone, and what stands
    before it; None if there is none. The longest name wins (``ko-01_x`` over ``01_x``)."""
    stem = COPY_SUFFIX.sub("", file_name.removesuffix(".ipynb"))
    for notebook in sorted(released, key=len, reverse=True):
        wanted = notebook.removesuffix(".ipynb")
        if stem.endswith(wanted):
            return stem[:-len(wanted)], notebook
    return None


def parse_timestamp(text):
    """'2025-03-01T17-05-00' (or with ':' or ' ') as nbgrader's parse_utc reads it."""
    date, time = re.split(r"[T _]", text, maxsplit=1)
    return f"{date} {time.replace('-', ':')}"


class LessonFileCollector(FileNameCollectorPlugin):
    student_regexp = Unicode(
        rf"(?P<student_id>[^/_\s]+)(?:_(?P<timestamp>{TIMESTAMP}))?",
        help="read from what stands before the notebook's name (a folder, a prefix): a "
             "student_id group, and optionally a timestamp group").tag(config=True)

    def collect(self, submitted_file):
        if os.path.splitext(submitted_file)[1] not in self.valid_ext:
            return None
        app = self.parent
        extracted = app._format_collect_path(app.extracted_directory)
        relative = os.path.relpath(submitted_file, extracted).replace(os.sep, "/")
        folder, _, file_name = relative.rpartition("/")
        folder = folder.rpartition("/")[2]  # nbgrader unpacks each zip into a folder of its name
        released = find_all_notebooks(app.coursedir.format_path(
            app.coursedir.release_directory, ".", app.coursedir.assignment_id))
        found = release_name(file_name, released)
        if found is None:
            self.log.warning("Skipped %s: its name holds none of this assignment's notebooks "
                             "(%s)", relative, ", ".join(released) or "none released")
            return None
        prefix, notebook = found
        who = re.match(self.student_regexp, prefix.strip("-_ ") or folder) or \
            re.match(self.student_regexp, folder)
        if who is None or not who.group("student_id"):
            self.log.warning("Skipped %s: no student id before the notebook's name or in its "
                             "folder (LessonFileCollector.student_regexp)", relative)
            return None
        info = {"student_id": who.group("student_id"), "file_id": notebook}
        stamp = who.groupdict().get("timestamp")
        if stamp:
            info["timestamp"] = parse_timestamp(stamp)
        return info
