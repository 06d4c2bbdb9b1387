"""Converting files in several processes: the tables in task order, whoever converts a
file, and a worker's error or death reported, never waited on."""

import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time

import pyarrow as pa
import pytest

from unified_dialogue.errors import SourceFormatError
from unified_dialogue import parallel
from unified_dialogue.parallel import WorkerPool, convert_here

SCHEMA = pa.schema([("task", pa.int64()), ("row", pa.int64()), ("pid", pa.int64())])
TEST_PROCESS = os.getpid()


class Task:
    """A file to convert: ``rows`` rows in two tables, each naming the process that made it.
    ``seconds``: time converting takes; ``in_workers``: what happens in a worker process
    instead ("error", "unpicklable error", "exit", "slow": 0.3 s more); ``here``: what
    happens in the test process instead ("error")."""

    schema = SCHEMA

    def __init__(self, number, rows=3, seconds=0.0, in_workers=None, here=None):
        self.number, self.rows, self.seconds, self.in_workers, self.here = number, rows, seconds, in_workers, here
        self.relpath = f"dialogues_{number:03d}.json"

    def read(self):
        return b"[]"

    def tables(self, data):
        time.sleep(self.seconds)
        if os.getpid() == TEST_PROCESS and self.here == "error":
            raise SourceFormatError(self.relpath, "dialogue 1_00002", "services", "not a list")
        if os.getpid() != TEST_PROCESS:
            if self.in_workers == "slow":
                time.sleep(0.3)
            if self.in_workers == "error":
                raise SourceFormatError(self.relpath, "dialogue 1_00001", "turns[0].speaker", "unknown speaker 'BOT'")
            if self.in_workers == "unpicklable error":
                raise UnpicklableError(self.relpath)
            if self.in_workers == "exit":
                os._exit(3)
        rows = {"task": [self.number] * self.rows, "row": list(range(self.rows)), "pid": [os.getpid()] * self.rows}
        table = pa.table(rows, schema=SCHEMA)
        return [table.slice(0, 1), table.slice(1)]


class UnpicklableError(Exception):
    def __init__(self, relpath):  # a second argument pickle does not know of
        super().__init__(f"{relpath} is broken")
        self.handle = lambda: None

    def __reduce__(self):
        raise TypeError("cannot pickle this error")


def rows_of(converted):
    """(task, row) of every row, in the order the tables came, and the processes that made them."""
    tables = [table for tables in converted for table in tables]
    table = pa.concat_tables(tables)
    return list(zip(table["task"].to_pylist(), table["row"].to_pylist())), set(table["pid"].to_pylist())


@pytest.fixture
def pool_of():
    pools = []

    def make(tasks, num_proc, ahead=None):
        # By default room for every result: some tests let the workers claim every task first.
        pools.append(WorkerPool(tasks, num_proc, ahead=ahead or len(tasks)))
        return pools[-1]

    yield make
    for pool in pools:
        pool.close()
        assert not os.path.exists(pool.folder)


