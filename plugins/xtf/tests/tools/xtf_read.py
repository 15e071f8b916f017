#!/usr/bin/env python3
"""An independent XTF reader for property tests, written from the format's
description (sections 1-8 of the XTF notes the plugin follows), sharing no
code with the plugin. read_xtf(bytes) checks every layout rule (header,
low-res, palettes, fallback, 512-byte pads, frame padding, trailing pad,
file length) and returns the header and each high-res image (frame, face,
mip) as stored, uncompressed images de-swizzled to row-major order.
Raises ValueError naming the offset and the rule on any violation.
"""
import struct

BPP = {0: 32, 1: 32, 2: 24, 3: 24, 4: 16, 5: 8, 6: 16, 7: 8, 8: 8, 9: 24, 10: 24, 11: 32, 12: 32, 16: 32,
       17: 16, 18: 16, 19: 16, 21: 16, 22: 16, 23: 32, 24: 64, 25: 64, 26: 32}
DXT = {13: 8, 14: 16, 15: 16, 20: 8}
NOMIP, ENVMAP = 0x100, 0x4000


def mip_count(w, h, d, flags):
    if flags & NOMIP:
        return 1
    return max(w, h, d).bit_length()


def image_bytes(fmt, w, h, d):
    if fmt in DXT:
        return ((w + 3) // 4) * ((h + 3) // 4) * d * DXT[fmt]
    return w * h * d * BPP[fmt] // 8


def unswizzle(data, w, h, d, unit):
    """Storage order → row-major, by the address rule of section 6."""
    bw, bh, bd = w.bit_length() - 1, h.bit_length() - 1, d.bit_length() - 1
    if (1 << bw, 1 << bh, 1 << bd) != (w, h, d):
        raise ValueError("swizzled image %dx%dx%d is not a power of two" % (w, h, d))
    out = bytearray(len(data))
    for z in range(d):
        for y in range(h):
            for x in range(w):
                xx, yy, zz, cw, ch, cd, s, bit = x, y, z, bw, bh, bd, 0, 0
                while cw or ch or cd:
                    if cw:
                        s |= (xx & 1) << bit; bit += 1; xx >>= 1; cw -= 1
                    if ch:
                        s |= (yy & 1) << bit; bit += 1; yy >>= 1; ch -= 1
                    if cd:
                        s |= (zz & 1) << bit; bit += 1; zz >>= 1; cd -= 1
                lin = (z * h + y) * w + x
                out[lin * unit:(lin + 1) * unit] = data[s * unit:(s + 1) * unit]
    return bytes(out)


def read_xtf(data):
    if len(data) < 58:
        raise ValueError("shorter than the 58-byte header")
    (sig, major, minor, hsize, flags, w, h, d, frames, preload, image_off) = struct.unpack_from("<4sIIIIHHHHHH", data, 0)
    refl = struct.unpack_from("<3f", data, 32)
    bump, fmt = struct.unpack_from("<fi", data, 44)
    lw, lh, fw, fh, mipskip, pad = struct.unpack_from("<6B", data, 52)
    if sig != b"XTF\0" or major != 5 or minor != 0 or hsize != 58:
        raise ValueError("offset 0: signature/version/header size %r %d.%d %d" % (sig, major, minor, hsize))
    if fmt not in BPP and fmt not in DXT:
        raise ValueError("offset 48: image format %d" % fmt)
    if frames < 1 or w < 1 or h < 1 or d < 1:
        raise ValueError("offset 20: empty extents or no frame")
    faces = 6 if flags & ENVMAP else 1
    mips = mip_count(w, h, d, flags)
    off = 58
    lowres = data[off:off + lw * lh * 3] if lw and lh else b""
    off += len(lowres)
    palettes = b""
    if fmt == 7:
        palettes = data[off:off + 1024 * frames]
        off += 1024 * frames
    fallback = []
    if fw and fh:
        fmips = mip_count(fw, fh, 1, flags)
        for _fr in range(frames):
            for _fa in range(faces):
                for m in range(fmips):
                    n = image_bytes(fmt, max(1, fw >> m), max(1, fh >> m), 1)
                    fallback.append(data[off:off + n])
                    off += n
    if preload != off:
        raise ValueError("offset 28: preload size %d, the sections end at %d" % (preload, off))
    if fw and fh:
        aligned = (off + 511) // 512 * 512
        if any(data[off:aligned]):
            raise ValueError("offset %d: the pad before the image data is not zero" % off)
        off = aligned
    if image_off != off:
        raise ValueError("offset 30: image offset %d, expected %d" % (image_off, off))
    images = {}
    rel = 0
    for fr in range(frames):
        for fa in range(faces):
            for m in range(mips):
                mw, mh, md = max(1, w >> m), max(1, h >> m), max(1, d >> m)
                n = image_bytes(fmt, mw, mh, md)
                raw = data[off + rel:off + rel + n]
                if len(raw) != n:
                    raise ValueError("offset %d: image (%d, %d, %d) runs past the end" % (off + rel, fr, fa, m))
                if fmt not in DXT:
                    raw = unswizzle(raw, mw, mh, md, BPP[fmt] // 8)
                images[(fr, fa, m)] = raw
                rel += n
        if fr != frames - 1 and rel > 512:
            nxt = (rel + 511) // 512 * 512
            if any(data[off + rel:off + nxt]):
                raise ValueError("offset %d: frame pad not zero" % (off + rel))
            rel = nxt
    end = off + rel
    expected = (end + 511) // 512 * 512 if end > 512 else end
    if len(data) != expected:
        raise ValueError("file is %d bytes, the layout gives %d" % (len(data), expected))
    if any(data[end:]):
        raise ValueError("offset %d: trailing pad not zero" % end)
    header = dict(flags=flags, width=w, height=h, depth=d, frames=frames, faces=faces, mips=mips, format=fmt,
                  reflectivity=refl, bumpscale=bump, lowres=(lw, lh), fallback=(fw, fh), mipskip=mipskip)
    return header, images, dict(lowres=lowres, palettes=palettes, fallback=fallback)
