"""Publish: export corpora and upload the folder to a Hugging Face Hub dataset repository
in one commit.

``python -m unified_dialogue.tools.publish sgd --repo owner/name`` (``make publish CORPUS=sgd
REPO=owner/name``; ``PRIVATE=1``, ``BRANCH=...``, ``PR=1``). The token is that of the usual
Hugging Face login (``hf auth login``) or ``HF_TOKEN``; it is never printed.

Before anything is built, the token and the Hub are checked. The export goes to a
temporary folder, removed afterwards. The commit adds the files that differ from the
repository's and deletes the repository's files that the export does not have (stale
shards of an earlier layout), so a repository holds exactly the last export; when nothing
differs, no commit is made.
"""

import argparse
import hashlib
import os
import tempfile
from importlib import metadata


from ..cli import run_command
from ..core.errors import UnifiedDialogueError
from ..core.sources import file_sha256
from .export import add_build_arguments, build_options, check_ready, export

REPO_TYPE = "dataset"
# Files of the repository that no export writes and publishing keeps.
KEEP = frozenset({".gitattributes"})
NO_TOKEN = ("no Hugging Face token: log in with `hf auth login` (or `huggingface-cli login`) "
            "or set HF_TOKEN to a token with write access")


class PublishError(UnifiedDialogueError, RuntimeError):
    """Publishing could not start or did not complete; the message says what is missing."""


def hub_api(token=None, endpoint=None):
    """An ``HfApi`` with the user's token; fails at once without one."""
    from huggingface_hub import HfApi, get_token

    token = token or get_token()
    if not token:
        raise PublishError(NO_TOKEN)
    return HfApi(endpoint=endpoint, token=token)


def _status(error):
    return getattr(getattr(error, "response", None), "status_code", None)


def check_access(api, endpoint=None):
    """The account name of the token; a clear error without network or with a bad token."""
    try:
        return api.whoami()["name"]
    except Exception as error:  # the HTTP client's errors differ between huggingface_hub versions
        status = _status(error)
        where = endpoint or getattr(api, "endpoint", "the Hugging Face Hub")
        if status in (401, 403):
            raise PublishError(f"the Hub at {where} rejected the token (HTTP {status}): log in again "
                               f"with `hf auth login` or set HF_TOKEN to a valid token") from None
        if status is not None:
            raise PublishError(f"the Hub at {where} answered HTTP {status} to the token check") from None
        raise PublishError(f"cannot reach the Hub at {where} ({type(error).__name__}: {error}); "
                           f"publishing needs network access") from None


def check_visibility(api, repo_id, private):
    """Refuse to publish into an existing public repository when a private one was asked for."""
    if private and api.repo_exists(repo_id, repo_type=REPO_TYPE):
        if not api.repo_info(repo_id, repo_type=REPO_TYPE).private:
            raise PublishError(f"{repo_id} exists and is public: PRIVATE=1 does not change an existing "
                               f"repository's visibility; make it private on the Hub first, or publish without PRIVATE")


# ---------------------------------------------------------------- comparing with the repository

def git_blob_id(path):
    """The git object id of a file's content, as the Hub reports it for non-LFS files."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def local_files(folder):
    """``{path in the repository: local path}`` of every file of an export folder."""
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            files[os.path.relpath(path, folder).replace(os.sep, "/")] = path
    return dict(sorted(files.items()))


def same_content(local_path, remote):
    if os.path.getsize(local_path) != remote.size:
        return False
    if remote.lfs is not None:
        return file_sha256(local_path) == remote.lfs.sha256
    return git_blob_id(local_path) == remote.blob_id


def plan_operations(api, repo_id, folder, revision=None):
    """The commit operations that make the repository hold exactly ``folder``: added or
    changed files first, then deletions."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    remote = {
        item.path: item
        for item in api.list_repo_tree(repo_id, repo_type=REPO_TYPE, recursive=True, revision=revision)
        if hasattr(item, "blob_id")  # files, not folders
    }
    local = local_files(folder)
    adds = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=local_path)
        for path, local_path in local.items()
        if path not in remote or not same_content(local_path, remote[path])
    ]
    deletes = [CommitOperationDelete(path_in_repo=path) for path in sorted(remote) if path not in local and path not in KEEP]
    return adds + deletes


