"""Comparing evaluation runs (``python -m unified_dialogue.environment.compare``): two runs
recorded here against the stand-in server (the gold agent and one that changes an argument)
give the paired difference computed from their lines; runs built here give their means over
trials, groups, won and lost episodes, the bootstrap's interval, SGD-X's schema sensitivity
of the reward computed with ``statistics``; and every mistake is one line and exit status 2."""

import json
import statistics

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.environment import gold
from unified_dialogue.environment.__main__ import main as evaluate
from unified_dialogue.environment.compare import paired_interval
from unified_dialogue.environment.compare.__main__ import main as compare
from unified_dialogue.environment.reward import PARTS
from unified_dialogue.testing.server import StandInServer

VARIANTS = ("v1", "v2", "v3", "v4", "v5")


def record(identifier, reward, *, services=("Restaurants_1",), unseen=(), trial=None, **run):
    """An episode's line as the evaluation command writes it (its run's keys from ``run``)."""
    line = {"id": identifier, "dialogue_id": identifier, "split": "validation", "mode": "ticket", "variant": None,
            "model": "a", "temperature": 0.0, "seed": None, "max_steps": 30, "services": list(services),
            "unseen_services": list(unseen), "ended": "answer", "error": None, "steps": 1,
            **{part: reward for part in PARTS}, "transactions": 1, "final_answer": "", "messages": []}
    line.update(run)
    if trial is not None:
        line["trial"] = trial
    return line


def write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def report_of(capsys, *arguments):
    assert compare([*arguments]) == 0
    return capsys.readouterr()


# ---------------------------------------------------------------- two recorded runs

