"""Publishing through a fake Hub API that records every call: one commit with exactly the
export's files, stale files deleted, no commit when nothing changed, and a fast, clear
failure without a token or network. No test talks to the Hub."""

import hashlib
import socket
import time
from pathlib import Path
from types import SimpleNamespace

import huggingface_hub
import pytest
from huggingface_hub.hf_api import RepoFile

from conftest import checksums, fixture_dir
from unified_dialogue import registry
from unified_dialogue.tools import publish

SGD = registry.get("sgd")
TOKEN = "hf_test_token_that_must_never_be_shown"
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
EXPORT_FILES = ["README.md"] + sorted(f"{config}/{split}-00000-of-00001.parquet"
                                      for config in SGD.config_names for split in ("test", "train", "validation"))


class FakeHub:
    """The part of ``HfApi`` that publishing uses, on in-memory repositories."""

    def __init__(self):
        self.repos = {}  # repo_id -> {"private": bool, "branches": {name: {path: bytes}}, "heads": {name: sha}}
        self.calls, self.commits = [], []

    def _record(self, name, **kwargs):
        self.calls.append((name, kwargs))

    def add_repo(self, repo_id, files=None, private=False):
        self.repos[repo_id] = {"private": private, "branches": {"main": {}}, "heads": {"main": "0" * 40}}
        self._set("main", repo_id, {".gitattributes": GITATTRIBUTES, **(files or {})})

    def _set(self, branch, repo_id, files):
        repo = self.repos[repo_id]
        repo["branches"][branch] = dict(files)
        repo["heads"][branch] = hashlib.sha1(repr(sorted(files.items())).encode()).hexdigest()

    def whoami(self):
        self._record("whoami")
        return {"name": "tester"}

    def repo_exists(self, repo_id, repo_type=None):
        self._record("repo_exists", repo_id=repo_id, repo_type=repo_type)
        return repo_id in self.repos

    def repo_info(self, repo_id, repo_type=None, revision=None):
        self._record("repo_info", repo_id=repo_id, repo_type=repo_type, revision=revision)
        repo = self.repos[repo_id]
        return SimpleNamespace(private=repo["private"], sha=repo["heads"][revision or "main"])

    def create_repo(self, repo_id, repo_type=None, private=None, exist_ok=False):
        self._record("create_repo", repo_id=repo_id, repo_type=repo_type, private=private, exist_ok=exist_ok)
        if repo_id not in self.repos:
            self.add_repo(repo_id, private=bool(private))

    def revision_exists(self, repo_id, revision, repo_type=None):
        return revision in self.repos[repo_id]["branches"]

    def create_branch(self, repo_id, branch, repo_type=None, exist_ok=False):
        self._record("create_branch", repo_id=repo_id, branch=branch, repo_type=repo_type)
        self._set(branch, repo_id, self.repos[repo_id]["branches"]["main"])

    def list_repo_tree(self, repo_id, repo_type=None, recursive=False, revision=None):
        self._record("list_repo_tree", repo_id=repo_id, repo_type=repo_type, recursive=recursive, revision=revision)
        for path, data in sorted(self.repos[repo_id]["branches"][revision or "main"].items()):
            lfs = None
            if path.endswith(".parquet"):
                lfs = {"size": len(data), "oid": hashlib.sha256(data).hexdigest(), "pointerSize": 130}
            blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
            yield RepoFile(path=path, size=len(data), oid=blob, lfs=lfs)

    def create_commit(self, repo_id, operations, commit_message, commit_description=None, repo_type=None,
                      revision=None, create_pr=False, parent_commit=None):
        branch = revision or "main"
        operations = list(operations)
        record = {
            "repo_id": repo_id, "repo_type": repo_type, "revision": revision, "create_pr": create_pr,
            "message": commit_message, "description": commit_description, "parent_commit": parent_commit,
            "added": [op.path_in_repo for op in operations if hasattr(op, "path_or_fileobj")],
            "deleted": [op.path_in_repo for op in operations if not hasattr(op, "path_or_fileobj")],
        }
        self.commits.append(record)
        repo = self.repos[repo_id]
        assert parent_commit == repo["heads"][branch], "commit not based on the listed head"
        files = dict(repo["branches"][branch])
        for op in operations:
            if hasattr(op, "path_or_fileobj"):
                files[op.path_in_repo] = Path(op.path_or_fileobj).read_bytes()
            else:
                del files[op.path_in_repo]
        if create_pr:
            self._set(f"refs/pr/{len(self.commits)}", repo_id, files)
            return SimpleNamespace(commit_url="https://hub.test/commit/pr", pr_url="https://hub.test/pr/1")
        self._set(branch, repo_id, files)
        return SimpleNamespace(commit_url=f"https://hub.test/commit/{repo['heads'][branch]}", pr_url=None)

    def files(self, repo_id, branch="main"):
        return sorted(self.repos[repo_id]["branches"][branch])


