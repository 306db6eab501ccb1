#!/usr/bin/python3
"""Describes a directory of replay directories (one per host, as `perfhive-agent run --source
replay` reads them) for scripts/side-by-side.sh: per host its snapshot count, first and last
sample time, and the counter values its snapshots hold; then the totals.

Counter values are counted as perfhive's benchmarks count them (tests/bench/snapshot_sequences.h,
CounterValues): in every snapshot, for every object, its counters times its instances (one for an
object without instances). Sample times are each PERF_DATA_BLOCK's SystemTime (UTC).

Output, tab-separated: `sample NAME TIME_NS` per snapshot and `host NAME SNAPSHOTS VALUES
RAW_BYTES FIRST_NS LAST_NS` per host, then `total SNAPSHOTS VALUES RAW_BYTES FIRST_NS LAST_NS
HOSTS`.
"""

import calendar
import os
import struct
import sys

PERF_NO_INSTANCES = -1


def system_time_ns(data: bytes) -> int:
    # PERF_DATA_BLOCK: Signature[4] WCHAR, LittleEndian, Version, Revision, TotalByteLength,
    # HeaderLength, NumObjectTypes, DefaultObject, then SYSTEMTIME at byte 36.
    year, month, _dow, day, hour, minute, second, ms = struct.unpack_from("<8H", data, 36)
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    return seconds * 1_000_000_000 + ms * 1_000_000


def counter_values(data: bytes) -> int:
    if len(data) < 88 or data[:8] != "PERF".encode("utf-16-le"):
        raise ValueError("not a PERF_DATA_BLOCK")
    total_length, header_length, objects = struct.unpack_from("<3I", data, 20)
    total_length = min(total_length, len(data))
    values = 0
    at = header_length
    for _ in range(objects):
        if at + 48 > total_length:
            raise ValueError(f"object at byte {at} runs past the block")
        object_length = struct.unpack_from("<I", data, at)[0]
        counters, _default, instances = struct.unpack_from("<Iii", data, at + 32)
        values += counters * (1 if instances == PERF_NO_INSTANCES else max(instances, 0))
        if object_length == 0:
            raise ValueError(f"object at byte {at} has length 0")
        at += object_length
    return values


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: recording.py REPLAY_ROOT", file=sys.stderr)
        return 2
    root = sys.argv[1]
    totals = [0, 0, 0]
    first_all, last_all, hosts = None, None, 0
    for host in sorted(os.listdir(root)):
        folder = os.path.join(root, host)
        if not os.path.isdir(folder) or host.endswith(".titles"):
            continue
        files = sorted(f for f in os.listdir(folder) if not f.startswith("titles."))
        snapshots = values = raw = 0
        first = last = None
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
            try:
                values += counter_values(data)
            except (ValueError, struct.error) as error:
                print(f"recording.py: {folder}/{name}: {error}", file=sys.stderr)
                return 1
            t = system_time_ns(data)
            print(f"sample\t{host}\t{t}")
            first = t if first is None else min(first, t)
            last = t if last is None else max(last, t)
            snapshots += 1
            raw += len(data)
        if snapshots == 0:
            continue
        hosts += 1
        print(f"host\t{host}\t{snapshots}\t{values}\t{raw}\t{first}\t{last}")
        totals = [totals[0] + snapshots, totals[1] + values, totals[2] + raw]
        first_all = first if first_all is None else min(first_all, first)
        last_all = last if last_all is None else max(last_all, last)
    if hosts == 0:
        print(f"recording.py: no replay directories in {root}", file=sys.stderr)
        return 1
    print(f"total\t{totals[0]}\t{totals[1]}\t{totals[2]}\t{first_all}\t{last_all}\t{hosts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
