"""Converting source files to Arrow tables, in this process or in several at once.

A task is one source file: ``task.read()`` gives its bytes, ``task.tables(data)`` the list
of its pa.Tables (in ``task.schema``), and ``task.relpath`` names it (builder.FileTask).
The tables always come in task order, which is the order of the dataset's records.
"""

import multiprocessing
import multiprocessing.connection
import os
import pickle
import shutil
import sys
import tempfile
import uuid
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa

WRITE_BUFFER = 1 << 20
# How long to wait for the claim lock (or a worker for room) before asking whether the
# wait can still end: the lock is held for microseconds at a time, so a wait this long
# means that its holder may have been killed while holding it, and the dead give nothing back.
CLAIM_WAIT = 1.0


def convert_here(tasks):
    """The tables of every task, in order, in this process. The next file is read and
    verified in a thread meanwhile: reading and hashing release the GIL."""
    with ThreadPoolExecutor(max_workers=1) as reader:
        upcoming = reader.submit(tasks[0].read) if tasks else None
        for task, next_task in zip(tasks, tasks[1:] + [None]):
            data = upcoming.result()
            if next_task is not None:
                upcoming = reader.submit(next_task.read)
            yield task.tables(data)


def convert_to_arrow_file(folder, task):
    """The tables of a task written to a new Arrow file in ``folder``; its path."""
    tables = task.tables(task.read())
    path = os.path.join(folder, f"{os.getpid()}-{uuid.uuid4().hex}.arrow")
    # Buffered: unbuffered, each of the deep schema's hundreds of small buffers is a write
    # call of its own, which doubled the cost of writing the file.
    with pa.output_stream(path, compression=None, buffer_size=WRITE_BUFFER) as sink, \
            pa.ipc.new_file(sink, task.schema) as writer:
        for table in tables:
            writer.write_table(table)
    return path


def take_tables(path):
    """The tables of an Arrow file written by convert_to_arrow_file, memory-mapped, so that
    the process that writes the dataset copies them once only. The file is removed; its
    pages stay readable until the tables are dropped."""
    with pa.memory_map(path) as source:
        reader = pa.ipc.open_file(source)
        tables = [pa.Table.from_batches([reader.get_batch(i)]) for i in range(reader.num_record_batches)]
    try:
        os.remove(path)
    except OSError:  # a platform that cannot remove a mapped file: WorkerPool.close removes the folder
        pass
    return tables


def sendable(error, relpath):
    """``error``, or, if it cannot be rebuilt from its pickle, a RuntimeError with its text:
    a worker's error reaches this process through a pipe, which carries pickles only."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return RuntimeError(f"{relpath}: {type(error).__name__}: {error}")


def acquired(primitive, stop_waiting=None):
    """Acquire a lock or semaphore shared with other processes, asking ``stop_waiting()``
    every CLAIM_WAIT seconds without it whether to give up (False) or go on; it may raise."""
    while not primitive.acquire(timeout=CLAIM_WAIT):
        if stop_waiting is not None and stop_waiting():
            return False
    return True


def claim(lock, holder, counter, count, index=None, working=None, worker=None, stop_waiting=None):
    """Claim the next task nobody has started (``counter``: its index, shared by every
    process), or None if all ``count`` are started. With ``index``, claim only that task.
    A worker notes its claim in ``working[worker]`` (shared), so that if it dies, the
    task it held is known at once. ``lock`` guards both, and ``holder`` (shared) has the
    pid of the process holding it, 0 when none. ``stop_waiting``: see acquired; if it
    gives up, None."""
    if not acquired(lock, stop_waiting):
        return None
    holder.value = os.getpid()
    try:
        claimed = counter.value
        if claimed >= count or (index is not None and claimed != index):
            return None
        counter.value = claimed + 1
        if working is not None:
            working[worker] = claimed
        return claimed
    finally:
        holder.value = 0
        lock.release()


def converted(task, folder=None):
    """``(result, None)``, the result being the task's tables, or with ``folder`` the path
    of the Arrow file convert_to_arrow_file wrote them to; or ``(None, error)`` if
    converting it failed."""
    try:
        return (task.tables(task.read()) if folder is None else convert_to_arrow_file(folder, task)), None
    except Exception as error:
        return None, error


def convert_claimed(tasks, lock, holder, counter, working, worker, folder, results, room):
    """Worker number ``worker``: convert tasks as it claims them, until none is left,
    sending ``(index, path, error)`` (converted) for each through ``results``. Each
    result takes one of the ``room`` semaphore's places until the building process has
    taken it, so that workers stop short of filling the folder with the whole dataset
    while the dataset's writing lags behind."""
    building_process, building_pid = multiprocessing.parent_process(), os.getppid()

    def building_process_gone():  # killed: nobody will make room or give the lock back any more
        # The parent's pid changes at once on POSIX, not on Windows; the parent's sentinel
        # works everywhere, but a worker forked later keeps it open too.
        return os.getppid() != building_pid or not building_process.is_alive()

    try:
        while True:
            if not acquired(room, building_process_gone):
                return
            index = claim(lock, holder, counter, len(tasks), working=working, worker=worker,
                          stop_waiting=building_process_gone)
            if index is None:
                room.release()  # for the next worker waiting, which will find nothing left either
                return
            path, error = converted(tasks[index], folder)
            results.send((index, path, None if error is None else sendable(error, tasks[index].relpath)))
    finally:
        if building_process_gone():  # nor will it remove the folder
            shutil.rmtree(folder, ignore_errors=True)


