"""Errors that name the file, the record and the field, so bad input is never skipped."""


class SourceFormatError(ValueError):
    """A source record that does not match the corpus's documented format."""

    def __init__(self, file, record, field, problem):
        self.file, self.record, self.field, self.problem = file, record, field, problem
        super().__init__(f"{file}: {record}: field '{field}': {problem}")

    def __reduce__(self):
        # rebuilt from its parts, so that it comes back intact from a worker process
        return type(self), (self.file, self.record, self.field, self.problem)


class ChecksumError(ValueError):
    """A downloaded or local file whose size or sha256 differs from the checksum table."""


class MissingFilesError(FileNotFoundError):
    """A local copy (``data_dir``) that lacks files the checksum table lists."""


class DownloadError(ConnectionError):
    """A download that failed; the message says how to load a local copy instead."""
