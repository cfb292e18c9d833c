"""Independent check of the exporter's animated preview (APNG) with Pillow.

Usage: check_animation.py FILE FRAMES MAX_W MAX_H MAX_BYTES BAND MODE

Pillow decodes and composes the frames as a viewer shows them. Checks: the frame count,
the size bounds, the file size bound, and, below the top BAND rows (the time label), that
consecutive frames differ when MODE is `moving` and are equal when it is `still` (where
the label rows must then differ: the time changes). Prints OK on success.
"""
import os
import sys

from PIL import Image, ImageChops


def main():
    path, frames, max_w, max_h, max_bytes, band, mode = sys.argv[1:8]
    frames, max_w, max_h, max_bytes, band = map(int, (frames, max_w, max_h, max_bytes, band))
    size = os.path.getsize(path)
    assert size <= max_bytes, f"{path}: {size} bytes > {max_bytes}"
    im = Image.open(path)
    assert im.format == "PNG", im.format
    n = getattr(im, "n_frames", 1)
    assert n == frames, f"{n} frames, expected {frames}"
    assert n == 1 or im.is_animated
    w, h = im.size
    assert w <= max_w and h <= max_h, f"{w}x{h} exceeds {max_w}x{max_h}"
    shown = []
    for k in range(n):
        im.seek(k)
        shown.append(im.convert("RGB").copy())
    for k in range(1, n):
        a, b = shown[k - 1], shown[k]
        scene = ImageChops.difference(a.crop((0, band, w, h)), b.crop((0, band, w, h))).getbbox()
        label = ImageChops.difference(a.crop((0, 0, w, band)), b.crop((0, 0, w, band))).getbbox()
        if mode == "moving":
            assert scene is not None, f"frames {k - 1} and {k} show the same scene"
        elif mode == "still":
            assert scene is None, f"frames {k - 1} and {k}: scene changed in {scene}"
            assert label is not None, f"frames {k - 1} and {k}: same time label"
        else:
            raise SystemExit(f"unknown mode {mode}")
    # Every frame shows something besides the background.
    for k, f in enumerate(shown):
        assert f.getcolors(1) is None, f"frame {k} is blank"
    print("OK", n, "frames", f"{w}x{h}", size, "bytes")


if __name__ == "__main__":
    main()
