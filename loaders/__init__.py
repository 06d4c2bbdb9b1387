"""The bundled corpora, one package each (loaders/<name>/), found by unified_dialogue.registry."""