def upload_folder(api, repo_id, folder, *, private=False, branch=None, create_pr=False, message=None, log=print):
    """Upload an export folder in one commit; None when the repository already holds it."""
    # Without PRIVATE the owner's default visibility applies.
    api.create_repo(repo_id, repo_type=REPO_TYPE, private=True if private else None, exist_ok=True)
    if branch and not api.revision_exists(repo_id, branch, repo_type=REPO_TYPE):
        api.create_branch(repo_id, branch=branch, repo_type=REPO_TYPE, exist_ok=True)
    head = api.repo_info(repo_id, repo_type=REPO_TYPE, revision=branch).sha
    operations = plan_operations(api, repo_id, folder, revision=branch)
    target = f"{repo_id}@{branch or 'main'}"
    if not operations:
        log(f"{target} already holds this export: nothing to commit")
        return None
    added = sum(1 for op in operations if hasattr(op, "path_or_fileobj"))
    deleted = len(operations) - added
    commit = api.create_commit(
        repo_id,
        operations=operations,
        commit_message=message or "Publish the unified dialogue export",
        commit_description=f"{added} file(s) added or changed, {deleted} deleted.",
        repo_type=REPO_TYPE,
        revision=branch,
        create_pr=create_pr,
        parent_commit=head,
    )
    what = "pull request" if create_pr else "commit"
    log(f"{target}: {what} {getattr(commit, 'pr_url', None) or getattr(commit, 'commit_url', commit)} "
        f"({added} added or changed, {deleted} deleted)")
    return commit


def publish(corpus_list, repo_id, *, private=False, branch=None, create_pr=False, api=None, token=None,
            endpoint=None, workdir=None, log=print, **export_options):
    """Export ``corpus_list`` and upload it to ``repo_id`` in one commit (see the module doc).

    ``api``: an ``HfApi``-like object (tests pass a fake); by default one with the user's
    token. ``workdir``: where the temporary export goes (default: the system's temp folder).
    """
    if "/" not in repo_id:
        raise PublishError(f"the repository must be given as owner/name, got {repo_id!r}")
    api = api or hub_api(token, endpoint)
    user = check_access(api, endpoint)
    log(f"publishing to {repo_id} as {user}")
    check_visibility(api, repo_id, private)
    check_ready(corpus_list, export_options.get("data_dirs"))
    names = ", ".join(c.name for c in corpus_list)
    version = metadata.version("unified-dialogue")
    with tempfile.TemporaryDirectory(prefix="unified-dialogue-publish-", dir=workdir) as tmp:
        folder = export(corpus_list, os.path.join(tmp, "export"), repo=repo_id, log=log, **export_options)
        return upload_folder(api, repo_id, folder, private=private, branch=branch, create_pr=create_pr,
                             message=f"Publish {names} (unified-dialogue {version})", log=log)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(parser)
    parser.add_argument("--repo", required=True, help="the dataset repository, owner/name")
    parser.add_argument("--private", action="store_true", help="create the repository private")
    parser.add_argument("--branch", help="commit to this branch (created from main if missing)")
    parser.add_argument("--create-pr", action="store_true", help="open a pull request instead of committing")
    parser.add_argument("--endpoint", help="the Hub's URL (default: huggingface_hub's, HF_ENDPOINT)")

    def work(args):
        corpus_list, options = build_options(args)
        publish(corpus_list, args.repo, private=args.private, branch=args.branch, create_pr=args.create_pr,
                endpoint=args.endpoint, **options)

    run_command(parser, work, argv, name="publish", flag_hints=True)


if __name__ == "__main__":
    main()
