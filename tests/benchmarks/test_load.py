"""bench.load's reader of the server's stderr: it drains the pipe in bursts and ends with the server."""

import os
import threading

from bench.load import read_in_bursts


def test_the_reader_drains_the_pipe_in_bursts_and_ends_when_it_closes():
    read_end, write_end = os.pipe()
    reader = threading.Thread(target=read_in_bursts, args=(os.fdopen(read_end, "rb"), 0.01), daemon=True)
    reader.start()
    line = b'{"message": "request"}\n'
    for _ in range(20_000):  # 460 KB: past a pipe's 64 KiB, so the writer waits on the reader's bursts
        os.write(write_end, line)
    os.close(write_end)
    reader.join(20.0)
    assert not reader.is_alive()
