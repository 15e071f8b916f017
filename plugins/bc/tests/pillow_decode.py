# Decodes DDS files with Pillow and writes raw RGBA8 next to them (<file>.rgba).
# Used by bc_pillow_test.cpp as an independent decoder.
import sys

from PIL import Image

for path in sys.argv[1:]:
    with Image.open(path) as im:
        data = im.convert("RGBA").tobytes() if im.mode != "L" else im.tobytes()
    with open(path + ".rgba", "wb") as f:
        f.write(data)
