#!/usr/bin/env python3
"""Instruction counts of a callgrind profile by source file or by stage of the
forwarder's data path, per exchange, and the difference between two profiles.

    scripts/callgrind-files.py [--groups|--functions|--inclusive] [--top K] [--per N] A.out [--per N] [B.out]

Without a mode: self cost by source file, inlined code counted in the file it
was written in (the profile's `fi=`/`fe=` records). --functions: self cost by
function (symbol: inlined code counts for the function it was inlined into);
--inclusive: by function, with everything it called. With --groups: by stage
(read, decode, dispatch, CS, PIT/FIB/strategy, encode and write, runtime, system
call stubs). Inlined generic code (core, alloc, smallvec, hashbrown) counts for
the function it was inlined into; the cost of shared helpers (memcpy and the other
string functions, the allocator, the `bytes` crate) counts for their callers,
through the call edges. `--per N` divides the counts of the file after it by N
(exchanges). With two files the table has both and B - A, largest differences
first. Event: Ir.
"""
import re
import sys
from collections import defaultdict

NAMED = re.compile(r"^(fl|fi|fe|fn|ob|cfi|cfl|cfn|cob)=\((\d+)\)(?: (.*))?$")


def parse(path):
    """(self, calls): self[(file, fn)] = Ir; calls[(file, caller, callee, callee_file)] = Ir."""
    names = {"fl": {}, "fn": {}, "ob": {}}
    table_of = {"fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
                "fn": "fn", "cfn": "fn", "ob": "ob", "cob": "ob"}
    own = defaultdict(int)
    calls = defaultdict(int)
    defined = {}
    cur_file = cur_fl = cur_fn = ""
    callee = callee_file = None
    last_pos = 0
    in_call = False
    ir = 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                p = parts[0]
                if p == "*":
                    pos = last_pos
                elif p[0] in "+-":
                    pos = last_pos + int(p)
                else:
                    pos = int(p)
                last_pos = pos
                v = int(parts[ir + 1]) if len(parts) > ir + 1 else 0
                if in_call:
                    in_call = False
                    calls[(cur_file, cur_fn, callee, callee_file or callee)] += v
                else:
                    own[(cur_file, cur_fn)] += v
                continue
            m = NAMED.match(line)
            if m:
                kind, ident, name = m.groups()
                table = names[table_of[kind]]
                if name is not None:
                    table[ident] = name
                name = table.get(ident, ident)
                if kind == "fl":
                    cur_fl = cur_file = name
                elif kind in ("fi", "fe"):
                    cur_file = name
                elif kind == "fn":
                    cur_file = cur_fl
                    cur_fn = name
                    callee_file = None
                    defined.setdefault(name, cur_fl)
                elif kind == "cfn":
                    callee = name
                elif kind in ("cfi", "cfl"):
                    callee_file = name
                continue
            if line.startswith("calls="):
                in_call = True
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
                ir = events.index("Ir") if "Ir" in events else 0
    # The file each callee was defined in (what decides whether it is a shared helper).
    calls = {(f, fn, c, defined.get(c, cf)): v for (f, fn, c, cf), v in calls.items()}
    parse.defined = defined
    return own, calls


def short(path):
    for marker in ("/crates/", "/registry/src/", "/library/"):
        i = path.find(marker)
        if i >= 0:
            rest = path[i + len(marker):]
            if marker == "/registry/src/":
                rest = rest.split("/", 1)[1] if "/" in rest else rest
            return rest
    return path


def absorbed(file, fn):
    """Shared helpers whose cost counts for their callers."""
    return ("memmove" in file or "memset" in file or "memcmp" in file or "strlen" in file
            or "mimalloc" in file or fn.startswith(("mi_", "_mi_", "__rust_", "__rdl_"))
            or "/bytes-1." in file or fn.startswith("alloc::raw_vec::"))


def stage_by_fn(fn):
    rules = [
        ("read", ["face::stream::read_loop", "ndnlab_proto::framing", "lp::receive",
                  "face::share", "PollFn<F> as core::future::future::Future>::poll"]),
        ("encode and write", ["face::stream::write_loop", "face::stream::write_segments",
                              "lp::send", "put_varnum", "encode", "send_batch", "to_out_item"]),
        ("decode", ["ndnlab_wire::"]),
        ("dispatch", ["ndnlab_fwd::runtime", "Forwarder::handle_burst", "ndnlab_core::dispatch"]),
        ("CS", ["::cs::", "cs_insert", "cs_lookup", "cs_remove", "cs_enforce", "cs_policy"]),
        ("PIT, FIB, strategy, pipelines", ["ndnlab_core::"]),
        ("runtime: tokio, channels", ["tokio::", "mio::", "crossbeam", "std::sys::"]),
    ]
    for name, subs in rules:
        if any(s in fn for s in subs):
            return name
    return None


