#!/usr/bin/env python3
"""The census on P ranks of T threads, simulated from a trace (doc/scaling.md,
"The simulator"). Standard library only.

  census_sim.py replay TRACE... --ranks P --threads T [--cores C] ...
      Replays a trace (`chomp3 census --trace FILE`; the files of every rank
      of one MPI run together make one trace) over P ranks: every chunk's
      CPU time and every hand-off as recorded, the engine's dependencies
      (a chunk's block waits for the block before to have done its rows on
      the same rank, and for the chunk below: a message when that chunk is
      another rank's), block b of a batch on thread b mod T, and the batch's
      end (state comparisons, the settle chain, the drive's decisions).
      Ranks share nodes of C cores (processor sharing, polling threads and
      shared-cache contention). Prints the wall time, the CPU, the bytes
      sent (in all, and between nodes from the busiest node) and the memory
      per rank of the memory model. --free (with --keep) and --turns
      simulate two changes of design.
  census_sim.py fit TRACE_R1 TRACE_R2 ... [--model linear|power]
      Fits the cost of a chunk's block per cell of (q/R, r/R), as a + b R
      or c R^alpha, and says how well it predicts each trace, with and
      without that trace in the fit (--rows, --span: the fit's work of other
      censuses).
  census_sim.py project TRACE_R1 TRACE_R2 ... --rows R --ranks P --threads T
      Makes the batches of a census of R rows from the fit (each rank's run
      of chunks in a block cut into --pieces tasks), simulates a sample of
      them (--sample) and scales the wall by their wall per unit of work.
  census_sim.py memory [--rows R ...]
      The memory model per MPI rank, fitted to doc/scaling.md's measured peaks.
  census_sim.py selftest
      Checks the simulator on hand-made traces whose answers are known.
"""

import argparse
import bisect
import heapq
import math
import sys

CHUNK_ROWS = 1024
BLOCK_COLS = 64
# The last blocks of a batch whose chunks' times cut the runs for the next
# batch (src/f/engine/mod.rs, RECENT_BLOCKS).
RECENT_BLOCKS = 4


# ----------------------------------------------------------------- traces


class Block:
    """One block of columns: its chunks' (chunk, rows, cpu_ns, edge_bytes),
    and the caller's CPU time on it (summed over ranks)."""

    def __init__(self, q0, cols):
        self.q0 = q0
        self.cols = cols
        self.chunks = {}
        self.k_ns = 0

    def chunk_list(self):
        return [self.chunks[c] for c in sorted(self.chunks)]


class Batch:
    def __init__(self, q0, cols):
        self.q0 = q0
        self.cols = cols
        self.blocks = {}
        self.consume_ns = 0
        self.trackers_ns = 0
        self.settle_ns = 0
        self.links = 0
        self.settled = 0


class Trace:
    """A census trace: its header and its batches, every rank's files merged."""

    def __init__(self):
        self.rows = None
        self.batch_cols = None
        self.ranks = 1
        self.threads = 1
        self.batches = {}
        self.files = 0

    def load(self, path):
        with open(path) as f:
            first = f.readline()
            formats = {"# chomp3 census trace, format 1": 1, "# chomp3 census trace, format 2": 2}
            fmt = formats.get(first.rstrip("\n"))
            if fmt is None:
                raise SystemExit(f"{path}: not a census trace (format 1 or 2)")
            batch = None
            for line in f:
                if line.startswith("#"):
                    continue
                x = line.rstrip("\n").split("\t")
                kind = x[0]
                if kind == "H":
                    # Format 1 had the chunks' turn after the ranks.
                    h = list(map(int, x[1:]))
                    if fmt == 1:
                        del h[2]
                    _rank, ranks, threads, rows, batch_cols = h[:5]
                    if self.rows is not None and (rows, ranks) != (self.rows, self.ranks):
                        raise SystemExit(f"{path}: another run's trace")
                    self.rows, self.ranks, self.threads = rows, ranks, threads
                    self.batch_cols = batch_cols
                elif kind == "B":
                    v = list(map(int, x[1:]))
                    q0, cols = v[0], v[1]
                    batch = self.batches.setdefault(q0, Batch(q0, cols))
                    batch.consume_ns += v[3]
                    batch.trackers_ns += v[4]
                    batch.settle_ns += v[5]
                    batch.links = max(batch.links, v[7])
                    batch.settled = v[8]
                elif kind == "K":
                    q0, _thread, ns = int(x[1]), int(x[2]), int(x[3])
                    block = batch.blocks.setdefault(q0, Block(q0, 0))
                    block.k_ns += ns
                elif kind == "C":
                    q0, cols, chunk, rows, ns = map(int, x[1:6])
                    edge = int(x[10])
                    block = batch.blocks.setdefault(q0, Block(q0, cols))
                    block.cols = cols
                    block.chunks[chunk] = (chunk, rows, ns, edge)
        self.files += 1
        return self

    def batch_list(self):
        out = []
        for q0 in sorted(self.batches):
            b = self.batches[q0]
            b.block_list = [b.blocks[k] for k in sorted(b.blocks)]
            out.append(b)
        return out


def load(paths):
    t = Trace()
    for p in paths:
        t.load(p)
    if t.files != t.ranks:
        raise SystemExit(f"a trace of {t.ranks} ranks needs its {t.ranks} files, {t.files} given")
    return t


