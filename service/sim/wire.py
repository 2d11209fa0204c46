"""Bytes this process wrote: the ``wchar`` line of /proc/self/io (Linux proc(5)).

wchar counts every byte passed to write(2)/send(2) and friends by any thread of the process, so
it covers gloo's own socket writes and its headers, and anything printed in the window: keep the
ranks silent while measuring. ``rchar`` does not count bytes received on sockets, so only sends
are measured.
"""

PROC_IO = "/proc/self/io"


def written_bytes() -> int:
    with open(PROC_IO, encoding="ascii") as f:
        for line in f:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    raise RuntimeError(f"no wchar line in {PROC_IO}")
