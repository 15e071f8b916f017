"""Writes a test PNG shaped like a real game's normal map, independently of
the project's code (Pillow + numpy).

usage: make_normal_png.py OUT [--alpha none|data] [--kind normal|colour] [--size N] [--seed S]

normal: bumpy tangent-space vectors (x, y up to +-0.6) whose lengths are
shortened by up to 25 % the way DXT compression leaves them (about 63 % of
texels within 0.1 of unit length); colour: a brown-orange photo-like noise.
--alpha data puts a height field (values 40..239) in alpha.
"""
import argparse

import numpy as np
from PIL import Image

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--alpha", default="none", choices=["none", "data"])
ap.add_argument("--kind", default="normal", choices=["normal", "colour"])
ap.add_argument("--size", type=int, default=64)
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
n = a.size
if a.kind == "normal":
    x = (rng.random((n, n)) - 0.5) * 1.2
    y = (rng.random((n, n)) - 0.5) * 1.2
    z = np.sqrt(np.clip(1 - x * x - y * y, 0, 1))
    k = rng.random((n, n))
    length = 1 - 0.25 * k * k
    rgb = np.stack([x, y, z], axis=-1) * length[..., None]
    rgb = np.round((rgb * 0.5 + 0.5) * 255)
else:
    base = np.array([170.0, 110.0, 60.0])
    rgb = np.clip(base + rng.normal(0, 25, (n, n, 3)), 0, 255)
alpha = np.full((n, n), 255.0)
if a.alpha == "data":
    alpha = 40 + (np.arange(n * n).reshape(n, n) * 37) % 200
img = np.dstack([rgb, alpha]).astype(np.uint8)
Image.fromarray(img, "RGBA").save(a.out)
