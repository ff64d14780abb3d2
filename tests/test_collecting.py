"""zip_collect's collector: which student and which notebook a downloaded file is."""
import re

from autograd_lesson.course.collecting import (LessonFileCollector, parse_timestamp,
                                               release_name)

RELEASED = ["01_multiple_losses.ipynb"]
KOREAN = ["ko-01_multiple_losses.ipynb"]


def test_renamed_downloads_are_the_release_notebook():
    for name in ("01_multiple_losses.ipynb", "01_multiple_losses (1).ipynb",
                 "01_multiple_losses(2).ipynb", "01_multiple_losses-1.ipynb",
                 "01_multiple_losses copy.ipynb", "01_multiple_losses (1) (2).ipynb"):
        assert release_name(name, RELEASED) == ("", "01_multiple_losses.ipynb"), name
    assert release_name("alice_01_multiple_losses (1).ipynb", RELEASED) == \
        ("alice_", "01_multiple_losses.ipynb")
    assert release_name("ko-01_multiple_losses (1).ipynb", KOREAN) == ("", KOREAN[0])
    assert release_name("02_gan.ipynb", RELEASED) is None
    # the English notebook handed in for the Korean assignment is not taken for it
    assert release_name("01_multiple_losses.ipynb", KOREAN) is None


def test_the_student_and_the_time_come_from_the_front_of_the_name():
    regexp = LessonFileCollector.student_regexp.default_value
    who = re.match(regexp, "alice_2030-03-01T17-05-00")
    assert (who["student_id"], parse_timestamp(who["timestamp"])) == ("alice", "2030-03-01 17:05:00")
    assert re.match(regexp, "bob")["student_id"] == "bob"
    assert re.match(regexp, "smithalice_12345_67890")["student_id"] == "smithalice"