def run(hub, tmp_path, repo="owner/sgd", **kwargs):
    messages = []
    result = publish.publish([SGD], repo, api=hub, workdir=str(tmp_path), log=messages.append,
                             data_dirs={"sgd": str(fixture_dir("sgd"))}, checksums={"sgd": checksums("sgd")},
                             variants=False, **kwargs)
    return result, messages


@pytest.fixture
def workdir(tmp_path):
    path = tmp_path / "work"
    path.mkdir()
    return path


def test_first_publish_creates_the_repository_with_one_commit_of_the_export(workdir):
    hub = FakeHub()
    commit, messages = run(hub, workdir, private=True)
    assert ("create_repo", {"repo_id": "owner/sgd", "repo_type": "dataset", "private": True, "exist_ok": True}) in hub.calls
    (record,) = hub.commits
    assert record["added"] == EXPORT_FILES and record["deleted"] == []
    assert (record["repo_id"], record["repo_type"], record["revision"], record["create_pr"]) == (
        "owner/sgd", "dataset", None, False)
    assert record["message"].startswith("Publish sgd (unified-dialogue ")
    assert record["description"] == f"{len(EXPORT_FILES)} file(s) added or changed, 0 deleted."
    assert hub.files("owner/sgd") == sorted([".gitattributes", *EXPORT_FILES])
    assert hub.repos["owner/sgd"]["private"] is True
    assert commit.commit_url.startswith("https://hub.test/commit/")
    readme = hub.repos["owner/sgd"]["branches"]["main"]["README.md"].decode()
    assert 'load_dataset("owner/sgd", "unified")' in readme
    assert list(workdir.iterdir()) == []  # the temporary export is gone


def test_publishing_the_same_export_again_makes_no_commit(workdir):
    hub = FakeHub()
    run(hub, workdir)
    before = dict(hub.repos["owner/sgd"]["branches"]["main"])
    commit, messages = run(hub, workdir)
    assert commit is None and len(hub.commits) == 1
    assert messages[-1] == "owner/sgd@main already holds this export: nothing to commit"
    assert hub.repos["owner/sgd"]["branches"]["main"] == before


def test_stale_files_are_deleted_and_only_changed_files_uploaded(workdir):
    hub = FakeHub()
    run(hub, workdir)
    files = dict(hub.repos["owner/sgd"]["branches"]["main"])
    files["unified/train-00000-of-00003.parquet"] = b"old shard"
    files["old_layout/data.parquet"] = b"old"
    files["README.md"] = b"an edited card\n"
    hub._set("main", "owner/sgd", files)
    run(hub, workdir)
    record = hub.commits[-1]
    assert record["added"] == ["README.md"]
    assert record["deleted"] == ["old_layout/data.parquet", "unified/train-00000-of-00003.parquet"]
    assert hub.files("owner/sgd") == sorted([".gitattributes", *EXPORT_FILES])