@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The gold agent's run and a wrong one's (an argument of each transaction changed) on
    the fixtures' validation split, in ticket mode."""
    folder = tmp_path_factory.mktemp("runs")
    cache = str(folder / "cache")
    options = {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": cache}
    episodes = load("sgd", "episodes", split="validation", **options)
    chats = {row["dialogue_id"]: row for row in load("sgd", "agent-chat", split="validation", **options)}
    paths = {}
    for name, wrong in (("gold", False), ("wrong", True)):
        answer = gold.answerer([(row, chats[row["dialogue_id"]]) for row in episodes], "ticket", wrong=wrong)
        paths[name] = folder / f"{name}.jsonl"
        with StandInServer(answer) as server:
            assert evaluate(["--base-url", server.base_url, "--model", name, "--split", "validation", "--out",
                             str(paths[name]), "--data-dir", options["data_dir"], "--checksums", options["checksums"],
                             "--cache-dir", cache, "--concurrency", "1"]) == 0
    return paths


def test_two_recorded_runs_give_the_paired_difference_of_their_lines(recorded, tmp_path, capsys):
    out = tmp_path / "report.json"
    printed = report_of(capsys, str(recorded["gold"]), str(recorded["wrong"]), "--out", str(out))
    assert printed.err == ""
    report = json.loads(out.read_text())
    lines = {name: {line["id"]: line for line in map(json.loads, path.read_text().splitlines())}
             for name, path in recorded.items()}
    assert [line["reward"] for line in lines["gold"].values()] == [1.0, 1.0, 1.0]
    # by hand: each episode's reward under the wrong agent minus the gold's, averaged
    differences = [lines["wrong"][key]["reward"] - lines["gold"][key]["reward"] for key in lines["gold"]]
    (made,) = report["comparisons"]
    assert made["overall"]["difference"] == pytest.approx(sum(differences) / 3) and made["overall"]["difference"] < 0
    assert made["overall"]["lost"] == sum(d < 0 for d in differences) > 0 and made["overall"]["won"] == 0
    low, high = made["overall"]["interval"]
    assert low <= made["overall"]["difference"] <= high <= 0.0
    for part in PARTS:
        assert report["runs"][1]["means"][part] == pytest.approx(
            statistics.mean(line[part] for line in lines["wrong"].values()))
    assert report["runs"][0]["means"]["reward"] == 1.0 and report["episodes"] == 3
    # the domains of the fixtures' validation split, an episode in each of its domains
    assert {name: group["episodes"] for name, group in made["per_domain"].items()} == \
        {"Alarm": 1, "Media": 1, "Movies": 1, "Music": 1}
    assert made["seen"]["episodes"] + made["unseen"]["episodes"] == 3
    assert f"{made['overall']['difference']:+.3f}" in printed.out and "10,000 resamples, seed 0" in printed.out


# ---------------------------------------------------------------- built runs

def test_trials_are_averaged_and_each_group_paired(tmp_path, capsys):
    first = write(tmp_path / "a.jsonl", [
        record("d/1", 1.0, trial=0), record("d/1", 0.0, trial=1),                       # mean 0.5
        record("d/2", 1.0, services=("Hotels_2", "Flights_1"), unseen=("Hotels_2",)),
        record("d/3", 0.0, services=("Flights_1",))])
    other = write(tmp_path / "b.jsonl", [
        record("d/1", 1.0, model="b"), record("d/2", 0.0, services=("Hotels_2", "Flights_1"), unseen=("Hotels_2",),
                                              model="b"),
        record("d/3", 1.0, services=("Flights_1",), model="b"), record("d/4", 1.0, model="b")])
    out = tmp_path / "r.json"
    printed = report_of(capsys, first, other, "--out", str(out))
    report = json.loads(out.read_text())
    assert printed.err == ("warning: the runs cover different episodes (episodes only some runs have: "
                           f"{other} 1); compared on the 3 they all have\n")
    (made,) = report["comparisons"]
    # by hand: differences 1.0 - 0.5, 0.0 - 1.0, 1.0 - 0.0
    assert made["overall"]["difference"] == pytest.approx((0.5 - 1.0 + 1.0) / 3)
    assert (made["overall"]["won"], made["overall"]["lost"], made["overall"]["tied"]) == (2, 1, 0)
    assert made["unseen"]["episodes"] == 1 and made["unseen"]["difference"] == -1.0
    assert made["seen"]["difference"] == pytest.approx(0.75)
    assert made["per_domain"]["Flights"]["difference"] == pytest.approx(0.0)
    assert made["per_domain"]["Hotels"]["difference"] == -1.0 and made["per_domain"]["Restaurants"]["difference"] == 0.5
    assert report["runs"][0]["trials"] == 2 and report["runs"][0]["means"]["reward"] == pytest.approx(1.5 / 3)
    assert report["runs"][1]["episodes"] == 4 and report["runs"][1]["means"]["reward"] == pytest.approx(2 / 3)


def test_the_interval_is_the_bootstrap_percentile_one():
    assert paired_interval([0.25] * 7) == [0.25, 0.25]
    # three differences 0, 0, 1: a resample's mean is k/3 with k binomial(3, 1/3), so the
    # 2.5th percentile is 0 (P(k=0) = 8/27) and the 97.5th is 1 (P(k=3) = 1/27 > 2.5 %)
    assert paired_interval([0.0, 0.0, 1.0]) == [0.0, 1.0]
    # many episodes: the interval tightens around the mean, as the normal approximation says
    differences = [1.0] * 600 + [0.0] * 400
    low, high = paired_interval(differences)
    half = 1.96 * statistics.pstdev(differences) / len(differences) ** 0.5
    assert low == pytest.approx(0.6 - half, abs=0.006) and high == pytest.approx(0.6 + half, abs=0.006)
    assert paired_interval(differences) == [low, high]  # a fixed seed


def test_the_variants_report_gives_the_schema_sensitivity_computed_by_hand(tmp_path, capsys):
    rewards = {"d/1": [1.0, 1.0, 0.0, 1.0, 1.0], "d/2": [1.0] * 5, "d/3": [0.0] * 5, "d/4": [0.0, 1.0, 0.0, 0.0, 1.0]}
    unseen = {"d/4": ("Hotels_2",)}
    paths = [write(tmp_path / f"{variant}.jsonl",
                   [record(key, values[k], variant=variant, services=("Hotels_2",) if key in unseen else
                           ("Restaurants_1",), unseen=unseen.get(key, ())) for key, values in rewards.items()])
             for k, variant in enumerate(VARIANTS)]
    out = tmp_path / "s.json"
    printed = report_of(capsys, "--variants", *paths, "--out", str(out))
    assert printed.err == ""
    report = json.loads(out.read_text())

    def cv(values):
        return statistics.stdev(values) / statistics.mean(values)

    sensitivity = report["schema_sensitivity"]
    assert sensitivity["value"] == pytest.approx((cv(rewards["d/1"]) + 0.0 + cv(rewards["d/4"])) / 3, rel=1e-12)
    assert (sensitivity["episodes"], sensitivity["episodes_mean_zero"]) == (3, 1)
    assert sensitivity["seen"]["value"] == pytest.approx(cv(rewards["d/1"]) / 2, rel=1e-12)
    assert sensitivity["unseen"]["value"] == pytest.approx(cv(rewards["d/4"]), rel=1e-12)
    assert report["variants"]["v3"]["overall"]["reward"] == pytest.approx(1 / 4)
    assert report["variants"]["v5"]["unseen"] == {"episodes": 1, **{part: 1.0 for part in PARTS}}
    assert f"{sensitivity['value']:.3f}" in printed.out
    printed = report_of(capsys, "--variants", *paths[:2])
    assert printed.err == "warning: SGD-X's schema sensitivity is across v1, v2, v3, v4, v5; these runs are of v1, v2\n"


# ---------------------------------------------------------------- mistakes

def run_file(tmp_path, name, **run):
    return write(tmp_path / f"{name}.jsonl", [record("d/1", 1.0, **run), record("d/2", 0.0, **run)])


@pytest.mark.parametrize("make, words", [
    (lambda p: [run_file(p, "a")], "give two or more runs (the files an evaluation run wrote with --out); only"),
    (lambda p: [], "give two or more runs"),
    (lambda p: [run_file(p, "a"), str(p / "absent.jsonl")], "absent.jsonl: no such file"),
    (lambda p: [run_file(p, "a"), str(p)], ": a folder; give the episode lines"),
    (lambda p: [run_file(p, "a"), write(p / "s.json", [{"overall": {"reward": 1.0}}])],
     "s.json: line 1 is not an episode's line of an evaluation run"),
    (lambda p: [run_file(p, "a"), write(p / "e.jsonl", [])], "e.jsonl: no episode lines"),
    (lambda p: [run_file(p, "a"), write(p / "two.jsonl", [record("d/1", 1.0), record("d/2", 1.0, model="b")])],
     "two.jsonl: line 2 is of another run than line 1 (model 'b', not 'a')"),
    (lambda p: [run_file(p, "a"), write(p / "t.jsonl", [record("d/1", 1.0, trial=0), record("d/1", 1.0, trial=0)])],
     "t.jsonl: line 2: episode 'd/1' trial 0 is there twice"),
    (lambda p: [run_file(p, "a"), run_file(p, "b", split="test")], "b.jsonl: another split than"),
    (lambda p: [run_file(p, "a"), run_file(p, "b", mode="replay")], "b.jsonl: another mode than"),
    (lambda p: [run_file(p, "a"), run_file(p, "b", variant="v2")], "b.jsonl: another variant than"),
    (lambda p: [run_file(p, "a"), run_file(p, "b", reward_version="2")],
     "another reward_version than " + "{}/a.jsonl (reward_version '2', not '1')"),
    (lambda p: [run_file(p, "a"), write(p / "b.jsonl", [record("d/9", 1.0)])], "no episode in common"),
    (lambda p: ["--variants", run_file(p, "a", variant="v1"), run_file(p, "b", variant="v2", model="other")],
     "b.jsonl: another model than"),
    (lambda p: ["--variants", run_file(p, "a", variant="v1"), run_file(p, "b", variant="v2", split="test")],
     "b.jsonl: another split than"),
    (lambda p: ["--variants", run_file(p, "a", variant="v1"), run_file(p, "b", variant="v1")],
     "b.jsonl: variant v1 again"),
    (lambda p: [run_file(p, "a"), run_file(p, "b"), "--out", str(p / "a.jsonl")],
     "--out {}/a.jsonl: that is an input of the command"),
    (lambda p: [run_file(p, "a"), run_file(p, "b"), "--trials"], "unrecognized arguments: --trials"),
])
def test_a_mistake_is_one_line_and_exit_status_2(tmp_path, capsys, make, words):
    arguments = make(tmp_path)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()}
    with pytest.raises(SystemExit) as stopped:
        compare(arguments)
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1, error
    assert words.format(tmp_path) in error, error
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()} == before
