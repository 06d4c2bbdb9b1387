"""lm-evaluation-harness tasks: any model lm-eval runs (Hugging Face, vLLM, an
OpenAI-compatible server) evaluated on the project's configs, with the scoring command's
numbers.

``TASKS`` is the folder of task files to give lm-eval as ``--include_path`` (also printed
by ``python -m unified_dialogue.harness``). Modules: ``prompts``, what a model is shown
for a row and the gold text of a row; ``task``, the lm-eval task class (its rows through
``unified_dialogue.load``, its metrics through ``unified_dialogue.scoring``; needs
``lm-eval``); ``samples``, an lm-eval samples file as a predictions file. See
docs/harness.md.
"""

from importlib import resources

# The folder of the task files (YAML), shipped in the package.
TASKS = str(resources.files(__package__).joinpath("tasks"))

__all__ = ["TASKS"]