def test_branch_and_pull_request(workdir):
    hub = FakeHub()
    hub.add_repo("owner/sgd")
    run(hub, workdir, branch="next", create_pr=True)
    assert ("create_branch", {"repo_id": "owner/sgd", "branch": "next", "repo_type": "dataset"}) in hub.calls
    record = hub.commits[-1]
    assert (record["revision"], record["create_pr"]) == ("next", True)
    assert record["added"] == EXPORT_FILES
    assert hub.files("owner/sgd") == [".gitattributes"]  # main untouched
    assert hub.files("owner/sgd", "next") == [".gitattributes"]  # the PR holds the change


def test_private_requested_for_an_existing_public_repository_fails_before_building(workdir, monkeypatch):
    monkeypatch.setattr(publish, "export", lambda *a, **k: pytest.fail("built although publishing cannot succeed"))
    hub = FakeHub()
    hub.add_repo("owner/sgd", private=False)
    with pytest.raises(publish.PublishError, match="exists and is public"):
        run(hub, workdir, private=True)
    assert hub.commits == []


def test_a_failed_commit_leaves_no_files_and_no_change(workdir):
    hub = FakeHub()
    hub.add_repo("owner/sgd")

    def refuse(*args, **kwargs):
        raise ConnectionError("connection lost")

    hub.create_commit = refuse
    with pytest.raises(ConnectionError):
        run(hub, workdir)
    assert hub.files("owner/sgd") == [".gitattributes"]
    assert list(workdir.iterdir()) == []


@pytest.fixture
def no_token(monkeypatch, tmp_path):
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(tmp_path / "no-token-here"))


def test_without_a_token_it_fails_at_once_saying_so(no_token, workdir, monkeypatch):
    monkeypatch.setattr(publish, "export", lambda *a, **k: pytest.fail("built without a token"))
    with pytest.raises(publish.PublishError, match="no Hugging Face token: log in with `hf auth login`"):
        publish.publish([SGD], "owner/sgd", workdir=str(workdir))
    assert list(workdir.iterdir()) == []


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_without_network_it_fails_fast_saying_so(workdir, monkeypatch, capsys):
    monkeypatch.setattr(publish, "export", lambda *a, **k: pytest.fail("built without network"))
    endpoint = f"http://127.0.0.1:{closed_port()}"
    started = time.monotonic()
    with pytest.raises(publish.PublishError, match=f"cannot reach the Hub at {endpoint}") as error:
        publish.publish([SGD], "owner/sgd", token=TOKEN, endpoint=endpoint, workdir=str(workdir))
    assert time.monotonic() - started < 10
    assert TOKEN not in str(error.value) and TOKEN not in "".join(capsys.readouterr())
    assert list(workdir.iterdir()) == []


def test_a_rejected_token_is_reported(workdir):
    hub = FakeHub()
    error = RuntimeError("401 Client Error")
    error.response = SimpleNamespace(status_code=401)

    def whoami():
        raise error

    hub.whoami = whoami
    with pytest.raises(publish.PublishError, match="rejected the token"):
        run(hub, workdir)


def test_the_token_from_the_environment_is_used_and_never_shown(workdir, monkeypatch, capsys, caplog):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub = FakeHub()
    made = []

    def fake_hfapi(endpoint=None, token=None):
        made.append(token)
        return hub

    monkeypatch.setattr(huggingface_hub, "HfApi", fake_hfapi)
    publish.publish([SGD], "owner/sgd", workdir=str(workdir), data_dirs={"sgd": str(fixture_dir("sgd"))},
                    checksums={"sgd": checksums("sgd")}, variants=False)
    assert made == [TOKEN] and len(hub.commits) == 1
    out, err = capsys.readouterr()
    assert TOKEN not in out + err + caplog.text
    readme = hub.repos["owner/sgd"]["branches"]["main"]["README.md"].decode()
    assert TOKEN not in readme


def test_repository_must_be_owner_and_name(workdir):
    with pytest.raises(publish.PublishError, match="owner/name"):
        publish.publish([SGD], "sgd", api=FakeHub(), workdir=str(workdir))


def test_git_blob_id_is_the_hubs_object_id(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"hello\n")
    assert publish.git_blob_id(path) == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object
