#!/usr/bin/env python3
"""Kill -9 torture of every resumable writer of chomp3.

For each writer: one uninterrupted run makes the reference files; then,
cycle after cycle in a fresh directory, the same command is started and
killed with SIGKILL (its whole process group) at a random moment, again and
again, until a run ends by itself; the files it leaves must be byte for byte
the reference's (a table's commit slots but for their commit count), with no
file more or less. After every kill, a table the
writer grows is read whole by `chomp3 info --verify` (a kill must never make
a healthy file look damaged), and every run that ends by itself must exit 0.

    tests/torture.py --bin target/release/chomp3                # the CI size
    tests/torture.py --bin target/release/chomp3 --kills 100 --size long

`--mpi-bin` (a build with `--features mpi`, and `mpirun` on the PATH) adds
the census under mpirun with two ranks, killed whole (`census-mpi`) and one
rank at a time (`census-mpi-rank`: the job must then end within a minute,
never wait without end for the rank that is gone; an mpirun that stays
after every rank has ended, Open MPI's own shutdown, is said apart with
where it waits, and not counted). Prints one line per writer (kills,
cycles, failures) and exits 1 if any failed. Uses only the standard library.
"""

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

# Per size, the arguments that set how much work a run does: each reference
# run takes about 0.5 s (ci) or 2 to 5 s (long) on a 2-core machine.
SIZES = {
    "ci": {
        "compute": 9000,
        "census": 9000,
        "grundy-table": 330,
        "grundy-periods": (30, 4608),
        "grundy-census": 30,
        "transpose": 6000,
        "graph": "wheel:3..12",
        "census-mpi": 6000,
        "census-mpi-rank": 6000,
    },
    "long": {
        "compute": 20000,
        "census": 25000,
        "grundy-table": 650,
        # Late in a run of 50 lines the periods kept fill their budget:
        # checkpoints of that state are read back too.
        "grundy-periods": (50, 18432),
        "grundy-census": 40,
        "transpose": 16000,
        "graph": "wheel:3..15",
        "census-mpi": 16000,
        "census-mpi-rank": 16000,
    },
}


def writers(size, binary, mpi_binary, shared):
    """Each writer: its command (run in the cycle's directory), the tables it
    grows (checked after each kill), and what the shared directory needs."""
    s = SIZES[size]
    q, lag = s["grundy-periods"]
    out = {
        "compute": (
            [binary, "compute", "--quiet", "--threads", "2", "--n", str(s["compute"]),
             "--table", "t.c3t"],
            ["t.c3t"],
        ),
        "census": (
            [binary, "census", "--quiet", "--threads", "2", "--rows", str(s["census"]),
             "--out", "c.tsv", "--checkpoint-secs", "1"],
            [],
        ),
        "grundy-table": (
            [binary, "grundy-table", "--quiet", "--n", str(s["grundy-table"]),
             "--table", "g.g3t", "--checkpoint-secs", "1"],
            ["g.g3t"],
        ),
        "grundy-periods": (
            [binary, "grundy-periods", "--quiet", "--lines", str(q), "--lag", str(lag),
             "--bfiles", "b", "--out", "p.tsv", "--checkpoint", "p.ck",
             "--checkpoint-secs", "1"],
            [],
        ),
        "grundy-census": (
            [binary, "grundy-census", "--quiet", "--lines", str(s["grundy-census"]),
             "--out", "gc.tsv", "--bfiles", "b", "--rectangles", "20"],
            [],
        ),
        "transpose": (
            [binary, "transpose", "--quiet", "--table", str(shared / "source.c3t"),
             "--out", "r.c3t"],
            [],
        ),
        "graph": (
            [binary, "graph", "--quiet", "--threads", "2", s["graph"], "--memo", "m.memo",
             "--out", "g.txt"],
            [],
        ),
    }
    if mpi_binary:
        for name in ("census-mpi", "census-mpi-rank"):
            out[name] = (
                ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2", mpi_binary,
                 "census", "--quiet", "--threads", "1", "--rows", str(s[name]),
                 "--out", "c.tsv", "--checkpoint-secs", "1"],
                [],
            )
    return out


# The writers whose kills take one process of the job (a rank of mpirun's),
# not the whole of it.
ONE_RANK = {"census-mpi-rank"}
# A job that lost a rank must have ended this many seconds later.
ONE_RANK_LIMIT = 60


TABLE_MAGICS = (b"CHOMP3TB", b"CHOMP3GT", b"CHOMP3TR")


def canonical(data):
    """A table file (FORMAT.md) without its commit count: the header but its
    two commit slots, the slot in force without its sequence number, and the
    rest whole. Runs that commit more often (being killed and continued)
    number their commits differently and hold the same table."""
    if data[:8] not in TABLE_MAGICS or len(data) < 4096:
        return data
    slots = []
    for at in (64, 128):
        slot = data[at:at + 64]
        seq = int.from_bytes(slot[:8], "little")
        if seq and zlib.crc32(slot[:60]) == int.from_bytes(slot[60:64], "little"):
            slots.append((seq, slot[8:60]))
    in_force = max(slots)[1] if slots else b"no slot"
    return data[:64] + in_force + data[192:]


