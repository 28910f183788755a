"""``olearn run``/``predict`` refuse what they cannot answer honestly, in one line naming the way out."""

import subprocess
import sys

from click.testing import CliRunner

from olearn.cli import cli

# olearn.cli.main with Dask's modules unimportable, as on an installation without the extra
WITHOUT_DASK = ("import sys; sys.modules['dask'] = sys.modules['distributed'] = None; "
                "from olearn.cli import main; main(sys.argv[1:])")


def test_workers_without_dask_is_one_line_naming_the_extra(tmp_path):
    data = tmp_path / "a.vw"
    data.write_text("1 | a:1\n-1 | b:1\n")
    done = subprocess.run([sys.executable, "-c", WITHOUT_DASK, "run", "-a", "pa1", "--workers", "2", str(data)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.splitlines() == ['olearn: error: olearn.distributed needs Dask\'s distributed scheduler: '
                                        'pip install "olearn[distributed]"']


def test_a_vw_label_that_is_a_word_is_not_a_number(tmp_path):
    data = tmp_path / "words.vw"
    data.write_text("1 | a:1\nyes | a:1 b:2\n")
    result = CliRunner().invoke(cli, ["run", "-a", "pa1", str(data)])
    assert result.exit_code == 1
    assert f"{data}:2:1: the label 'yes' is not a number" in result.stderr


def test_a_vw_line_with_only_a_tag_still_has_no_label(tmp_path):
    data = tmp_path / "tagged.vw"
    data.write_text("1 | a:1\n'row2 | b:1\n")
    result = CliRunner().invoke(cli, ["run", "-a", "pa1", str(data)])
    assert result.exit_code == 1
    assert f"{data}:2:1: the line has no label" in result.stderr