class WorkerPool:
    """``num_proc`` processes converting ``tasks`` at once: this one and ``num_proc - 1``
    worker processes, started now. Each process takes the next task nobody has started.
    This process, which also writes the dataset, converts a task as soon as it is the one
    whose tables it needs next; when that one is another process's and not ready, it takes
    the next tasks nobody has started meanwhile. So no process waits while there is work
    left, and this one converts less as its writing grows.

    A worker's tables come back through Arrow files in a temporary folder: sent through a
    pipe, a file's megabytes kept the worker waiting for this process to read them. The
    tables this process converts ahead of their turn stay in its memory. At most ``ahead``
    results (by default two per process) wait at once: with the dataset written to a slow
    disk, the workers would otherwise fill the temporary folder, which may be small, or in
    memory, with nearly all of the dataset. (A file is removed once its tables are taken;
    where a mapped file cannot be removed, it stays until the pool is closed. A worker that
    dies between making room for a result and claiming a task takes that place with it.)
    """

    def __init__(self, tasks, num_proc, ahead=None):
        self.tasks = list(tasks)
        # By the task itself, not its relpath: two tasks may read one file differently.
        self.index = {id(task): index for index, task in enumerate(self.tasks)}
        if ahead is not None and ahead < 1:
            raise ValueError(f"ahead must be at least 1, got {ahead}")
        self.folder = tempfile.mkdtemp(prefix="unified-dialogue-")
        # Forked workers start in milliseconds with everything imported and the tasks in
        # memory; other platforms keep their default start method.
        context = multiprocessing.get_context("fork" if sys.platform == "linux" else None)
        # One lock for the three, taken with a timeout (claim): the locks that Value and
        # Array come with are waited on for ever, also when a killed process held one.
        self.lock = context.Lock()
        self.holder = context.RawValue("q", 0)  # the pid of the process holding the lock, 0 when none
        self.counter = context.RawValue("i", 0)
        self.working = context.RawArray("i", [-1] * (num_proc - 1))  # each worker's last claim
        self.room = context.Semaphore(2 * num_proc if ahead is None else ahead)  # places for results not yet taken
        self.results = {}  # index -> (a worker's file or this process's tables, error), until taken
        self.done = set()  # every index that has had a result
        self.running = {}  # pipe -> (its worker, the worker's number), until the worker ends
        self.workers = []  # every worker started
        try:
            for number in range(num_proc - 1):
                receiver, sender = context.Pipe(duplex=False)
                worker = context.Process(target=convert_claimed, daemon=True, args=(
                    self.tasks, self.lock, self.holder, self.counter, self.working, number, self.folder, sender,
                    self.room))
                worker.start()
                self.workers.append(worker)
                sender.close()
                self.running[receiver] = (worker, number)
        except BaseException:
            self.close()
            raise

    def convert_in_order(self, tasks):
        """The tables of each of ``tasks``, in order. Tasks the pool was not made with
        are converted in this process. The pool's own tasks must come in the pool's order,
        none left out: the workers, held back by ``ahead``, wait for the earlier ones to be
        taken."""
        for task in tasks:
            index = self.index.get(id(task))
            if index is None or self._claim(index, index) is not None:
                yield task.tables(task.read())
            elif index >= self.counter.value:  # nobody has started it, nor all the tasks before it
                raise RuntimeError(f"{task.relpath}: asked for before the tasks the pool was made with "
                                   "ahead of it; a WorkerPool's tasks must be asked for in its order")
            else:
                yield self._take(index)

    def _take(self, index):
        """The tables of a task claimed earlier, by another process or ahead by this one;
        its place in the room is given back once they are taken (and its file is gone)."""
        self._wait_for(index)
        result, error = self.results.pop(index)
        try:
            if error is not None:
                raise error
            return take_tables(result) if isinstance(result, str) else result
        finally:
            self.room.release()

    def _wait_for(self, index):
        """Wait for the result of a task another process claimed; meanwhile this process
        converts the tasks nobody has started, keeping their tables (or error) in memory."""
        while index not in self.results:
            self._receive(wait=False)
            if index in self.results:
                break
            ahead = self._claim_ahead(index)
            if ahead is not None:  # an error is raised when its turn comes, after the tables before it
                self._record(ahead, *converted(self.tasks[ahead]))
            elif not self.running:
                raise RuntimeError(f"{self.tasks[index].relpath}: the worker process converting it ended "
                                   "without a result")
            else:
                self._receive(wait=True)

    def _claim(self, waited_for, index=None):
        """claim() for this process, which needs the tables of task ``waited_for``."""
        def fail_if_the_holder_died():
            # A worker killed while holding the lock would stop every claim for ever. The
            # holder is known, but for the instant between taking the lock and noting it:
            # then any worker that ended otherwise than by returning is taken to be it.
            pid = self.holder.value
            ended_badly = [worker for worker in self.workers if worker.exitcode not in (None, 0)
                           and (pid == 0 or worker.pid == pid)]
            if ended_badly:
                worker = ended_badly[0]
                how = "while holding" if worker.pid == pid else "most likely while holding"
                raise RuntimeError(
                    f"{self.tasks[waited_for].relpath}: waiting for it, this process could not claim a file: "
                    f"worker process {worker.pid} ended (exit code {worker.exitcode}) {how} the lock that "
                    "shares the files out among the processes, so it will never be free again")
            return False

        return claim(self.lock, self.holder, self.counter, len(self.tasks), index,
                     stop_waiting=fail_if_the_holder_died)

    def _claim_ahead(self, waited_for):
        """The next task nobody has started, claimed, if there is one and room for its result."""
        if not self.room.acquire(block=False):
            return None
        index = self._claim(waited_for)
        if index is None:
            self.room.release()
        return index

    def _receive(self, wait):
        """Take the results the workers have sent; with ``wait``, wait for one to send or end."""
        sentinels = {worker.sentinel: receiver for receiver, (worker, _) in self.running.items()}
        for ready in multiprocessing.connection.wait([*self.running, *sentinels], timeout=None if wait else 0):
            receiver = sentinels.get(ready, ready)
            if receiver in self.running:  # its pipe and its sentinel can both be ready
                self._receive_from(receiver)

    def _receive_from(self, receiver):
        """Take the results ``receiver`` holds; once its worker has ended, forget both, and
        if it ended without a result for the task it held, that task fails now."""
        worker, number = self.running[receiver]
        ended = not worker.is_alive()  # asked first: a worker that has ended has sent everything
        try:
            while receiver.poll():
                index, path, error = receiver.recv()
                self._record(index, path, error)
        except (EOFError, OSError):  # the worker closed its end, or died in the middle of a message
            ended = True
        if ended:
            del self.running[receiver]
            worker.join()
            receiver.close()
            held = self.working[number]
            if held >= 0 and held not in self.done:
                self._record(held, None, RuntimeError(
                    f"{self.tasks[held].relpath}: the worker process converting it ended without a result "
                    f"(exit code {worker.exitcode})"))

    def _record(self, index, result, error):
        """``result``: the path of a worker's Arrow file, or the tables this process converted."""
        self.results[index] = (result, error)
        self.done.add(index)

    def close(self):
        for worker, _ in self.running.values():
            worker.terminate()
        for receiver, (worker, _) in self.running.items():
            worker.join()
            receiver.close()
        self.running = {}
        # An error raised from the pool keeps it alive in its traceback: drop what waits here.
        self.results = {}
        shutil.rmtree(self.folder, ignore_errors=True)
