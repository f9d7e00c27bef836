"""Hand-made zstd frames for the decompression-bomb tests (bombs.py, host_bombs.py): a frame that claims
and produces a huge output from a few bytes, written without Python's zstd module (not installed
everywhere)."""
import struct


def zstd_rle(byte, size):
    """A zstd frame of `size` copies of `byte` made of RLE blocks (4 bytes per 128 KiB)."""
    frame = struct.pack("<I", 0xFD2FB528) + bytes([0x00, 0x38])  # no content size; window 128 KiB
    block = 128 * 1024
    while size:
        n = min(size, block)
        size -= n
        last = 1 if size == 0 else 0
        frame += struct.pack("<I", last | (1 << 1) | (n << 3))[:3] + bytes([byte])
    return frame
