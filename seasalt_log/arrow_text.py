"""The bytes of an Arrow string array, taken from its buffers without a Python object per
value: how ``export`` and the CSV and JSON writers hand text lines to a file."""

from __future__ import annotations

from typing import Any


def string_bytes(array: Any) -> memoryview:
    """The concatenated UTF-8 bytes of every value of ``array`` (a ``pyarrow`` ``string``
    or ``large_string`` array with no NULL), in order: a view of its data buffer, no copy."""
    if array.null_count:
        raise ValueError("string_bytes: the array holds NULL values")
    if len(array) == 0:
        return memoryview(b"")
    kind = str(array.type)
    if kind not in ("string", "large_string"):
        raise TypeError(f"string_bytes: a string array expected, not {kind}")
    _, offsets, data = array.buffers()
    ends = memoryview(offsets).cast("q" if kind == "large_string" else "i")
    first, last = ends[array.offset], ends[array.offset + len(array)]
    return memoryview(data)[first:last]
