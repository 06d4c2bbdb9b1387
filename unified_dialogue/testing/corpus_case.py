"""The shared corpus test case, ``CorpusTestCase``: every check a corpus must pass, on both
``datasets`` lines, run on a small excerpt of the corpus that its test declares.

It is a pytest test class (a subclass named ``Test<Name>`` is collected by pytest), so this
module imports pytest: it can be imported where pytest is installed, which the package itself
does not need. The checks are grouped by what they check, one module each: ``record_checks``
(what is built), ``build_checks`` (the ways of building agree), ``bad_input_checks`` and
``source_checks`` (local copies and downloads); this module holds what a corpus's test
declares, how the checks are parametrized by it, and the helpers they share.
"""

import os
import shutil
from pathlib import Path

import pytest

from .. import load, registry
from .bad_input_checks import BadInputChecks
from .build_checks import BuildChecks
from .loads import FIXTURE_CHECKSUMS, build_once
from .record_checks import RecordChecks
from .source_checks import SourceChecks


class CorpusTestCase(RecordChecks, BuildChecks, BadInputChecks, SourceChecks):
    """The checks every corpus passes. A corpus's test is a subclass that declares its data.

    You must set:

    - ``corpus``: the corpus's name in the registry (a corpus of your own is found through
      ``UNIFIED_DIALOGUE_CORPORA``, which must be set before pytest collects the test: the
      parametrization asks the registry);
    - ``fixtures``: the folder of a small excerpt of the corpus in the upstream layout,
      holding its checksum table ``SHA256SUMS.tsv`` (the columns of ``checksums.tsv``);
    - ``expected_counts``: ``{split: {"dialogues": n, "turns": n}}`` of the ``unified``
      config, for every split the excerpt has;
    - ``expected_record``: the path of a JSON file holding one ``unified`` record, written
      out in full;
    - ``mutations``: the catalogue of bad inputs (``Mutation``), at least one of each kind
      in ``KINDS`` that the format can have;
    - where the corpus has task views: ``source_rows(view, split)``, the rows a view has in
      a split counted in the source files, and ``prefixes(record)``, how a source record is
      cut after each turn (see their docstrings).

    You may set:

    - ``checksums``: another checksum table of the excerpt;
    - ``expected_rows``: ``{config: {split: rows}}`` of the other configs;
    - ``reverse``: ``{config: function(Dataset of a split) -> the split's source records}``,
      checked to rebuild the source files (as JSON, or byte for byte with ``dump``, a
      function from a file's source records to its text);
    - ``data_configs``: the configs that read the data files, where not all do (the
      mutations apply to them by default);
    - ``spans``: False where the source annotates no character spans;
    - ``impossible``: ``{kind: why}`` for the kinds of bad input the format cannot have.

    A check runs once per value of the argument it takes among ``config`` (every config),
    ``view`` (every task view), ``reversible_config`` (every config of ``reverse``) and
    ``bad_input`` (every mutation in every config it applies to, prepared and streamed):
    ``pytest_generate_tests`` draws them from the declarations.

    Tests of what only the corpus has go in the subclass too; they may use the ``build``
    fixture, ``build(corpus, config="unified", **options)``, a load of the excerpt made
    once per process, and take those arguments too.
    """

    corpus = None
    fixtures = None
    checksums = None
    expected_counts = {}
    expected_rows = {}
    expected_record = None
    reverse = {}
    dump = None
    data_configs = None
    spans = True
    mutations = ()
    impossible = {}

    # ------------------------------------------------------------ parametrisation

    def pytest_generate_tests(self, metafunc):
        """Parametrize a check by the declared values of each of these arguments it takes."""
        arguments = metafunc.fixturenames
        if "config" in arguments:
            metafunc.parametrize("config", self.info.config_names)
        if "view" in arguments:
            metafunc.parametrize("view", [config.name for config in self.info.views])
        if "reversible_config" in arguments:
            metafunc.parametrize("reversible_config", list(self.reverse))
        if "bad_input" in arguments:
            cases = self.bad_inputs()
            metafunc.parametrize("bad_input", cases, ids=[case.id for case in cases])

    @property
    def info(self):
        return registry.get(self.corpus)

    @property
    def checksum_table(self):
        return str(self.checksums or os.path.join(self.fixtures, FIXTURE_CHECKSUMS))

    @pytest.fixture
    def build(self, tmp_path_factory):
        """``build(corpus, config="unified", **options)``: the excerpt loaded, once per process."""
        def _build(corpus, config="unified", **options):
            assert corpus == self.corpus, f"the {self.corpus} test case builds {self.corpus}, not {corpus}"
            return build_once(tmp_path_factory, corpus, self.fixtures, self.checksum_table, config, **options)
        return _build

    def load(self, *args, **kwargs):
        kwargs.setdefault("data_dir", str(self.fixtures))
        kwargs.setdefault("checksums", self.checksum_table)
        return load(self.corpus, *args, **kwargs)

    def copy(self, tmp_path):
        copy = tmp_path / "copy"
        shutil.copytree(self.fixtures, copy)
        return copy

    def data_files(self, split):
        """Relative paths of the fixture files of a split."""
        fixtures = Path(self.fixtures)
        relpaths = [p.relative_to(fixtures).as_posix() for p in fixtures.rglob("*") if p.is_file()]
        return self.info.files_of_split(split, relpaths)

    # ------------------------------------------------------------ declared where the corpus has task views

    def source_rows(self, view, split):
        """The rows ``view`` has in ``split``, counted in the source fixture files (the
        turns of the role it is about)."""
        raise NotImplementedError(f"{self.corpus}: count the rows of {view} in the source")

    def prefixes(self, record):
        """``(t, cut, its id, the record's id)`` for each turn t of a source record (parsed
        JSON) that views have rows for: the record cut after turn t, under an id of its own;
        ids as the unified records' ``original_id``."""
        raise NotImplementedError(f"{self.corpus}: say how a source record is cut after a turn")