def wait_until(condition, failure, seconds=30, every=0.005):
    """Ask ``condition()`` every ``every`` seconds until it is true; fail with ``failure``
    if it is still false after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(every)


def claimed_by_workers(pool, count):
    """Wait until the workers have claimed the first ``count`` tasks."""
    wait_until(lambda: pool.counter.value >= count, f"the workers never claimed {count} tasks")


def received_from_workers(pool, count):
    """Wait until this process has received ``count`` results from the workers: a file
    appearing in the folder is not enough, as its worker may still be writing it."""
    def received():
        pool._receive(wait=False)
        return len(pool.results) >= count

    wait_until(received, f"the workers never sent {count} results")


def all_claimed_by_workers(pool):
    """Wait until the workers have claimed every task, so that none is converted here."""
    claimed_by_workers(pool, len(pool.tasks))


@pytest.mark.parametrize("num_proc", [2, 3])
def test_tables_come_in_task_order_and_every_process_converts(pool_of, num_proc):
    tasks = [Task(n, rows=1 + n % 3, seconds=0.05) for n in range(8)]
    expected, here = rows_of(convert_here(tasks))
    assert here == {TEST_PROCESS}
    pool = pool_of(tasks, num_proc)
    # A worker has started (not taken for granted: on a busy machine it may not yet have
    # run), so the two share the tasks however the processes are scheduled from now on.
    claimed_by_workers(pool, 1)
    got, processes = rows_of(pool.convert_in_order(tasks))
    assert got == expected
    # This process converts whatever is next and unclaimed; the workers take the rest.
    assert TEST_PROCESS in processes and len(processes) > 1


def test_tables_a_worker_converted_come_back_through_files(pool_of):
    tasks = [Task(n) for n in range(5)]
    pool = pool_of(tasks, 2)
    all_claimed_by_workers(pool)
    got, processes = rows_of(pool.convert_in_order(tasks))
    assert got == rows_of(convert_here(tasks))[0]
    assert TEST_PROCESS not in processes
    assert os.listdir(pool.folder) == []  # each file removed once its tables are taken


def test_tables_this_process_converts_ahead_stay_in_memory(pool_of, monkeypatch):
    taken, ahead = [], []
    take, claim_ahead = parallel.take_tables, WorkerPool._claim_ahead
    monkeypatch.setattr(parallel, "take_tables", lambda path: taken.append(path) or take(path))
    monkeypatch.setattr(WorkerPool, "_claim_ahead",
                        lambda pool, index: ahead.append(claim_ahead(pool, index)) or ahead[-1])
    # The worker's first task is slow: this process converts the next ones meanwhile.
    tasks = [Task(0), Task(1, in_workers="slow")] + [Task(n) for n in range(2, 6)]
    pool = pool_of(tasks, 2, ahead=3)
    claimed_by_workers(pool, 2)
    got, processes = rows_of(pool.convert_in_order(tasks))
    assert got == rows_of(convert_here(tasks))[0]
    assert [index for index in ahead if index is not None], "this process never converted ahead"
    assert taken and all(os.path.basename(path).split("-")[0] != str(TEST_PROCESS) for path in taken)


def test_an_error_this_process_meets_ahead_is_raised_when_its_file_is_reached(pool_of):
    tasks = [Task(0), Task(1, in_workers="slow"), Task(2, here="error"), Task(3)]
    pool = pool_of(tasks, 2)
    claimed_by_workers(pool, 2)
    converted = pool.convert_in_order(tasks)
    assert [len(next(converted)) for _ in range(2)] == [2, 2]  # the files before it
    assert 2 in pool.done  # converted while task 1 was in the worker
    with pytest.raises(SourceFormatError, match="^dialogues_002.json: dialogue 1_00002"):
        next(converted)
    for worker, _ in list(pool.running.values()):
        worker.join(timeout=30)
    if sys.platform != "darwin":  # which has no sem_getvalue
        # Its place given back with those of the files before it; task 3's result keeps one.
        assert pool.room.get_value() == len(tasks) - 1 and list(pool.results) == [3]
    pool.close()
    assert pool.results == {}  # the raised error keeps the pool alive: nothing waits there any more


def test_workers_wait_while_the_results_not_yet_taken_fill_the_room(pool_of):
    tasks = [Task(n) for n in range(6)]
    pool = pool_of(tasks, 2, ahead=2)
    wait_until(lambda: len(os.listdir(pool.folder)) >= 2, "the worker never converted two files")
    time.sleep(0.3)  # time enough for a worker that would not wait to claim more
    assert pool.counter.value == 2 and len(os.listdir(pool.folder)) == 2
    converted = pool.convert_in_order(tasks)
    got = [next(converted), next(converted)]  # the two waiting: taking them makes room
    wait_until(lambda: pool.counter.value >= 4, "the worker did not go on once its results were taken")
    for tables in converted:
        got.append(tables)
        assert len(os.listdir(pool.folder)) <= 2
    assert rows_of(got)[0] == rows_of(convert_here(tasks))[0]


@pytest.mark.parametrize("num_proc", [2, 3])
def test_less_room_than_processes_still_gives_every_table_in_order(pool_of, num_proc):
    tasks = [Task(n, seconds=0.01 * (n % 3)) for n in range(10)]
    pool = pool_of(tasks, num_proc, ahead=1)
    converted, got = pool.convert_in_order(tasks), []
    for _ in tasks:
        got.append(next(converted))
        assert len(os.listdir(pool.folder)) <= 1
    assert rows_of(got)[0] == rows_of(convert_here(tasks))[0]


@contextlib.contextmanager
def failing_after(seconds, what):
    """Fail the test with ``what`` if the block takes longer than ``seconds``: a hang."""
    def hung(signum, frame):
        raise AssertionError(what)

    if not hasattr(signal, "SIGALRM"):  # Windows: a hang stays a hang
        yield
        return
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_tasks_asked_for_out_of_the_pools_order_are_an_error_not_a_hang(pool_of):
    tasks = [Task(n) for n in range(6)]
    pool = pool_of(tasks, 2, ahead=1)  # the worker holds at most task 0 until it is taken
    with failing_after(20, "waited for a task nobody would convert"):
        with pytest.raises(RuntimeError, match=r"^dialogues_003.json: asked for before the tasks"):
            next(pool.convert_in_order(tasks[3:]))


def test_claim_asks_whether_to_go_on_waiting_only_while_the_lock_is_taken(monkeypatch):
    monkeypatch.setattr(parallel, "CLAIM_WAIT", 0.01)
    lock, holder = multiprocessing.Lock(), multiprocessing.RawValue("q", 0)
    counter = multiprocessing.RawValue("i", 0)
    asked = []
    lock.acquire()  # as by a process killed while holding it
    with failing_after(20, "claim waited for ever"):
        assert parallel.claim(lock, holder, counter, 3,
                              stop_waiting=lambda: asked.append(holder.value) or len(asked) == 3) is None
    assert asked == [0, 0, 0] and counter.value == 0
    lock.release()
    counter.value = 2

    def never():
        pytest.fail("asked while the lock was free")

    assert parallel.claim(lock, holder, counter, 3, stop_waiting=never) == 2
    assert counter.value == 3 and holder.value == 0
    assert parallel.claim(lock, holder, counter, 3) is None  # none left
    assert lock.acquire(block=False), "claim kept the lock"


class KillingCounter:
    """A counter whose reading kills the process reading it: inside claim(), lock held."""

    @property
    def value(self):
        os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers must be forked with the patch")
@pytest.mark.parametrize("noted", [True, False], ids=["holder noted", "killed before noting itself"])
def test_a_worker_killed_while_holding_the_claim_lock_is_an_error_not_a_hang(pool_of, monkeypatch, noted):
    monkeypatch.setattr(parallel, "CLAIM_WAIT", 0.05)
    claim = parallel.claim

    def killed_while_claiming(lock, holder, counter, *args, **kwargs):
        if os.getpid() == TEST_PROCESS:
            return claim(lock, holder, counter, *args, **kwargs)
        if noted:
            return claim(lock, holder, KillingCounter(), *args, **kwargs)
        lock.acquire()
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(parallel, "claim", killed_while_claiming)
    tasks = [Task(n) for n in range(3)]
    pool = pool_of(tasks, 2)
    (worker,) = pool.workers
    worker.join(20)
    how = "while holding" if noted else "most likely while holding"
    with failing_after(20, "waited for ever for a lock a dead worker held"):
        with pytest.raises(RuntimeError, match=rf"^dialogues_000.json: waiting for it, this process could not claim "
                                               rf"a file: worker process {worker.pid} ended \(exit code -9\) {how} "
                                               r"the lock that shares the files out"):
            list(pool.convert_in_order(tasks))


def holding_the_lock_for(pool, seconds, as_pid):
    """Take the pool's claim lock, noted as held by ``as_pid`` (0: not noted), and give it
    back after ``seconds`` from another thread: a holder alive, but slow."""
    pool.lock.acquire()
    pool.holder.value = as_pid

    def give_back():
        pool.holder.value = 0
        pool.lock.release()

    timer = threading.Timer(seconds, give_back)
    timer.start()
    return timer


@pytest.mark.parametrize("as_pid", [0, TEST_PROCESS], ids=["holder not noted", "holder noted"])
def test_a_holder_of_the_claim_lock_that_is_alive_but_slow_is_waited_for(pool_of, monkeypatch, as_pid):
    monkeypatch.setattr(parallel, "CLAIM_WAIT", 0.05)
    tasks = [Task(n) for n in range(4)]
    pool = pool_of(tasks, 3)
    timer = holding_the_lock_for(pool, 0.3, as_pid)
    with failing_after(20, "the build hung"):
        got, _ = rows_of(pool.convert_in_order(tasks))
    assert not timer.is_alive(), "the build went on while the lock was taken"
    assert got == rows_of(convert_here(tasks))[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sends a worker SIGKILL")
def test_a_worker_killed_elsewhere_is_not_taken_for_the_holder_of_the_claim_lock(pool_of, monkeypatch):
    monkeypatch.setattr(parallel, "CLAIM_WAIT", 0.05)
    tasks = [Task(n) for n in range(4)]
    pool = pool_of(tasks, 3, ahead=2)
    received_from_workers(pool, 2)  # the room is full: the workers wait, holding no task
    killed = pool.workers[0]
    os.kill(killed.pid, signal.SIGKILL)
    killed.join(20)
    timer = holding_the_lock_for(pool, 0.3, TEST_PROCESS)
    with failing_after(20, "the build hung"):
        got, _ = rows_of(pool.convert_in_order(tasks))
    assert not timer.is_alive(), "the build went on while the lock was taken"
    assert got == rows_of(convert_here(tasks))[0]


def test_room_must_hold_one_result_at_least():
    made = set(os.listdir(tempfile.gettempdir()))
    with pytest.raises(ValueError, match="at least 1"):
        WorkerPool([Task(0), Task(1)], 2, ahead=0)
    assert set(os.listdir(tempfile.gettempdir())) == made  # no folder left behind


def assert_the_worker_ends_with_its_building_process(build_then_die):
    """Run ``build_then_die(sender)`` in a process of its own, which makes a pool of one
    worker, sends the worker's pid and the pool's folder, and dies; the worker must end
    too, and remove the folder, as nobody else would."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    building = context.Process(target=build_then_die, args=(sender,))
    building.start()
    sender.close()  # so that if it dies before sending, receiving fails instead of waiting
    (worker,), folder = receiver.recv()
    building.join()
    try:
        wait_until(lambda: ended(worker), "the worker outlived its building process", seconds=20, every=0.05)
    finally:
        if not ended(worker):  # it holds this process's output open: it must not stay
            os.kill(worker, signal.SIGKILL)
    assert not os.path.exists(folder)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads process states from /proc")
