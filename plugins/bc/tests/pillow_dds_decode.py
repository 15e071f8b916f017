"""Decode DDS files with Pillow and write raw RGBA8 bytes next to them.

Usage: pillow_dds_decode.py in.dds out.rgba [in.dds out.rgba ...]
Exit code 77 when Pillow is unavailable, so the caller can skip.
"""
import sys

try:
    from PIL import Image
except ImportError:
    sys.exit(77)

args = sys.argv[1:]
for src, dst in zip(args[0::2], args[1::2]):
    with Image.open(src) as im:
        im.load()
        data = im.convert("RGBA").tobytes()
    with open(dst, "wb") as f:
        f.write(data)