def files(root):
    """Every file under `root`, by its path relative to it, with its bytes."""
    found = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            p = Path(dirpath) / name
            found[str(p.relative_to(root))] = canonical(p.read_bytes())
    return found


# A run killed this many times in a row without one ending by itself makes
# no progress from its files: a failure, not a wait (each kill lands before
# the end of an uninterrupted run's time and a quarter, so a writer that
# keeps its progress ends within a few tries).
KILLS_IN_A_ROW = 200
# Every so many kills in a row, an uninterrupted run from nothing is timed
# again and the kills' window widened to it, if the machine has become
# slower since the first: a run from nothing never takes the path of a
# resumed one, so a resume that makes no progress is still caught.
RETIME_EVERY = 40
# Then the window is also at least this long: the longest a writer under
# torture goes between keeping its progress (`compute` commits every 2 s, the
# others save every second). A resume may do more than a run from nothing
# (check again a whole table before its first save); on a loaded machine,
# killed always before its first save, it could never end.
KEEPS_PROGRESS_WITHIN = 2.5
# No single run may take longer than this.
RUN_LIMIT = 600


def run_to_end(cmd, cwd, log):
    """Runs `cmd` in `cwd` until it ends; its exit code (None if it took
    longer than RUN_LIMIT and was killed) and seconds taken."""
    started = time.monotonic()
    with open(log, "ab") as err:
        try:
            code = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                                  timeout=RUN_LIMIT).returncode
        except subprocess.TimeoutExpired:
            code = None
    return code, time.monotonic() - started


