"""Run in each notebook's kernel as it starts (kernel.py: IPKernelApp.exec_files), not imported by the
build: stdout and stderr keep the order in which a cell wrote them.

ipykernel sends each stream's buffer on its own timer and flushes stdout before stderr when a cell
ends, so a line printed to stderr showed below the line printed after it (03's weights_only cell). A
write that switches streams sends the other stream's buffer first; kernel._join_split_writes then
joins only writes made in a row. It patches the class before any cell runs: IPython replaces each
stream's own write for every cell (InteractiveShell._tee) and sets back what it found, so a patch
made from a cell would be undone when that cell ends.
"""
import sys


def _in_order():
    stream_class, last = type(sys.stdout), [None]
    write = stream_class.write

    def in_order(stream, text):
        if last[0] is not None and last[0] is not stream:
            last[0].flush()
        last[0] = stream
        return write(stream, text)

    stream_class.write = in_order


_in_order()
del _in_order