def stage(file, fn):
    if "/crates/ndnlab-" in file:
        rules = [
            ("read", ["ndnlab-proto/src/framing.rs", "ndnlab-proto/src/lp/receive.rs",
                      "ndnlab-fwd/src/face/share.rs"]),
            ("encode and write", ["ndnlab-proto/src/lp/send.rs", "ndnlab-fwd/src/face/mod.rs",
                                  "ndnlab-fwd/src/face/link.rs"]),
            ("decode", ["ndnlab-wire/src/"]),
            ("dispatch", ["ndnlab-fwd/src/runtime/", "ndnlab-core/src/forwarder.rs",
                          "ndnlab-core/src/dispatch.rs", "ndnlab-core/src/prefetch.rs",
                          "ndnlab-fwd/src/latency/"]),
            ("CS", ["ndnlab-core/src/cs", "ndnlab-core/src/pipeline/content_store.rs"]),
            ("PIT, FIB, strategy, pipelines", ["ndnlab-core/src/"]),
        ]
        if "ndnlab-fwd/src/face/stream.rs" in file:
            # The reader runs as the `select!` future of its task (poll_fn).
            return "encode and write" if "write_" in fn else "read"
        if "ndnlab-wire/src/" in file and stage_by_fn(fn) == "encode and write":
            return "encode and write"
        for name, subs in rules:
            if any(s in file for s in subs):
                return name
        return stage_by_fn(fn) or "other"
    if "tokio-" in file or "mio-" in file or "parking_lot" in file:
        return "runtime: tokio, channels"
    if "sysdeps/unix" in file or "nptl" in file or "/misc/" in file:
        return "system call stubs (libc)"
    return stage_by_fn(fn) or "other: " + short(file)[:60]


def tables(path, per, groups, mode=None):
    own, calls = parse(path)
    t = defaultdict(float)
    if mode in ("functions", "inclusive"):
        for (file, fn), v in own.items():
            t[fn] += v / per
        if mode == "inclusive":
            for (file, fn, callee, callee_file), v in calls.items():
                if callee != fn:
                    t[fn] += v / per
        return t
    defined = parse.defined
    for (file, fn), v in own.items():
        if groups:
            if absorbed(defined.get(fn, file), fn):
                continue
            t[stage(file, fn)] += v / per
        else:
            t[short(file)] += v / per
    if groups:
        for (file, fn, callee, callee_file), v in calls.items():
            if absorbed(defined.get(fn, file), fn) or not absorbed(callee_file or "", callee or ""):
                continue
            t[stage(file, fn)] += v / per
    return t


def main():
    args = sys.argv[1:]
    groups, top, nxt, mode = False, 40, 1.0, None
    files = []
    while args:
        a = args.pop(0)
        if a == "--per":
            nxt = float(args.pop(0))
        elif a == "--groups":
            groups = True
        elif a in ("--functions", "--inclusive"):
            mode = a[2:]
        elif a == "--top":
            top = int(args.pop(0))
        else:
            files.append((a, nxt))
    if not files:
        sys.exit(__doc__)
    ts = [tables(f, n, groups, mode) for f, n in files]
    keys = set().union(*ts)
    total = [sum(t.values()) for t in ts]
    if mode == "inclusive":
        # The whole profile: what the threads' entry points (never called) include.
        total = [max(t.values()) for t in ts]
    if len(ts) == 2:
        rows = sorted(keys, key=lambda k: -abs(ts[1].get(k, 0) - ts[0].get(k, 0)))
        print(f"{'A':>10} {'B':>10} {'B-A':>9}  source")
        print(f"{total[0]:10.1f} {total[1]:10.1f} {total[1] - total[0]:9.1f}  TOTAL")
        for k in rows[:top]:
            a, b = ts[0].get(k, 0), ts[1].get(k, 0)
            print(f"{a:10.1f} {b:10.1f} {b - a:9.1f}  {k}")
    else:
        rows = sorted(keys, key=lambda k: -ts[0][k])
        print(f"{total[0]:10.1f} 100.0%  TOTAL")
        for k in rows[:top]:
            v = ts[0][k]
            print(f"{v:10.1f} {100 * v / total[0]:5.1f}%  {k}")


if __name__ == "__main__":
    main()
