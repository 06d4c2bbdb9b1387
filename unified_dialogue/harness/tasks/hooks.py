# The functions the task files name with !function (lm-eval imports this file by its path).
from unified_dialogue.harness.prompts import doc_to_target, doc_to_text  # noqa: F401
from unified_dialogue.harness.task import DialogueTask  # noqa: F401
from unified_dialogue.harness.variants import VariantsTask  # noqa: F401
