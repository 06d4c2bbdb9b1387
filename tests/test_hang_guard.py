"""The suite's guard against hanging tests (hang_guard.py), run on tests of its own."""

import os
import subprocess
import sys
import time

TESTS = os.path.dirname(os.path.abspath(__file__))


def run_guarded(tmp_path, source, seconds):
    (tmp_path / "test_guarded.py").write_text(source)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not this project's settings
    env = {**os.environ, "PYTHONPATH": TESTS, "HANG_GUARD_SECONDS": str(seconds)}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "hang_guard", "-p", "no:cacheprovider",
                           "test_guarded.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return done, time.monotonic() - started


def test_a_hanging_test_ends_the_run_with_where_it_hung(tmp_path):
    source = "import time\n\ndef test_fine():\n    pass\n\ndef test_hangs():\n    time.sleep(100)\n"
    done, took = run_guarded(tmp_path, source, 1)
    assert done.returncode != 0
    assert took < 60
    assert "Timeout (0:00:01)!" in done.stderr
    assert 'test_guarded.py", line 7 in test_hangs' in done.stderr


def test_each_test_has_the_whole_time_to_itself(tmp_path):
    source = "import time\n\n" + "".join(f"def test_{n}():\n    time.sleep(1)\n\n" for n in range(4))
    done, _ = run_guarded(tmp_path, source, 3)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout
