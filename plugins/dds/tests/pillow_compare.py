"""Compares decoded images: Pillow's decode of a DDS top mip against a PNG.

usage: pillow_compare.py DDS PNG
Prints JSON: mode, size of both, max and mean absolute difference per channel
(RGB only when Pillow decodes to RGB, e.g. ATI2/BC5), count of differing values.
"""
import json
import sys

import numpy as np
from PIL import Image

dds, png = sys.argv[1], sys.argv[2]
ref = Image.open(dds)
ref.load()
mine = Image.open(png)
mine.load()
r = np.asarray(ref.convert("RGBA")).astype(int)
m = np.asarray(mine.convert("RGBA")).astype(int)
channels = 3 if ref.mode == "RGB" else 4
out = {"ref_mode": ref.mode, "ref_size": list(ref.size), "png_size": list(mine.size)}
if r.shape == m.shape:
    d = np.abs(r[:, :, :channels] - m[:, :, :channels])
    out.update(max=int(d.max()), mean=float(d.mean()), differing=int(np.count_nonzero(d)))
print(json.dumps(out))