def kill_session(sid):
    """SIGKILL to every process of session `sid` (mpirun puts each rank in a
    process group of its own, but they stay in its session)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:  # the session, field 6 of stat
            try:
                os.kill(int(entry), signal.SIGKILL)
            except ProcessLookupError:
                pass


def start_and_kill(cmd, cwd, log, after):
    """Starts `cmd` in a session of its own and sends SIGKILL to every
    process of it `after` seconds later; None if it was killed, else its exit
    code (it ended first)."""
    with open(log, "ab") as err:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                             start_new_session=True)
        try:
            return p.wait(timeout=after)
        except subprocess.TimeoutExpired:
            end_session(p, cmd)
            return None


def where_stuck(sid, log):
    """Appends to `log` where each process of session `sid` waits (its
    threads' stacks, by gdb where it is installed), for a job that did not
    end."""
    if shutil.which("gdb") is None:
        return
    for pid in session_pids(sid):
        log.write(f"--- process {pid} of a job that did not end:\n".encode())
        log.flush()
        subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 12"],
                       stdout=log, stderr=subprocess.STDOUT, timeout=120)


def end_session(p, cmd):
    """Kills every process of the session of `p` (started by `cmd`) and waits
    until all are gone, so that no process of a job outlives it into the
    next."""
    kill_session(p.pid)
    p.wait()
    deadline = time.monotonic() + 60
    while session_alive(p.pid):
        if time.monotonic() > deadline:
            sys.exit(f"a killed run's processes are still there after 60 s: {cmd}")
        kill_session(p.pid)
        time.sleep(0.01)


def session_pids(sid):
    """The processes of session `sid`."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                pids.append(int(entry))
    return pids


def start_and_kill_one(cmd, cwd, log, after, rng):
    """As `start_and_kill`, but the SIGKILL goes to one rank of the job (a
    process running the program mpirun was given, its first absolute path),
    chosen at random; the job must then end by itself within ONE_RANK_LIMIT
    seconds. Returns (its exit code, or None if killed; None if the job
    ended, else what still ran: "ranks" if any of its ranks did, "launcher"
    if only mpirun's own processes did)."""
    program = next(a for a in cmd if a.startswith("/"))
    with open(log, "ab") as err:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                             start_new_session=True)
        try:
            return p.wait(timeout=after), None
        except subprocess.TimeoutExpired:
            pass

        def ranks_of():
            ranks = []
            for pid in session_pids(p.pid):
                try:
                    if os.readlink(f"/proc/{pid}/exe") == program:
                        ranks.append(pid)
                except OSError:
                    continue
            return ranks

        ranks = ranks_of()
        if ranks:
            try:
                os.kill(rng.choice(ranks), signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:
            kill_session(p.pid)
        hung = None
        try:
            p.wait(timeout=ONE_RANK_LIMIT)
        except subprocess.TimeoutExpired:
            hung = "ranks" if ranks_of() else "launcher"
            where_stuck(p.pid, err)
        end_session(p, cmd)
        return None, hung


def session_alive(sid):
    """Whether any process of session `sid` is still there."""
    return bool(session_pids(sid))


def torture(name, cmd, tables, binary, kills, rng, work):
    """Kills `cmd` at least `kills` times; returns (kills, cycles, failures)."""
    base = work / name
    reference = base / "reference"
    reference.mkdir(parents=True)
    log = base / "stderr.log"
    code, seconds = run_to_end(cmd, reference, log)
    if code is None:
        return 0, 0, [f"the uninterrupted run took over {RUN_LIMIT} s (see {log})"]
    if code != 0:
        return 0, 0, [f"the uninterrupted run exited {code} (see {log})"]
    want = files(reference)
    failures, done, cycles = [], 0, 0
    while done < kills and len(failures) < 5:
        cycles += 1
        d = base / f"cycle-{cycles}"
        d.mkdir()
        in_a_row = 0
        while True:
            if in_a_row == KILLS_IN_A_ROW:
                failures.append(f"cycle {cycles}: killed {in_a_row} times in a row, no run "
                                "ended: a resumed run makes no progress")
                break
            # A fifth of the kills in the first tenth of a second (creation,
            # first commit), the rest anywhere in the run and a little after.
            after = rng.uniform(0, 0.1) if rng.random() < 0.2 else rng.uniform(0, 1.25 * seconds)
            if name in ONE_RANK:
                code, hung = start_and_kill_one(cmd, d, log, after, rng)
                if hung == "ranks":
                    failures.append(f"cycle {cycles}, kill {done + 1}: the job still ran "
                                    f"{ONE_RANK_LIMIT} s after one of its ranks was killed")
                elif hung == "launcher":
                    # Every rank had ended; mpirun itself did not (Open MPI's
                    # own shutdown, not chomp3's): said, not counted.
                    print(f"  {name}: cycle {cycles}, kill {done + 1}: every rank had ended "
                          f"but mpirun still ran {ONE_RANK_LIMIT} s later (where it waits: "
                          f"{log})", flush=True)
            else:
                code = start_and_kill(cmd, d, log, after)
            if code is not None:
                if code != 0:
                    failures.append(f"cycle {cycles}: a run after {done} kills exited {code}")
                break
            done += 1
            in_a_row += 1
            if in_a_row % RETIME_EVERY == 0:
                again = base / "retime"
                shutil.rmtree(again, ignore_errors=True)
                again.mkdir()
                code, took = run_to_end(cmd, again, log)
                shutil.rmtree(again, ignore_errors=True)
                if code == 0:
                    seconds = max(seconds, took, KEEPS_PROGRESS_WITHIN)
            for t in tables:
                if not (d / t).exists():
                    continue
                check = subprocess.run([binary, "info", "--verify", "--table", t], cwd=d,
                                       capture_output=True, text=True, timeout=RUN_LIMIT)
                said = check.stderr.strip()
                if check.returncode != 0 and "not finished" not in said:
                    failures.append(f"cycle {cycles}, kill {done}: info --verify: {said}")
        if in_a_row == KILLS_IN_A_ROW:
            continue
        got = files(d)
        for path in sorted(set(want) | set(got)):
            if path not in got:
                failures.append(f"cycle {cycles}: {path} missing")
            elif path not in want:
                failures.append(f"cycle {cycles}: {path} left beside the results")
            elif got[path] != want[path]:
                failures.append(f"cycle {cycles}: {path} differs from the uninterrupted run's")
        if not failures:
            shutil.rmtree(d)
    return done, cycles, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the chomp3 binary")
    ap.add_argument("--mpi-bin", help="a chomp3 built with --features mpi")
    ap.add_argument("--kills", type=int, default=12, help="kills per writer at least")
    ap.add_argument("--size", choices=sorted(SIZES), default="ci")
    ap.add_argument("--only", help="comma-separated writers to run")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 32)
    rng = random.Random(seed)
    binary = str(Path(a.bin).resolve())
    mpi = str(Path(a.mpi_bin).resolve()) if a.mpi_bin else None
    work = Path(tempfile.mkdtemp(prefix="chomp3-torture-"))
    shared = work / "shared"
    shared.mkdir()
    n = SIZES[a.size]["transpose"]
    subprocess.run([binary, "compute", "--quiet", "--n", str(n), "--table",
                    str(shared / "source.c3t")], check=True, stdout=subprocess.DEVNULL)
    print(f"seed {seed}, size {a.size}, work in {work}", flush=True)
    all_failures = 0
    chosen = a.only.split(",") if a.only else None
    for name, (cmd, tables) in writers(a.size, binary, mpi, shared).items():
        if chosen and name not in chosen:
            continue
        started = time.monotonic()
        done, cycles, failures = torture(name, cmd, tables, binary, a.kills, rng, work)
        print(f"{name}: {done} kills in {cycles} cycles, {len(failures)} failures "
              f"({time.monotonic() - started:.0f} s)", flush=True)
        for f in failures:
            print(f"  {f}", flush=True)
        all_failures += len(failures)
    if all_failures == 0 and not a.keep:
        shutil.rmtree(work)
    sys.exit(1 if all_failures else 0)


if __name__ == "__main__":
    main()