def turn(last_row, ranks, turns):
    """Chunks dealt to a rank at a time for `turns` turns per rank (the
    engine's dealing before its chunks moved: at most `turns` turns a rank,
    the shortest turn that does it)."""
    chunks = last_row // CHUNK_ROWS + 1
    return -(-chunks // max(ranks * turns, 1))


# -------------------------------------------------------------- simulation


class Net:
    """Where ranks are and what a message costs: ranks numbered node by node,
    `per_node` to a node; between nodes a message waits for its node's link
    (FIFO, `bandwidth` bytes/s out of each node) and then `latency` s; inside
    a node it takes `local_latency` s plus its bytes at `local_bandwidth`."""

    def __init__(self, per_node, latency, bandwidth, local_latency, local_bandwidth):
        self.per_node = per_node
        self.latency = latency
        self.bandwidth = bandwidth
        self.local_latency = local_latency
        self.local_bandwidth = local_bandwidth
        self.link_free = {}
        self.bytes_out = {}
        self.bytes_all = 0

    def node(self, rank):
        return rank // self.per_node

    def arrival(self, now, src, dst, nbytes):
        self.bytes_all += nbytes
        a, b = self.node(src), self.node(dst)
        if a == b:
            return now + self.local_latency + nbytes / self.local_bandwidth
        start = max(now, self.link_free.get(a, 0.0))
        end = start + nbytes / self.bandwidth
        self.link_free[a] = end
        self.bytes_out[a] = self.bytes_out.get(a, 0) + nbytes
        return end + self.latency


class Node:
    """A node's cores, shared equally among the threads that run (virtual
    time: every running thread has done `v` seconds of work since the node's
    virtual clock began). With `contention` S, threads on all the cores run
    S times slower than one alone (shared caches and memory), linearly in
    between."""

    def __init__(self, index, cores, contention=1.0, poll=0.0):
        self.index = index
        self.cores = cores
        self.contention = contention
        self.poll = poll
        self.polling = 0
        self.v = 0.0
        self.t = 0.0
        self.running = []  # heap of (v at finish, seq, thread)
        self.version = 0
        self.cpu = 0.0

    def rate(self):
        n = len(self.running) + self.poll * self.polling
        share = 1.0 if n <= self.cores else self.cores / n
        if self.cores > 1 and n > 1:
            busy = min(n, self.cores)
            share /= 1 + (self.contention - 1) * (busy - 1) / (self.cores - 1)
        return share

    def advance_to(self, t):
        if self.running:
            self.v += (t - self.t) * self.rate()
        n = len(self.running) + self.poll * self.polling
        self.cpu += (t - self.t) * min(n, self.cores)
        self.t = t

    def next_finish(self):
        if not self.running:
            return None
        return self.t + (self.running[0][0] - self.v) / self.rate()


# Waits that poll for a message (src/f/cluster.rs: a probe, a yield, then
# sleeps of 50 us): a hand-off, and the settle chain's announcements.
POLLED = ("msg", "settled")


class Sim:
    """Threads are generators that yield what they do:
    ("cpu", seconds), ("wait", key), ("set", key), ("send", key, src, dst,
    bytes), ("spawn", generator, node), ("delay", seconds)."""

    def __init__(self, nodes, cores, net, contention=1.0, poll=0.0):
        self.nodes = [Node(i, cores, contention, poll) for i in range(nodes)]
        self.net = net
        self.now = 0.0
        self.timers = []  # (time, seq, kind, payload)
        self.seq = 0
        self.events = {}
        self.waiting = {}
        self.sems = {}
        self.busy = 0.0

    def _push(self, t, kind, payload):
        self.seq += 1
        heapq.heappush(self.timers, (t, self.seq, kind, payload))

    def spawn(self, gen, node):
        self._push(self.now, "resume", (gen, node))

    def _set(self, key):
        if key in self.events:
            return
        self.events[key] = self.now
        for gen, node in self.waiting.pop(key, ()):
            if key[0] in POLLED:
                n = self.nodes[node]
                n.advance_to(self.now)
                n.polling -= 1
                self._reschedule(n)
            self._push(self.now, "resume", (gen, node))

    def _step(self, gen, node):
        while True:
            try:
                req = next(gen)
            except StopIteration:
                return
            kind = req[0]
            if kind == "cpu":
                if req[1] <= 0:
                    continue
                n = self.nodes[node]
                n.advance_to(self.now)
                self.busy += req[1]
                self.seq += 1
                heapq.heappush(n.running, (n.v + req[1], self.seq, (gen, node)))
                self._reschedule(n)
                return
            if kind == "wait":
                if req[1] in self.events:
                    continue
                self.waiting.setdefault(req[1], []).append((gen, node))
                if req[1][0] in POLLED:
                    n = self.nodes[node]
                    n.advance_to(self.now)
                    n.polling += 1
                    self._reschedule(n)
                return
            if kind == "set":
                self._set(req[1])
                continue
            if kind == "send":
                _, key, src, dst, nbytes = req
                self._push(self.net.arrival(self.now, src, dst, nbytes), "set", key)
                continue
            if kind == "spawn":
                self.spawn(req[1], req[2])
                continue
            if kind == "delay":
                self._push(self.now + req[1], "resume", (gen, node))
                return
            if kind == "acquire":
                # A thread of a rank's pool: the free one, or the wait in
                # order of priority.
                _, key, prio = req
                sem = self.sems[key]
                if sem[0] > 0:
                    sem[0] -= 1
                    continue
                self.seq += 1
                heapq.heappush(sem[1], (prio, self.seq, gen, node))
                return
            if kind == "release":
                sem = self.sems[req[1]]
                if sem[1]:
                    _, _, g, n = heapq.heappop(sem[1])
                    self._push(self.now, "resume", (g, n))
                else:
                    sem[0] += 1
                continue
            raise ValueError(req)

    def _reschedule(self, n):
        n.version += 1
        f = n.next_finish()
        if f is not None:
            self._push(f, "node", (n.index, n.version))

    def cpu(self):
        """Core-seconds the nodes were busy (polling included)."""
        for n in self.nodes:
            n.advance_to(self.now)
        return sum(n.cpu for n in self.nodes)

    def run(self):
        while self.timers:
            t, _, kind, payload = heapq.heappop(self.timers)
            if kind == "node":
                index, version = payload
                n = self.nodes[index]
                if version != n.version:
                    continue
                self.now = max(self.now, t)
                n.advance_to(self.now)
                done = []
                while n.running and n.running[0][0] <= n.v + 1e-12:
                    done.append(heapq.heappop(n.running)[2])
                self._reschedule(n)
                for gen, node in done:
                    self._step(gen, node)
                continue
            self.now = max(self.now, t)
            if kind == "resume":
                self._step(*payload)
            elif kind == "set":
                self._set(payload)
        return self.now


class Plan:
    """Who owns which chunk on P ranks (src/f/engine/ranks.rs, `Owners`):
    a list of owners, chunks past it the last rank's."""

    def __init__(self, ranks, owners):
        self.ranks = ranks
        self.owners = owners

    @classmethod
    def dealt(cls, ranks, rows, turns):
        """The chunks dealt in turns (`--turns N`: the engine before its
        chunks moved between ranks)."""
        t = turn(rows, ranks, turns)
        return cls(ranks, [(c // t) % ranks for c in range(rows // CHUNK_ROWS + 1)])

    @classmethod
    def balanced(cls, ranks, chunks, cost):
        """`Owners::balanced`: chunks `0 .. chunks` in runs, in order, chunk
        `c` on the rank whose share of the whole holds its middle; with no
        cost, equal runs. `cost`: chunk -> its cost."""
        total = sum(cost.get(c, 0) for c in range(chunks))
        owners, before = [], 0
        for c in range(chunks):
            x = cost.get(c, 0)
            k = c * ranks // chunks if total == 0 else (2 * before + x) * ranks // (2 * total)
            owners.append(min(k, ranks - 1))
            before += x
        return cls(ranks, owners)

    def owner(self, chunk):
        return self.owners[chunk] if chunk < len(self.owners) else self.ranks - 1

    def run_end(self, c, n):
        """The end of the run of chunks of `c`'s owner from `c`, at most `n`."""
        k, e = self.owner(c), c + 1
        while e < n and self.owner(e) == k:
            e += 1
        return e


def tasks_of_block(plan, chunks, pieces=1):
    """`chunks`: (chunk, rows, seconds, edge_bytes) in chunk order, every
    chunk of the block. Per rank, its tasks `(c0, c1, seconds, bytes)`: each
    run of its consecutive chunks cut into at most `pieces` tasks, `bytes`
    the hand-off at chunk `c1` (what the last chunk's edge carries);
    `pieces = 0`: a task per chunk."""
    per_rank = {}
    i = 0
    while i < len(chunks):
        k = plan.owner(chunks[i][0])
        j = i
        while j < len(chunks) and plan.owner(chunks[j][0]) == k:
            j += 1
        run = chunks[i:j]
        cut = max(1, -(-len(run) // pieces)) if pieces > 0 else 1
        for a in range(0, len(run), cut):
            part = run[a : a + cut]
            seconds = sum(c[2] for c in part)
            per_rank.setdefault(k, []).append((part[0][0], part[-1][0] + 1, seconds, part[-1][3]))
        i = j
    return per_rank


def simulate(batches, ranks, threads, net, cores, overhead=1e-6, contention=1.0, poll=0.0, free=False, keep=0):
    """Simulates `batches` (see `replay_batches`) one after another on
    `ranks` ranks of `threads` threads, ranks on nodes of `cores` cores (and
    `net.per_node` ranks). With `free`, a rank starts block `b` only once
    its block `b - keep` is over (`keep` blocks under way, each holding its
    values; 0: no bound). Returns the wall seconds and the simulator."""
    nodes = -(-ranks // net.per_node)
    sim = Sim(nodes, cores, net, contention, poll)
    node_of = net.node
    hop = net.latency if nodes > 1 else net.local_latency

    def worker(bi, batch, k, t, workers):
        tasks, nchunks, q0s = batch["tasks"], batch["nchunks"], batch["q0s"]
        limit = batch["rows"] + 1
        owner = batch["owner"]
        for b in range(t, len(tasks), workers):
            mine = tasks[b].get(k, [])
            # The block before must have done rows 0 .. min(hi, q0) of this
            # rank (src/f/engine/mod.rs, `wait_for`): its progress is the end
            # of its last task done, or all its rows once it is over.
            ends = []
            if b > 0:
                top = min(q0s[b], limit)
                ends = [min(x[1] * CHUNK_ROWS, top) for x in tasks[b - 1].get(k, [])]
            for i, (c0, c1, seconds, edge) in enumerate(mine):
                if b > 0:
                    target = min(c1 * CHUNK_ROWS, q0s[b], limit)
                    j = bisect.bisect_left(ends, target)
                    if j < len(ends):
                        yield ("wait", ("done", bi, b - 1, k, j))
                    else:
                        yield ("wait", ("end", bi, b - 1, k))
                if c0 > 0 and owner(c0 - 1) != k:
                    yield ("wait", ("msg", bi, b, c0))
                yield ("cpu", seconds)
                yield ("set", ("done", bi, b, k, i))
                if c1 < nchunks[b] and owner(c1) != k:
                    yield ("cpu", overhead)
                    yield ("send", ("msg", bi, b, c1), k, owner(c1), edge)
            yield ("set", ("end", bi, b, k))
            # The caller's work on the block (scan, observations of the
            # rows): each rank its share, as its share of the chunks' work.
            total = sum(x[2] for ts in tasks[b].values() for x in ts)
            mine_s = sum(x[2] for x in mine)
            share = mine_s / total if total > 0 else 1.0 / ranks
            yield ("cpu", batch["k"][b] * share)
            yield ("set", ("blk", bi, b, k))

    def ends_before(batch, b, k):
        top = min(batch["q0s"][b], batch["rows"] + 1)
        return [min(x[1] * CHUNK_ROWS, top) for x in batch["tasks"][b - 1].get(k, [])]

    def free_task(bi, batch, b, k, i, ends):
        """A task of the other schedule: any thread of the rank takes any
        task whose data is there, the earliest block first."""
        c0, c1, seconds, edge = batch["tasks"][b][k][i]
        owner = batch["owner"]
        if b > 0:
            j = bisect.bisect_left(ends, min(c1 * CHUNK_ROWS, batch["q0s"][b], batch["rows"] + 1))
            yield ("wait", ("done", bi, b - 1, k, j) if j < len(ends) else ("end", bi, b - 1, k))
        if i > 0:
            yield ("wait", ("done", bi, b, k, i - 1))
        elif keep and b >= keep:
            yield ("wait", ("blk", bi, b - keep, k))
        if c0 > 0 and owner(c0 - 1) != k:
            yield ("wait", ("msg", bi, b, c0))
        yield ("acquire", k, (b, c0))
        yield ("cpu", seconds)
        yield ("set", ("done", bi, b, k, i))
        if c1 < batch["nchunks"][b] and owner(c1) != k:
            yield ("cpu", overhead)
            yield ("send", ("msg", bi, b, c1), k, owner(c1), edge)
        yield ("release", k)

    def free_block(bi, batch, b, k):
        mine = batch["tasks"][b].get(k, [])
        if mine:
            yield ("wait", ("done", bi, b, k, len(mine) - 1))
        yield ("set", ("end", bi, b, k))
        total = sum(x[2] for ts in batch["tasks"][b].values() for x in ts)
        share = sum(x[2] for x in mine) / total if total > 0 else 1.0 / ranks
        yield ("acquire", k, (b, 1 << 40))
        yield ("cpu", batch["k"][b] * share)
        yield ("release", k)
        yield ("set", ("blk", bi, b, k))

    def main(k):
        for bi, batch in enumerate(batches):
            nb = len(batch["tasks"])
            workers = max(1, min(threads, nb))
            if free:
                sim.sems[k] = [threads, []]
                for b in range(nb):
                    ends = ends_before(batch, b, k) if b > 0 else []
                    for i in range(len(batch["tasks"][b].get(k, []))):
                        yield ("spawn", free_task(bi, batch, b, k, i, ends), node_of(k))
                    yield ("spawn", free_block(bi, batch, b, k), node_of(k))
            else:
                for t in range(workers):
                    yield ("spawn", worker(bi, batch, k, t, workers), node_of(k))
            yield ("cpu", batch["consume"] / ranks)
            for b in range(nb):
                yield ("wait", ("blk", bi, b, k))
            yield ("cpu", batch["trackers"] / ranks)
            yield ("set", ("trk", bi, k))
            if k == batch["root"]:
                for j in range(ranks):
                    yield ("wait", ("trk", bi, j))
                # The settle chain: its work, an announcement to every rank
                # per link, and the drive's two decisions (a gather and a
                # broadcast each).
                yield ("cpu", batch["settle"] + batch["links"] * (ranks - 1) * overhead)
                if ranks > 1:
                    yield ("delay", batch["hops"] * hop)
                yield ("set", ("settled", bi))
            yield ("wait", ("settled", bi))

    for k in range(ranks):
        sim.spawn(main(k), node_of(k))
    wall = sim.run()
    return wall, sim


def part_blocks(cols, ranks):
    """Blocks in each part of a batch of `cols` columns on `ranks` ranks
    (src/f/census/moves.rs, `part`): the chunks are cut into runs again
    after each part."""
    blocks = -(-cols // BLOCK_COLS)
    if ranks < 2:
        return blocks
    parts = max(1, blocks // (20 * (ranks - 1)))
    return -(-blocks // parts)


def recent_costs(blocks):
    """Each chunk's time in the last RECENT_BLOCKS of `blocks`."""
    recent = {}
    for blk in blocks[-RECENT_BLOCKS:]:
        for c, _, ns, _ in blk.chunk_list():
            recent[c] = recent.get(c, 0) + ns
    return recent


def replay_batches(trace, ranks, pieces=0, scale=1.0, turns=0):
    """The trace's batches as the simulator takes them, for `ranks` ranks,
    every CPU time times `scale`. The chunks' owners: as the engine cuts them
    (`turns = 0`: equal runs to begin with, cut again after each part of a
    batch by the chunks' times in the part's last blocks, the batch's end
    waiting for every rank), or dealt `turns` turns a rank (`--turns N`: the
    engine before its chunks moved)."""
    all_chunks = trace.rows // CHUNK_ROWS + 1
    plan = Plan.dealt(ranks, trace.rows, turns) if turns else Plan.balanced(ranks, all_chunks, {})
    out = []
    settled_before = 0
    for b in trace.batch_list():
        size = len(b.block_list) if turns else part_blocks(b.cols, ranks)
        parts = [b.block_list[i : i + size] for i in range(0, len(b.block_list), size)]
        for n, blocks in enumerate(parts):
            last = n == len(parts) - 1
            tasks, nchunks, ks = [], [], []
            for blk in blocks:
                chunks = [(c, r, ns * scale / 1e9, e) for (c, r, ns, e) in blk.chunk_list()]
                tasks.append(tasks_of_block(plan, chunks, pieces))
                nchunks.append(len(chunks))
                ks.append(blk.k_ns * scale / 1e9)
            # The batch's own work ends its last part; a part before ends
            # with the new runs' gather and broadcast (two hops).
            own = (b.consume_ns + b.trackers_ns + b.settle_ns) if last else 0
            out.append(
                {
                    "tasks": tasks,
                    "nchunks": nchunks,
                    "q0s": [blk.q0 for blk in blocks],
                    "rows": trace.rows,
                    "k": ks,
                    "owner": plan.owner,
                    "consume": b.consume_ns * scale / 1e9 if last else 0.0,
                    "trackers": b.trackers_ns * scale / 1e9 if last else 0.0,
                    "settle": b.settle_ns * scale / 1e9 if last else 0.0,
                    "links": b.links if last else 0,
                    "hops": (b.links + 4 + (0 if turns else 2)) if last else 2,
                    "root": plan.owner(settled_before // CHUNK_ROWS),
                    "work": (sum(sum(c[2] for c in blk.chunks.values()) for blk in blocks) + own) * scale / 1e9
                    + sum(ks),
                }
            )
            if not turns:
                plan = Plan.balanced(ranks, all_chunks, recent_costs(blocks))
        settled_before = b.settled
    return out


# ------------------------------------------------------------------ memory


# (R, P, T): the ranks' peak RSS, MiB (mean of the lowest and highest), as
# measured in doc/scaling.md ("On a cluster: measured").
MEASURED_PEAKS_MIB = {
    (50000, 2, 1): (58 + 68) / 2,
    (50000, 2, 2): (81 + 89) / 2,
    (50000, 4, 1): (56 + 65) / 2,
    (50000, 8, 1): (54 + 62) / 2,
    (100000, 2, 1): (98 + 104) / 2,
    (100000, 2, 2): (148 + 153) / 2,
    (100000, 4, 1): (96 + 102) / 2,
    (100000, 8, 1): (91 + 97) / 2,
}

# The exponent of the rows' own state (`census::memory_estimate`'s).
STATE_EXPONENT = 1.05


def memory_per_rank(rows, ranks, threads, fit):
    """An MPI rank's peak: BASE + R * (REPLICATED + T * PER_THREAD) + SHARED *
    R^1.05 / P bytes (the replicated part every rank holds, each thread's
    block of columns over every row, and the rows' state divided)."""
    base, replicated, per_thread, shared = fit
    return base + rows * (replicated + threads * per_thread) + shared * rows**STATE_EXPONENT / ranks


def memory_model():
    """The coefficients by least squares over the measured peaks, and the
    largest error in MiB."""
    a, y = [], []
    for (r, p, t), mib in MEASURED_PEAKS_MIB.items():
        a.append([1.0, r, r * t, r**STATE_EXPONENT / p])
        y.append(mib * 2**20)
    fit = lstsq(a, y)
    err = max(
        abs(memory_per_rank(r, p, t, fit) / 2**20 - mib) for (r, p, t), mib in MEASURED_PEAKS_MIB.items()
    )
    return fit, err


def lstsq(a, y):
    """Least squares by the normal equations (small systems)."""
    n = len(a[0])
    m = [[sum(row[i] * row[j] for row in a) for j in range(n)] for i in range(n)]
    v = [sum(row[i] * yy for row, yy in zip(a, y)) for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        v[i], v[p] = v[p], v[i]
        for r in range(n):
            if r != i and m[i][i] != 0:
                f = m[r][i] / m[i][i]
                for c in range(i, n):
                    m[r][c] -= f * m[i][c]
                v[r] -= f * v[i]
    return [v[i] / m[i][i] for i in range(n)]


# --------------------------------------------------------------------- fit

DX = 0.025  # columns q / R per cell
DY = 0.05  # rows r / R per cell
XMAX = 1.75


class Fit:
    """Cost densities by cell of (q / R, r / R): ns per cell (column x row) of
    chunk work, density * R^alpha, alpha fitted per cell over the traces'
    R (the weighted mean alpha where a cell has one R); and per column of a
    block (the caller's work) and of a batch (the calling thread's), by q / R."""

    def __init__(self, traces, model="linear", scales=None):
        self.scales = scales or [1.0] * len(traces)
        self.ratio = max(self._end(t) / t.rows for t in traces)
        fit = self._fit_linear if model == "linear" else self._fit2
        self.chunk = fit([self._scaled(self._grid(t), s) for t, s in zip(traces, self.scales)])
        self.k = fit([self._scaled(self._line(t, "k"), s) for t, s in zip(traces, self.scales)])
        self.batch = fit([self._scaled(self._line(t, "batch"), s) for t, s in zip(traces, self.scales)])

    @staticmethod
    def _scaled(grid, scale):
        rows, g = grid
        return rows, {cell: [ns * scale, n] for cell, (ns, n) in g.items()}

    @classmethod
    def _fit_linear(cls, grids):
        """Per cell density = a + b R (a, b >= 0: a part of constant cost per
        cell and one that grows with the windows, which at a given (q/R, r/R)
        are R times wider), by least squares of the relative error; a cell
        seen at one R only grows as the cells seen at several do on average."""
        power = cls._fit2(grids)
        pts = {}
        for r, g in grids:
            for cell, (ns, n) in g.items():
                if ns > 0 and n > 0:
                    pts.setdefault(cell, []).append((r, ns / n, ns))
        fitted = {}
        for cell, p in pts.items():
            if len({r for r, _, _ in p}) < 2:
                continue
            # Minimise sum ((a + b r) / d - 1)^2.
            s11 = sum(1 / d**2 for _, d, _ in p)
            s12 = sum(r / d**2 for r, d, _ in p)
            s22 = sum(r * r / d**2 for r, d, _ in p)
            t1 = sum(1 / d for _, d, _ in p)
            t2 = sum(r / d for r, d, _ in p)
            det = s11 * s22 - s12 * s12
            a = (t1 * s22 - t2 * s12) / det
            b = (s11 * t2 - s12 * t1) / det
            if b < 0:
                a, b = t1 / s11, 0.0
            elif a < 0:
                a, b = 0.0, t2 / s22
            fitted[cell] = ("linear", a, b)
        for cell in pts:
            if cell not in fitted:
                fitted[cell] = power["cells"][cell]
        return {"cells": fitted, "alpha": power["alpha"]}

    @staticmethod
    def _end(t):
        last = max(t.batches)
        return last + t.batches[last].cols

    def _grid(self, t):
        g = {}
        for b in t.batches.values():
            for blk in b.blocks.values():
                for c, rows, ns, _ in blk.chunks.values():
                    x = int((blk.q0 + blk.cols / 2) / t.rows / DX)
                    y = int((c * CHUNK_ROWS + rows / 2) / t.rows / DY)
                    s = g.setdefault((x, y), [0.0, 0.0])
                    s[0] += ns
                    s[1] += rows * blk.cols
        return t.rows, g

    def _line(self, t, what):
        g = {}
        for b in t.batches.values():
            if what == "batch":
                x = int((b.q0 + b.cols / 2) / t.rows / DX)
                s = g.setdefault((x, 0), [0.0, 0.0])
                s[0] += b.consume_ns + b.trackers_ns + b.settle_ns
                s[1] += b.cols
            else:
                for blk in b.blocks.values():
                    x = int((blk.q0 + blk.cols / 2) / t.rows / DX)
                    s = g.setdefault((x, 0), [0.0, 0.0])
                    s[0] += blk.k_ns
                    s[1] += blk.cols
        return t.rows, g

    @staticmethod
    def _fit2(grids):
        """Per cell (log density) = a + alpha log R; returns {cell: (a, alpha)}."""
        cells = set()
        for _, g in grids:
            cells |= set(g)
        pts = {}
        for r, g in grids:
            for cell, (ns, n) in g.items():
                if ns > 0 and n > 0:
                    pts.setdefault(cell, []).append((math.log(r), math.log(ns / n), ns))
        # The mean alpha (weighted by work) for cells seen at one R.
        slopes, weights = 0.0, 0.0
        fitted = {}
        for cell, p in pts.items():
            if len({x for x, _, _ in p}) >= 2:
                mx = sum(x for x, _, _ in p) / len(p)
                my = sum(y for _, y, _ in p) / len(p)
                sxx = sum((x - mx) ** 2 for x, _, _ in p)
                alpha = sum((x - mx) * (y - my) for x, y, _ in p) / sxx
                fitted[cell] = (my - alpha * mx, alpha)
                w = sum(ns for _, _, ns in p)
                slopes += alpha * w
                weights += w
        mean_alpha = slopes / weights if weights else 2.0
        for cell, p in pts.items():
            if cell not in fitted:
                a = sum(y - mean_alpha * x for x, y, _ in p) / len(p)
                fitted[cell] = (a, mean_alpha)
        return {"cells": {c: ("power",) + v for c, v in fitted.items()}, "alpha": mean_alpha}

    @staticmethod
    def density(fit, cell, rows):
        got = fit["cells"].get(cell)
        if got is None:
            # Outside every trace's cells: the nearest cell of its column, or 0.
            x, y = cell
            near = [c for c in fit["cells"] if c[0] == x]
            if not near:
                return 0.0
            got = fit["cells"][min(near, key=lambda c: abs(c[1] - y))]
        if got[0] == "linear":
            return got[1] + got[2] * rows
        _, a, alpha = got
        return math.exp(a + alpha * math.log(rows))

    def chunk_work(self, rows, q_end, q_from=0):
        """Predicted chunk ns of a census of `rows` rows from column `q_from`
        to `q_end` (over the cells it has: every chunk below its column)."""
        total = 0.0
        for q0 in range(q_from - q_from % BLOCK_COLS, int(q_end), BLOCK_COLS):
            x = int((q0 + BLOCK_COLS / 2) / rows / DX)
            top = min(q0 + BLOCK_COLS, rows + 1)
            total += self.column_cost(x, 0, top, rows) * BLOCK_COLS
        return total

    def column_cost(self, x, lo, hi, rows):
        """ns per column of rows lo .. hi in cells of column x."""
        total = 0.0
        y0 = int(lo / rows / DY)
        y1 = int(max(hi - 1, lo) / rows / DY)
        for y in range(y0, y1 + 1):
            a = max(lo, y * DY * rows)
            b = min(hi, (y + 1) * DY * rows)
            if b > a:
                total += (b - a) * self.density(self.chunk, (x, y), rows)
        return total


def trace_work(t):
    return sum(ns for b in t.batches.values() for blk in b.blocks.values() for _, _, ns, _ in blk.chunks.values())


def predicted_work(fit, t):
    """The fit's chunk ns for trace t's own chunks."""
    total = 0.0
    for b in t.batches.values():
        for blk in b.blocks.values():
            for c, rows, _, _ in blk.chunks.values():
                x = int((blk.q0 + blk.cols / 2) / t.rows / DX)
                y = int((c * CHUNK_ROWS + rows / 2) / t.rows / DY)
                total += Fit.density(fit.chunk, (x, y), t.rows) * rows * blk.cols
    return total


def line_total(fit1, rows, q_end, per):
    total = 0.0
    for q0 in range(0, int(q_end), per):
        x = int((q0 + per / 2) / rows / DX)
        total += Fit.density(fit1, (x, 0), rows) * per
    return total


# ---------------------------------------------------------------- project


def projected_batches(fit, rows, ranks, pieces, sample, ratio, turns=0):
    """Sampled batches of a census of `rows` rows to column `ratio * rows`
    made from the fit: the batch indices, their batches, and the number of
    batches in all. The chunks' owners as in `replay_batches`, a batch's
    runs cut by the fit's costs of its first blocks (next to the last
    blocks of the batch before, by which the engine cuts them)."""
    plan = Plan.dealt(ranks, rows, turns) if turns else None
    q_end = ratio * rows
    nbatches = math.ceil(q_end / 2520)
    step = max(1, nbatches // sample)
    picks = list(range(step // 2, nbatches, step))
    out = []
    for i in picks:
        q_batch = i * 2520
        if not turns:
            cost = {}
            for b in range(RECENT_BLOCKS):
                q0 = q_batch + b * BLOCK_COLS
                x = int((q0 + BLOCK_COLS / 2) / rows / DX)
                rows_end = min(q0 + BLOCK_COLS, rows + 1)
                for c in range(-(-rows_end // CHUNK_ROWS)):
                    lo, hi = c * CHUNK_ROWS, min((c + 1) * CHUNK_ROWS, rows_end)
                    cost[c] = cost.get(c, 0) + fit.column_cost(x, lo, hi, rows)
            plan = Plan.balanced(ranks, rows // CHUNK_ROWS + 1, cost)
        tasks, nchunks, ks, q0s = [], [], [], []
        for b in range(2520 // BLOCK_COLS + 1):
            q0 = q_batch + b * BLOCK_COLS
            cols = min(BLOCK_COLS, q_batch + 2520 - q0)
            if cols <= 0:
                break
            q_end_b = q0 + cols
            rows_end = min(q_end_b, rows + 1)
            n = -(-rows_end // CHUNK_ROWS)
            x = int((q0 + cols / 2) / rows / DX)
            used_words = (2 * q_end_b) // 64 - q0 // 64 + 1
            per_rank = {}
            c = 0
            while c < n:
                k = plan.owner(c)
                c_run = plan.run_end(c, n)
                cut = max(1, -(-(c_run - c) // pieces))
                for a in range(c, c_run, cut):
                    e = min(c_run, a + cut)
                    lo, hi = a * CHUNK_ROWS, min(e * CHUNK_ROWS, rows_end)
                    seconds = fit.column_cost(x, lo, hi, rows) * cols / 1e9
                    w = min(((q_end_b + hi) // 64 - q0 // 64) + 1, used_words)
                    per_rank.setdefault(k, []).append((a, e, seconds, cols * w * 8))
                c = c_run
            tasks.append(per_rank)
            nchunks.append(n)
            q0s.append(q0)
            ks.append(Fit.density(fit.k, (x, 0), rows) * cols / 1e9)
        xb = int((q_batch + 1260) / rows / DX)
        root = plan.owner(int(q_batch / math.sqrt(2)) // CHUNK_ROWS)
        out.append(
            {
                "tasks": tasks,
                "nchunks": nchunks,
                "q0s": q0s,
                "rows": rows,
                "k": ks,
                "owner": plan.owner,
                "consume": 0.0,
                "trackers": Fit.density(fit.batch, (xb, 0), rows) * 2520 / 1e9,
                "settle": 0.0,
                "links": 2,
                "hops": 2 + 4 + (0 if turns else 2),
                "root": root,
                "work": sum(x[2] for t in tasks for ts in t.values() for x in ts)
                + sum(ks)
                + Fit.density(fit.batch, (xb, 0), rows) * 2520 / 1e9,
            }
        )
    return picks, out, nbatches


def fmt_bytes(x):
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if x >= size:
            return f"{x / size:.2f} {unit}"
    return f"{x:.0f} B"


def fmt_time(s):
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    return f"{s:.1f} s"


# ---------------------------------------------------------------- commands


def net_of(args):
    return Net(
        args.ranks_per_node,
        args.latency,
        args.bandwidth / 8,
        args.local_latency,
        args.local_bandwidth,
    )


def cmd_replay(args):
    trace = load(args.trace)
    ranks, threads = args.ranks, args.threads
    per_node = args.ranks_per_node
    cores = args.cores if args.cores else per_node * threads
    net = net_of(args)
    batches = replay_batches(trace, ranks, args.pieces, args.cpu_scale, args.turns)
    wall, sim = simulate(
        batches, ranks, threads, net, cores, args.overhead, args.contention, args.poll, args.free, args.keep
    )
    work = sum(b["work"] for b in batches)
    nodes = -(-ranks // per_node)
    fit, _ = memory_model()
    print(
        f"R={trace.rows} P={ranks} T={threads} cores/node={cores} nodes={nodes}: "
        f"wall {wall:.2f} s, work {work:.2f} s, CPU {sim.cpu():.2f} s, "
        f"sent {fmt_bytes(net.bytes_all)} ({fmt_bytes(net.bytes_all / ranks)} per rank), "
        f"between nodes {fmt_bytes(max(net.bytes_out.values(), default=0))} per node at most, "
        f"memory {memory_per_rank(trace.rows, ranks, threads, fit) / 2**20:.0f} MiB per rank (model)"
    )
    return wall


def fitted(args, traces):
    scales = args.cpu_scale or [1.0] * len(traces)
    if len(scales) != len(traces):
        raise SystemExit("--cpu-scale: one factor a trace")
    return Fit(traces, args.model, scales), scales


def cmd_fit(args):
    traces = [load([p]) for p in args.trace]
    fit, scales = fitted(args, traces)
    print(f"model {args.model}; work-weighted mean alpha {fit.chunk['alpha']:.3f}; columns computed {fit.ratio:.3f} R")
    for i, t in enumerate(traces):
        others = [u for u in traces if u is not t]
        work = trace_work(t) * scales[i]
        own = predicted_work(fit, t)
        line = f"R={t.rows}: chunk work {work / 1e9:.2f} s, fit {own / 1e9:.2f} s ({(own / work - 1) * 100:+.1f} %)"
        if len(others) >= 2:
            loo = Fit(others, args.model, [x for j, x in enumerate(scales) if j != i])
            out = predicted_work(loo, t)
            line += f", fitted without it {out / 1e9:.2f} s ({(out / work - 1) * 100:+.1f} %)"
        print(line)
    for r, a, b in args.span or []:
        r, a, b = int(r), int(a), int(b)
        w = fit.chunk_work(r, b, a) / 1e9
        k = (line_total(fit.k, r, b, BLOCK_COLS) - line_total(fit.k, r, a, BLOCK_COLS)) / 1e9
        bb = (line_total(fit.batch, r, b, 2520) - line_total(fit.batch, r, a, 2520)) / 1e9
        print(
            f"R={r}, columns {a}..{b}: {w + k + bb:.4g} CPU seconds, {(w + k + bb) / (b - a) * 1e3:.3g} ms a column"
        )
    for r in args.rows or []:
        q_end = args.columns * r
        w = fit.chunk_work(r, q_end) / 1e9
        k = line_total(fit.k, r, q_end, BLOCK_COLS) / 1e9
        b = line_total(fit.batch, r, q_end, 2520) / 1e9
        print(
            f"R={r}: chunk work {w:.4g} s, blocks' caller work {k:.4g} s, batches' {b:.4g} s, "
            f"all {w + k + b:.4g} core-seconds ({(w + k + b) / 3600:.4g} core-hours)"
        )
    return fit


def cmd_project(args):
    traces = [load([p]) for p in args.trace]
    fit, _ = fitted(args, traces)
    rows, ranks, threads = args.rows, args.ranks, args.threads
    per_node = args.ranks_per_node
    cores = per_node * threads
    net = net_of(args)
    picks, batches, nbatches = projected_batches(
        fit, rows, ranks, args.pieces, args.sample, args.columns, args.turns
    )
    walls, sent, out_node, works = [], [], [], []
    for b in batches:
        net = net_of(args)
        wall, _ = simulate(
            [b], ranks, threads, net, cores, args.overhead, args.contention, args.poll, args.free, args.keep
        )
        walls.append(wall)
        sent.append(net.bytes_all)
        out_node.append(max(net.bytes_out.values(), default=0))
        works.append(b["work"])
    # The sampled batches give the wall time per unit of work; the work is
    # the fit's over every column (a few batches integrate it poorly).
    q_end = args.columns * rows
    work = (
        fit.chunk_work(rows, q_end) + line_total(fit.k, rows, q_end, BLOCK_COLS) + line_total(fit.batch, rows, q_end, 2520)
    ) / 1e9
    wall = sum(walls) / sum(works) * work
    scale = nbatches / len(batches)
    nodes = -(-ranks // per_node)
    mem_fit, mem_err = memory_model()
    mem = memory_per_rank(rows, ranks, threads, mem_fit)
    bound = work / min(2520 // BLOCK_COLS + 1, ranks * threads)
    print(
        f"R={rows} P={ranks} T={threads} ({nodes} nodes of {per_node} ranks, {cores} cores each; "
        f"{len(batches)} of {nbatches} batches simulated): wall {fmt_time(wall)} ({work / wall:.1f} cores busy), "
        f"work {work / 3600:.0f} core-hours (ideal on {ranks * threads} cores {fmt_time(work / (ranks * threads))}; "
        f"at most one block a thread, 40 a batch: at least {fmt_time(bound)}), "
        f"sent {fmt_bytes(sum(sent) * scale)} in all, "
        f"between nodes {fmt_bytes(max(out_node) * nbatches)} per node at most "
        f"({max(o for o in out_node) * nbatches / max(wall, 1e-9) * 8 / 1e9:.3f} Gb/s averaged), "
        f"memory {mem / 2**30:.2f} GiB per rank (model, +-{mem_err:.0f} MiB at the measured points)"
    )
    return wall


# ---------------------------------------------------------------- selftest


def hand_trace(lines, path):
    with open(path, "w") as f:
        f.write("# chomp3 census trace, format 2\n")
        for line in lines:
            f.write("\t".join(str(x) for x in line) + "\n")


def cmd_memory(args):
    fit, err = memory_model()
    base, rep, thr, shared = fit
    print(
        f"per rank: {base / 2**20:.1f} MiB + R * ({rep:.0f} + T * {thr:.0f}) bytes + "
        f"{shared:.1f} R^{STATE_EXPONENT} / P bytes; largest error {err:.1f} MiB at the measured points"
    )
    for (r, p, t), mib in MEASURED_PEAKS_MIB.items():
        print(f"  R={r} P={p} T={t}: measured {mib:.1f} MiB, model {memory_per_rank(r, p, t, fit) / 2**20:.1f} MiB")
    for r in args.rows or []:
        for p, t in ((64, 1), (256, 1), (1024, 1), (8, 8)):
            print(f"  R={r} P={p} T={t}: {memory_per_rank(r, p, t, fit) / 2**30:.2f} GiB")


def selftest():
    """Hand-made traces whose wall times follow from first principles."""
    import os
    import tempfile

    d = tempfile.mkdtemp()
    path = os.path.join(d, "t.tsv")
    ms = 1_000_000
    # Rows 0 ..= 3071 (3 chunks), one batch of two blocks; every chunk 10 ms,
    # every block's caller work 1 ms, the batch's own work 2 + 3 + 4 ms.
    rows = 3071
    lines = [("H", 0, 1, 1, rows, 128, 64, 1024)]
    lines.append(("B", 0, 128, 0, 2 * ms, 3 * ms, 4 * ms, 4 * ms, 1, 3072, 0, 0, 0, 0, 0))
    for q0 in (0, 64):
        lines.append(("K", q0, 0, ms))
        for c in range(3):
            lines.append(("C", q0, 64, c, 1024, 10 * ms, "-", 0, "-", 0, 800 if c < 2 else 0))
    hand_trace(lines, path)
    t = load([path])
    fit, _ = memory_model()
    net = Net(1, 1e-3, 1e9, 1e-3, 1e9)
    # One rank, one thread: the sum of every cost.
    wall, _ = simulate(replay_batches(t, 1), 1, 1, net, 1)
    want = (6 * 10 + 2 * 1 + 2 + 3 + 4) / 1000
    assert abs(wall - want) < 1e-9, (wall, want)
    # One rank, two threads, three cores: block 1's chunk c waits for block
    # 0's chunk c, so the second thread runs 10 ms behind: 10 + 30 + 1 ms of
    # blocks, then the batch's 3 + 4 ms (the calling thread's 2 ms ran beside).
    wall, _ = simulate(replay_batches(t, 1), 1, 2, net, 3)
    want = (10 + 30 + 1 + 3 + 4) / 1000
    assert abs(wall - want) < 1e-9, (wall, want)
    # The same two threads on one core: processor sharing, every cost once.
    wall, _ = simulate(replay_batches(t, 1), 1, 2, net, 1)
    want = (6 * 10 + 2 * 1 + 2 + 3 + 4) / 1000
    assert abs(wall - want) < 1e-9, (wall, want)
    # The other schedule on one thread: still every cost once.
    wall, _ = simulate(replay_batches(t, 1), 1, 1, net, 1, free=True)
    want = (6 * 10 + 2 * 1 + 2 + 3 + 4) / 1000
    assert abs(wall - want) < 1e-9, (wall, want)
    # The other schedule on two threads and three cores: block 1's chunk c
    # waits for block 0's, as above; keeping one block under way, block 1
    # waits for block 0 to be over: every cost once but the caller's 2 ms.
    wall, _ = simulate(replay_batches(t, 1), 1, 2, net, 3, free=True)
    want = (10 + 30 + 1 + 3 + 4) / 1000
    assert abs(wall - want) < 1e-9, (wall, want)
    wall, _ = simulate(replay_batches(t, 1), 1, 2, net, 3, free=True, keep=1)
    want = (6 * 10 + 2 * 1 + 3 + 4) / 1000
    assert abs(wall - want) < 1e-9, (wall, want)
    # Three ranks (a chunk each: equal runs before any work is known), one
    # thread each, on one node of six
    # cores (every thread has one): block 0 goes up the chain with two
    # hand-offs (1 ms latency + 800 bytes at 1 GB/s each) and block 1 a third
    # of a millisecond behind it (a rank's caller work on a block is its
    # share of the chunks, a third); the last rank ends block 1 at 40 ms +
    # 2/3 ms + 2 hand-offs. Then the trackers (3 ms over 3 ranks), the
    # settle chain's 4 ms on rank 0 and its hops: 1 link, the drive's 4 and
    # the new runs' 2.
    net = Net(3, 1e-3, 1e9, 1e-3, 1e9)
    wall, _ = simulate(replay_batches(t, 3), 3, 1, net, 6, overhead=0)
    hand = 1e-3 + 800 / 1e9
    want = 40e-3 + 2e-3 / 3 + 2 * hand + 1e-3 + 4e-3 + 7 * 1e-3
    assert abs(wall - want) < 1e-9, (wall, want)
    assert net.bytes_all == 2 * 2 * 800, net.bytes_all
    print("census_sim.py selftest: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def net_args(p):
        p.add_argument("--ranks", type=int, required=True, help="P")
        p.add_argument("--threads", type=int, default=1, help="T, threads per rank")
        p.add_argument("--ranks-per-node", type=int, default=1, help="ranks on a node (numbered node by node)")
        p.add_argument("--latency", type=float, default=5e-6, help="seconds a message between nodes takes beside its bytes")
        p.add_argument("--bandwidth", type=float, default=10e9, help="bits/s out of each node")
        p.add_argument("--local-latency", type=float, default=50e-6, help="seconds a message inside a node takes")
        p.add_argument("--local-bandwidth", type=float, default=5e9, help="bytes/s of a message inside a node")
        p.add_argument("--overhead", type=float, default=1e-6, help="CPU seconds to send a message")
        p.add_argument(
            "--turns",
            type=int,
            default=0,
            help="deal the chunks in N turns a rank (the engine before its chunks moved); 0: runs cut as the engine cuts them",
        )
        p.add_argument(
            "--free",
            action="store_true",
            help="the other schedule: a rank's threads take any task whose data is there (not a block each)",
        )
        p.add_argument(
            "--keep",
            type=int,
            default=0,
            help="with --free, blocks a rank keeps under way (each holds its values) [0: no bound]",
        )
        p.add_argument("--poll", type=float, default=0.0, help="the share of a core a thread polling for a message takes")
        p.add_argument(
            "--contention", type=float, default=1.0, help="how much slower threads run on all of a node's cores than alone"
        )
        p.add_argument(
            "--pieces", type=int, default=0, help="tasks each rank's run of chunks in a block is cut into [0: one a chunk]"
        )

    p = sub.add_parser("replay")
    p.add_argument("trace", nargs="+")
    net_args(p)
    p.add_argument("--cores", type=int, default=0, help="cores per node [ranks-per-node * threads]")
    p.add_argument("--cpu-scale", type=float, default=1.0, help="every CPU time of the trace times this")
    def fit_args(p):
        p.add_argument("trace", nargs="+", help="traces of one process at several R")
        p.add_argument("--model", choices=("linear", "power"), default="linear")
        p.add_argument("--cpu-scale", type=float, nargs="*", help="each trace's CPU times times this")
        p.add_argument(
            "--columns",
            type=float,
            default=1.4666,
            help="columns computed / R (1,466,640 for the census to 10^6, measured)",
        )

    p = sub.add_parser("fit")
    fit_args(p)
    p.add_argument("--rows", type=int, nargs="*")
    p.add_argument(
        "--span", type=float, nargs=3, action="append", metavar=("R", "Q0", "Q1"), help="CPU of columns Q0..Q1 of R rows"
    )
    p = sub.add_parser("project")
    fit_args(p)
    p.add_argument("--rows", type=int, required=True)
    p.add_argument("--sample", type=int, default=40, help="batches simulated")
    net_args(p)
    p = sub.add_parser("memory")
    p.add_argument("--rows", type=int, nargs="*")
    sub.add_parser("selftest")
    args = ap.parse_args()
    {
        "replay": cmd_replay,
        "fit": cmd_fit,
        "project": cmd_project,
        "memory": cmd_memory,
        "selftest": lambda a: selftest(),
    }[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