def test_a_worker_waiting_for_room_ends_when_the_building_process_is_killed():
    def build_then_die(sender):
        pool = WorkerPool([Task(n) for n in range(4)], 2, ahead=1)
        wait_until(lambda: os.listdir(pool.folder), "the worker never made its one result")  # and now waits
        sender.send(([worker.pid for worker in pool.workers], pool.folder))
        os._exit(9)  # no clean-up: as if killed

    assert_the_worker_ends_with_its_building_process(build_then_die)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads process states from /proc")
def test_a_worker_waiting_for_the_claim_lock_ends_when_the_building_process_is_killed_holding_it():
    def build_then_die(sender):
        parallel.CLAIM_WAIT = 0.05
        claim = parallel.claim

        def late_claim(*args, **kwargs):  # in the worker: after this process has taken the lock
            time.sleep(0.3)
            return claim(*args, **kwargs)

        parallel.claim = late_claim
        pool = WorkerPool([Task(n) for n in range(4)], 2)
        pool.lock.acquire()
        sender.send(([worker.pid for worker in pool.workers], pool.folder))
        os._exit(9)  # no clean-up, and the lock still taken: as if killed while claiming

    assert_the_worker_ends_with_its_building_process(build_then_die)


def ended(pid):
    """Whether the process has ended (gone, or a zombie nobody has reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_task_the_pool_was_not_made_with_is_converted_here(pool_of):
    tasks = [Task(n) for n in range(3)]
    extra = Task(7)
    pool = pool_of(tasks, 2)
    got, processes = rows_of(pool.convert_in_order(tasks[:1] + [extra]))
    assert [task for task, _ in got] == [0, 0, 0, 7, 7, 7]
    assert TEST_PROCESS in processes


def test_an_error_in_a_worker_is_raised_here_when_its_file_is_reached(pool_of):
    tasks = [Task(0), Task(1), Task(2, in_workers="error"), Task(3)]
    pool = pool_of(tasks, 2)
    all_claimed_by_workers(pool)
    converted = pool.convert_in_order(tasks)
    assert [len(next(converted)) for _ in range(2)] == [2, 2]  # the files before it
    with pytest.raises(SourceFormatError) as error:
        next(converted)
    assert str(error.value) == ("dialogues_002.json: dialogue 1_00001: field 'turns[0].speaker': "
                                "unknown speaker 'BOT'")


def test_an_error_that_does_not_pickle_arrives_as_its_text(pool_of):
    tasks = [Task(0), Task(1, in_workers="unpicklable error")]
    pool = pool_of(tasks, 2)
    all_claimed_by_workers(pool)
    with pytest.raises(RuntimeError, match=r"^dialogues_001.json: UnpicklableError: dialogues_001.json is broken$"):
        list(pool.convert_in_order(tasks))


def test_a_worker_that_dies_is_reported_not_waited_on(pool_of):
    tasks = [Task(0), Task(1, in_workers="exit")]
    pool = pool_of(tasks, 2)
    all_claimed_by_workers(pool)
    converted = pool.convert_in_order(tasks)
    assert len(next(converted)) == 2
    with pytest.raises(RuntimeError, match=r"^dialogues_001.json: the worker process converting it ended"):
        next(converted)


def test_a_file_that_cannot_be_removed_while_mapped_is_removed_with_the_folder(pool_of, monkeypatch):
    tasks = [Task(n) for n in range(3)]
    pool = pool_of(tasks, 2)
    all_claimed_by_workers(pool)

    def refuse(path):
        raise PermissionError(f"{path} is mapped")

    monkeypatch.setattr(os, "remove", refuse)
    got, _ = rows_of(pool.convert_in_order(tasks))
    assert got == rows_of(convert_here(tasks))[0]
    assert len(os.listdir(pool.folder)) == 3  # the fixture checks that close() removes them


def test_a_worker_that_dies_fails_its_file_at_once_while_others_work_on(pool_of):
    tasks = [Task(0, in_workers="exit")] + [Task(n, seconds=0.5) for n in range(1, 10)]
    pool = pool_of(tasks, 3)
    claimed_by_workers(pool, 1)  # a worker holds task 0
    with pytest.raises(RuntimeError, match=r"^dialogues_000.json: the worker process converting it ended "
                                           r"without a result \(exit code 3\)$"):
        next(pool.convert_in_order(tasks))
    assert pool.counter.value < len(tasks)  # not after converting everything else first


def test_two_tasks_of_one_file_keep_their_own_tables(pool_of):
    first, second = Task(1), Task(2)
    second.relpath = first.relpath  # one source file read two ways, e.g. by two splits
    tasks = [first, second]
    pool = pool_of(tasks, 2)
    all_claimed_by_workers(pool)
    got, _ = rows_of(pool.convert_in_order(tasks))
    assert [task for task, _ in got] == [1, 1, 1, 2, 2, 2]


def test_workers_that_cannot_all_start_leave_nothing_behind(monkeypatch):
    import multiprocessing.context
    import tempfile

    folders, started = [], []
    make_folder, start = tempfile.mkdtemp, multiprocessing.context.ForkProcess._Popen

    def recorded_folder(**kwargs):
        folders.append(make_folder(**kwargs))
        return folders[-1]

    def second_fork_fails(process):
        if started:
            raise OSError(11, "Resource temporarily unavailable")
        started.append(process)
        return start(process)

    monkeypatch.setattr(tempfile, "mkdtemp", recorded_folder)
    monkeypatch.setattr(multiprocessing.context.ForkProcess, "_Popen", staticmethod(second_fork_fails))
    with pytest.raises(OSError, match="Resource temporarily unavailable"):
        WorkerPool([Task(n, seconds=0.2) for n in range(6)], 3)
    assert len(started) == 1 and not started[0].is_alive()
    assert folders and not os.path.exists(folders[0])
