"""Reports what Pillow makes of DDS files, as JSON on stdout.

usage: pillow_probe.py [--dump DIR] FILE...
Per file: width, height, mode, decoder, data offset, decoder args, or error.
With --dump, the decoded top mip is written to DIR/<basename>.rgba as RGBA8.
"""
import json
import os
import sys

from PIL import Image

args = sys.argv[1:]
dump_dir = None
if args and args[0] == "--dump":
    dump_dir, args = args[1], args[2:]
out = {}
for path in args:
    r = {}
    try:
        with Image.open(path) as im:
            r["width"], r["height"] = im.size
            r["mode"] = im.mode
            tile = im.tile[0]
            r["decoder"] = tile[0]
            r["offset"] = tile[2]
            r["args"] = [str(a) for a in tile[3]] if isinstance(tile[3], tuple) else [str(tile[3])]
            im.load()
            if dump_dir:
                name = os.path.join(dump_dir, os.path.basename(path) + ".rgba")
                with open(name, "wb") as f:
                    f.write(im.convert("RGBA").tobytes())
                r["dump"] = name
    except Exception as e:  # report every failure, the C++ test decides
        r["error"] = f"{type(e).__name__}: {e}"
    out[path] = r
print(json.dumps(out))
